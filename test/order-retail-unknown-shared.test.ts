import { post } from './support/exchange-stack.js';
import { type Stack, eventually, json, startStack, testJournal } from './support/stack.js';

// Two teams share a retail account. An UNKNOWN create of one team (its request held at the upstream)
// and an UNKNOWN create of the other with the same terms (its answer lost) both match the one order the
// second made. The retail API has no client order id, so neither call can be told its order: both stay
// PENDING. Before, the finder looked for overlapping calls within one team only, and both keys were
// answered 200 with the same order.

const MARKET = 'aec-nfl-det-min-2026-11-22';
const usd = (value: string) => ({ value, currency: 'USD' });
const client = (id: string, team: string) => ({
  id,
  team,
  scopes: ['write:orders' as const, 'read:orders' as const],
  retailAccounts: ['main'],
});

interface Lookup {
  state?: string;
  status?: number;
  detail?: string;
  answer?: { id?: string };
}
interface OpenOrder {
  id: string;
  intent: string;
  quantity: number | string;
  price?: { value: string };
}

describe('UNKNOWN retail creates of two teams sharing an account, with the same terms', () => {
  let stack: Stack;
  const get = (path: string, clientId: string) =>
    fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${stack.keys[clientId]}` } });

  beforeAll(async () => {
    stack = await startStack({
      clients: [client('rbot', 'trading'), client('rplat', 'platform')],
      gateway: (config) => ({
        ...config,
        retail: { ...config.retail, requestTimeoutMs: 1000 },
        journal: { ...(config.journal ?? testJournal()), resolveSearchesPerMinute: 12, orderStream: 'always' },
      }),
    });
  }, 60_000);
  afterAll(() => stack?.close());

  it('gives the one order to at most one of the two keys', async () => {
    const { state } = stack.sandbox;
    // `journal.orderStream: always`: the account's order channel is held from the start, before either call.
    await eventually(
      async () => [...state.retail.connections].some((connection) => connection.subscriptionCount > 0),
      Boolean,
      10_000,
    );

    const order = { marketSlug: MARKET, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.07'), quantity: 3 };
    const createsBefore = state.counter('retail.route.createOrder');
    // rbot's request is held at the upstream past the gateway's timeout: UNKNOWN, and no order of it
    // while this case runs (held longer than the case's deadlines).
    state.retail.faults.delayMs = 60_000;
    const held = await post(stack, '/retail/v1/orders', order, 'rbot', { 'idempotency-key': 'rbot-1' });
    state.retail.faults.delayMs = 0;
    expect(held.status).toBe(202);
    // rplat's create makes the order, and its answer is lost: UNKNOWN too.
    state.retail.faults.dropAnswers.createOrder = 1;
    const lost = await post(stack, '/retail/v1/orders', order, 'rplat', { 'idempotency-key': 'rplat-1' });
    expect(lost.status).toBe(202);

    // Each key either resolved or said why it stays PENDING: the other team's call with the same terms.
    const outcome = (clientId: string, key: string) =>
      eventually(
        async () => (await json(await get(`/orders/key/${key}`, clientId))) as Lookup,
        (body) => body.state === 'DONE' || /overlapping terms/.test(body.detail ?? ''),
        30_000,
        200,
      );
    const outcomes = await Promise.all([outcome('rbot', 'rbot-1'), outcome('rplat', 'rplat-1')]);

    const open = (await json(await get(`/retail/v1/orders/open?slugs=${MARKET}`, 'rplat'))).orders as OpenOrder[];
    const made = open.filter(
      (o) => o.intent === order.intent && Number(o.price?.value) === 0.07 && Number(o.quantity) === 3,
    );
    expect(made).toHaveLength(1);
    // Each request reached the upstream once (rbot's is still held there): nothing was sent again.
    expect(state.counter('retail.route.createOrder')).toBe(createsBefore + 2);
    const given = outcomes.filter((body) => body.state === 'DONE' && body.answer?.id === made[0]!.id);
    expect(given.length).toBeLessThanOrEqual(1);
  }, 90_000);
});
