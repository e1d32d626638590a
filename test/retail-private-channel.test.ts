import { post } from './support/exchange-stack.js';
import { RETAIL_KEYS, type Stack, eventually, json, retailBid, startStack } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// Issue 29 ("written once"): an account's private order subscription has one holder in the gateway. The
// risk view (open orders for the counted limits) and the unknown-outcome finder (the order channel held
// around retail creates) both listen to it: the sandbox sees one SUBSCRIPTION_TYPE_ORDER per account
// while both hold it, and each consumer still hears everything it needs from that one subscription.

const { main: MAIN_KEY, hedge: HEDGE_KEY } = RETAIL_KEYS;
const CLIENTS = [
  {
    id: 'chan-app',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    retailAccounts: ['main'],
  },
];
/** A counted limit: the risk view holds every retail account's order channel from the start. */
const withLimit = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'client', id: 'chan-app', maxOpenOrders: 1 }] },
});
const bid = retailBid;

describe('one private order subscription per retail account, shared by the risk view and the unknown-outcome finder', () => {
  let stack: Stack;
  /** Live subscriptions of that key on the sandbox's /v1/ws/private (only order ones here: no position limit, no client topic). */
  const privateSubscriptions = (keyId: string, except: ReadonlySet<unknown> = new Set()) =>
    [...stack.sandbox.state.retail.connections]
      .filter((connection) => {
        if (except.has(connection)) return false;
        const session = connection as unknown as { channel?: string; keyId?: string };
        return session.channel === 'private' && session.keyId === keyId;
      })
      .reduce((sum, connection) => sum + connection.subscriptionCount, 0);

  beforeAll(async () => {
    stack = await startStack({ clients: CLIENTS, gateway: withLimit });
  }, 60_000);
  afterAll(() => stack?.close());

  it('holds one ORDER subscription of the account while both consumers hold it, and both hear it', async () => {
    const { state } = stack.sandbox;
    await eventually(
      async () => [privateSubscriptions(MAIN_KEY), privateSubscriptions(HEDGE_KEY)],
      ([main, hedge]) => main! >= 1 && hedge! >= 1,
      20_000,
      50,
    );

    // A create holds the account's order channel (the finder's hold, lingering a minute) on top of the view's.
    const first = await post(stack, '/retail/v1/orders', bid('0.04'), 'chan-app');
    expect(first.status).toBe(200);
    const { id } = (await json(first)) as { id: string };
    const refused = await post(stack, '/retail/v1/orders', bid('0.03'), 'chan-app');
    expect(refused.status).toBe(422);
    expect((await json(refused)).code).toBe('RISK_MAX_OPEN_ORDERS');

    // Cancelled outside the gateway: only the shared subscription tells the risk view, which gives its count back.
    state.engine.cancel({ account: MAIN_KEY, orderId: id });
    await eventually(
      async () => (await post(stack, '/retail/v1/orders', bid('0.03'), 'chan-app')).status,
      (status) => status === 200,
      20_000,
      200,
    );

    // A create whose answer is lost is resolved by the finder from the same subscription.
    state.retail.faults.dropAnswers.createOrder = 1;
    const lost = await post(stack, '/retail/v1/orders', bid('0.02'), 'all', { 'idempotency-key': 'chan-lost-1' });
    expect(lost.status).toBe(202);
    const lookup = await eventually(
      async () =>
        json(
          await fetch(`${stack.url}/orders/key/chan-lost-1`, {
            headers: { authorization: `Bearer ${stack.keys.all}` },
          }),
        ),
      (body) => body.state === 'DONE',
      30_000,
      200,
    );
    const orderId = (lookup.answer as { id: string }).id;
    const timeline = await json(
      await fetch(`${stack.url}/orders/timeline?orderId=${orderId}`, {
        headers: { authorization: `Bearer ${stack.keys.all}` },
      }),
    );
    const resolved = ((timeline.records ?? []) as { kind: string; data: { via?: string } }[]).find(
      (record) => record.kind === 'resolved',
    );
    expect(resolved?.data.via).toBe('retail order channel');

    // Both consumers hold the account's order channel now (the view always, the finder for a minute after its creates).
    const counts = { main: privateSubscriptions(MAIN_KEY), hedge: privateSubscriptions(HEDGE_KEY) };
    process.stdout.write(
      `private order subscriptions at the sandbox while both consumers hold them: ${JSON.stringify(counts)}\n`,
    );
    expect(counts).toEqual({ main: 1, hedge: 1 });

    // The upstream cuts every connection: the one subscription is sent again, and the view hears its new snapshot and events.
    const cut = new Set(state.retail.connections);
    expect(state.retail.dropConnections()).toBeGreaterThan(0);
    await eventually(
      async () => [privateSubscriptions(MAIN_KEY, cut), privateSubscriptions(HEDGE_KEY, cut)],
      ([main, hedge]) => main! >= 1 && hedge! >= 1,
      20_000,
      50,
    );
    expect((await post(stack, '/retail/v1/orders', bid('0.03'), 'chan-app')).status).toBe(422);
    state.engine.cancelAll(MAIN_KEY);
    await eventually(
      async () => (await post(stack, '/retail/v1/orders', bid('0.03'), 'chan-app')).status,
      (status) => status === 200,
      20_000,
      200,
    );
    expect({ main: privateSubscriptions(MAIN_KEY, cut), hedge: privateSubscriptions(HEDGE_KEY, cut) }).toEqual({
      main: 1,
      hedge: 1,
    });
  }, 90_000);
});
