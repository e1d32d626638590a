import { SYMBOL, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, api, json, pastGatewayRefusals } from './support/stack.js';

/**
 * No gateway rule holds a cancel back: not the team's share of the cancel bucket, not the client's
 * inbound rate. Both refused a team's own cancels while the exchange's cancel limit had ample room
 * (found by a probe): with `shares: {exchange.orders.cancel: 0.02}`, 5 of 6 concurrent cancels got
 * 429 `team-share` and their orders stayed open (retail: 3 of 4); a bot that spent its inbound rate on
 * reads could not cancel at all. A cancel past its team's share now takes what the bucket holds beyond
 * the other teams' shares, so those stay theirs. Real Redis and sandbox.
 */
const W = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [
  { id: 'capped', team: 'trading', scopes: W, participants: [PARTICIPANT], retailAccounts: ['main'] },
  { id: 'other', team: 'platform', scopes: W, participants: [OTHER_PARTICIPANT] },
];
const RETAIL_SLUG = 'aec-nfl-gb-chi-2026-11-22';
/** Team platform's share of the exchange cancel bucket: a flood of team trading's cancels leaves it. */
const PLATFORM_SHARE = 0.5;

const TEAMS: { id: string; shares: Record<string, number> }[] = [
  { id: 'platform', shares: { 'exchange.orders.cancel': PLATFORM_SHARE } },
  { id: 'trading', shares: { 'exchange.orders.cancel': 0.02, 'retail.orders': 0.02 } },
];

describe("a team's cancels are never held back by its own share or its inbound rate", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, {
      redis: true,
      gateway: (config) => ({
        ...config,
        teams: TEAMS,
        // A cancel bucket of 36 (40 per 10 s, less the 10 % margin) refilled at 3.6/s: a flood outruns the refill.
        limits: {
          ...config.limits,
          buckets: { ...config.limits?.buckets, 'exchange.orders.cancel': { limit: 40, windowSeconds: 10 } },
        },
        inbound: { ...config.inbound, perClientPerSecond: 0.1, perClientBurst: 40 },
      }),
    });
  }, 60_000);
  afterAll(() => stack?.close());

  const engine = () => stack.sandbox.state.engine;
  const rest = (account: string, count: number) =>
    Array.from(
      { length: count },
      (_, i) =>
        engine().insert({
          symbol: SYMBOL,
          side: 'SIDE_BUY',
          account,
          orderQty: 1,
          price: 2 + (i % 20),
          timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
        }).orderId,
    );
  const cancel = (orderId: string, client: string) =>
    post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, client);
  const refusals = async (answers: Response[]) =>
    Promise.all(answers.filter((res) => res.status !== 200).map(async (res) => [res.status, await json(res)]));

  it('sends a cancel of a client whose inbound rate its reads spent', async () => {
    const [orderId] = rest(PARTICIPANT, 1);
    let read: Response | undefined;
    for (let i = 0; i < 60 && read?.status !== 429; i++)
      read = await api(stack, 'capped')('/exchange/v1/trading/orders/open');
    expect(read?.status).toBe(429);
    expect(await json(read!)).toMatchObject({ code: 'RATE_LIMITED', bucket: 'inbound.client' });
    const res = await cancel(orderId!, 'capped');
    expect(res.status).toBe(200);
    expect(
      engine()
        .openOrders(PARTICIPANT)
        .some((order) => order.id === orderId),
    ).toBe(false);
    // Other routes still meet the rate.
    expect((await api(stack, 'capped')('/exchange/v1/trading/orders/open')).status).toBe(429);
  });

  it('sends every concurrent exchange cancel past the team share; the other team keeps its share', async () => {
    const ids = rest(PARTICIPANT, 6);
    const answers = await Promise.all(ids.map((orderId) => cancel(orderId, 'capped')));
    expect(await refusals(answers)).toEqual([]);
    expect(
      engine()
        .openOrders(PARTICIPANT)
        .filter((order) => ids.includes(order.id)),
    ).toEqual([]);

    // Team trading floods cancels: past its share it may take only what platform's share leaves, so the
    // burst the bucket keeps for platform is there for platform's own cancels at once.
    const flood = rest(PARTICIPANT, 100);
    const flooded = await Promise.all(flood.map((orderId) => cancel(orderId, 'capped')));
    const floodRefused = await refusals(flooded);
    const theirs = rest(OTHER_PARTICIPANT, 15);
    const answered = await Promise.all(theirs.map((orderId) => cancel(orderId, 'other')));
    process.stdout.write(
      `cancel shares: trading's flood ${flood.length - floodRefused.length} sent, ${floodRefused.length} refused; ` +
        `platform's ${answered.filter((res) => res.status === 200).length} of ${theirs.length} sent\n`,
    );
    // The flood met the bucket only at platform's share, named as its own team's share.
    for (const [status, body] of floodRefused)
      expect([status, body.code, body.bucket]).toEqual([429, 'RATE_LIMITED', 'exchange.orders.cancel']);
    expect(await refusals(answered)).toEqual([]);
    expect(stack.sandbox.state.counterSnapshot()['exchange.throttled.cancel'] ?? 0).toBe(0);
  });

  it('sends every concurrent retail cancel past the team share', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await pastGatewayRefusals(() =>
        post(
          stack,
          '/retail/v1/orders',
          {
            marketSlug: RETAIL_SLUG,
            intent: 'ORDER_INTENT_BUY_LONG',
            price: { value: `0.1${i}`, currency: 'USD' },
            quantity: 1,
          },
          'all',
          { 'x-retail-account': 'main' },
        ),
      );
      expect(res.status).toBe(200);
      ids.push((await json(res)).id);
    }
    const answers = await Promise.all(
      ids.map((id) => post(stack, `/retail/v1/order/${id}/cancel`, { marketSlug: RETAIL_SLUG }, 'capped')),
    );
    expect(await refusals(answers)).toEqual([]);
  });
});
