import { limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// Issue 26: replace and modify are judged against their new values. A new price alone changes an order's
// worst case as much as a new quantity: 100 contracts bought at 1 cent ($1) repriced to 90 cents is a $90
// order. It is judged at the order's quantity as the gateway knows it; not knowing it, the gateway
// cannot judge, and refuses (fail closed) rather than let the price through unchecked.

const MAX_NOTIONAL = 5;
const SLUG = 'aec-nfl-gb-chi-2026-11-22';
const CLIENTS = [
  {
    id: 'px-bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
    retailAccounts: ['main'],
  },
];
const withLimit = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'client', id: 'px-bot', maxOrderNotional: MAX_NOTIONAL }] },
});
const usd = (value: string) => ({ value, currency: 'USD' });

describe('a new price alone is judged at the order’s quantity against the maximum order notional', () => {
  let stack: Stack;
  const send = (path: string, body: unknown) => post(stack, path, body, 'px-bot', { prefer: 'wait=20' });
  const replace = (...requests: object[]) => send('/exchange/v1/trading/orders/replace/list', { requests });
  const retailCalls = (name: string) => stack.sandbox.state.counterSnapshot()[`retail.route.${name}`] ?? 0;

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { redis: true, gateway: withLimit });
  });
  afterAll(() => stack?.close());

  it('refuses an exchange replace whose new price alone takes the order past the limit, nothing sent; a price within it passes', async () => {
    const rested = await send('/exchange/v1/trading/orders', limit('SIDE_BUY', 100, 1, { clordId: 'px-a' }));
    expect(rested.status).toBe(200);
    const id = (await json(rested)).orderId as string;

    const before = upstreamCalls(stack);
    const repriced = await replace({ orderId: id, price: '90' });
    expect(repriced.status).toBe(422);
    expect(await json(repriced)).toMatchObject({
      code: 'RISK_MAX_NOTIONAL',
      limit: MAX_NOTIONAL,
      observed: 90,
      order: 'body.requests.0',
    });
    expect(upstreamCalls(stack)).toBe(before);
    expect(stack.sandbox.state.engine.order(id)).toMatchObject({ price: 1 });

    expect((await replace({ orderId: id, price: '4' })).status).toBe(200);
    expect(stack.sandbox.state.engine.order(id)).toMatchObject({ price: 4 });
  });

  it('refuses a new price alone for an order whose quantity it does not know, naming the limit; nothing sent', async () => {
    const before = upstreamCalls(stack);
    const res = await replace({ orderId: 'not-an-order-of-this-gateway', price: '90' });
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({
      code: 'RISK_MAX_NOTIONAL',
      limit: MAX_NOTIONAL,
      orderId: 'not-an-order-of-this-gateway',
    });
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('refuses a retail modify whose new price alone takes the order past the limit, nothing sent; a price within it passes', async () => {
    const created = await send('/retail/v1/orders', {
      marketSlug: SLUG,
      intent: 'ORDER_INTENT_BUY_LONG',
      price: usd('0.01'),
      quantity: 100,
    });
    expect(created.status).toBe(200);
    const { id } = await json(created);
    const modify = (price: string) => send(`/retail/v1/order/${id}/modify`, { marketSlug: SLUG, price: usd(price) });

    const before = retailCalls('modifyOrder');
    const repriced = await modify('0.90');
    expect(repriced.status).toBe(422);
    expect(await json(repriced)).toMatchObject({ code: 'RISK_MAX_NOTIONAL', limit: MAX_NOTIONAL, observed: 90 });
    expect(retailCalls('modifyOrder')).toBe(before);

    expect((await modify('0.04')).status).toBe(200);
    expect(retailCalls('modifyOrder')).toBe(before + 1);
  });
});
