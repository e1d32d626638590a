import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// Two clients of two teams on one participant and one retail account. A replace or a modify of the
// other client's order was judged by the actor's limits and counts, not the owner's: a probe grew the
// other team's 10-lot to 1,000 past that team's maxOpenNotional and maxOrderQty, and the owner's next
// order passed too. A replace or modify now changes only the caller's own orders (or orders no client
// was given); a cancel may still name any order of the participant.

const W = ['write:orders' as const, 'read:orders' as const];
const SLUG = 'aec-nfl-gb-chi-2026-11-22';
const CLIENTS = [
  { id: 'owner-bot', team: 'desk', scopes: W, participants: [PARTICIPANT], retailAccounts: ['main'] },
  { id: 'other-bot', team: 'trading', scopes: W, participants: [PARTICIPANT], retailAccounts: ['main'] },
];
const withLimits = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  teams: [...(config.teams ?? []), { id: 'desk' }],
  risk: { limits: [{ scope: 'team', id: 'desk', maxOpenNotional: 5, maxOrderQty: 20 }] },
});
const usd = (value: string) => ({ value, currency: 'USD' });

describe("a replace or modify naming another client's order on a shared participant or account", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { redis: true, gateway: withLimits });
  });
  afterAll(() => stack?.close());

  it('is refused 403 naming the order, changes nothing and spends nothing; the owner changes it within its limits, and the other client may cancel it', async () => {
    const { state } = stack.sandbox;
    const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 10, 30), 'owner-bot');
    expect(placed.status).toBe(200);
    const { orderId } = await json(placed);

    const replaces = () => state.counter('exchange.calls.replaceBatch');
    const before = replaces();
    const replaced = (client: string, orderQty: string) =>
      post(stack, '/exchange/v1/trading/orders/replace/list', { requests: [{ orderId, orderQty }] }, client);
    const grown = await replaced('other-bot', '1000');
    expect(grown.status).toBe(403);
    expect(await json(grown)).toMatchObject({ code: 'FORBIDDEN', orderId, field: 'body.requests.0.orderId' });
    expect(replaces()).toBe(before);
    expect(state.engine.order(orderId)).toMatchObject({ orderQty: 10 });

    const own = await replaced('owner-bot', '12');
    expect(own.status).toBe(200);
    expect(replaces()).toBe(before + 1);
    const cancel = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId }, 'other-bot');
    expect(cancel.status).toBe(200);
  });

  it('on retail too', async () => {
    const { state } = stack.sandbox;
    const created = await post(
      stack,
      '/retail/v1/orders',
      { marketSlug: SLUG, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.30'), quantity: 10 },
      'owner-bot',
    );
    expect(created.status).toBe(200);
    const { id } = await json(created);
    const modifies = () => state.counter('retail.route.modifyOrder');
    const before = modifies();
    const grown = await post(stack, `/retail/v1/order/${id}/modify`, { marketSlug: SLUG, quantity: 1000 }, 'other-bot');
    expect(grown.status).toBe(403);
    expect(await json(grown)).toMatchObject({ code: 'FORBIDDEN', orderId: id, field: 'params.id' });
    expect(modifies()).toBe(before);
    expect(state.engine.order(id)).toMatchObject({ orderQty: 10 });
    const own = await post(stack, `/retail/v1/order/${id}/modify`, { marketSlug: SLUG, quantity: 12 }, 'owner-bot');
    expect(own.status).toBe(200);
    expect(modifies()).toBe(before + 1);
  });
});
