import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/** Empty at start: the gateway first reads their books once the counterparty's orders are in (one snapshot, no race with updates). */
const EMPTY = 'aec-nfl-sf-sea-2026-11-22';
const ONE_SIDED = 'aec-nfl-gb-chi-2026-11-22';
const TRADER = ['write:orders' as const, 'read:orders' as const];

const withBand = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'team', id: 'trading', priceBand: 0.05 }] },
});
const marketBuy = (symbol: string) => ({
  symbol,
  side: 'SIDE_BUY',
  type: 'ORDER_TYPE_MARKET_TO_LIMIT',
  timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
  orderQty: '1',
});
const rest = (symbol: string, side: 'SIDE_BUY' | 'SIDE_SELL', price: number, clordId: string) =>
  ({
    symbol,
    side,
    orderQty: 10,
    price,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: COUNTERPARTY,
    clordId,
  }) as const;

describe('price band around the streamed reference, for orders that would execute at once', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startExchangeStack([{ id: 'bot', team: 'trading', scopes: TRADER, participants: [PARTICIPANT] }], {
      gateway: withBand,
    });
    // Another firm quotes 40 / 44 (a 4-cent spread, tight: the reference is the mid, 42 cents), and offers alone at 60 elsewhere.
    stack.sandbox.state.engine.insert(rest(SYMBOL, 'SIDE_BUY', 40, 'carol-bid'));
    stack.sandbox.state.engine.insert(rest(SYMBOL, 'SIDE_SELL', 44, 'carol-ask'));
    stack.sandbox.state.engine.insert(rest(ONE_SIDED, 'SIDE_SELL', 60, 'carol-lone-ask'));
  });
  afterAll(() => stack?.close());

  /**
   * What the orders sent upstream. The instance's first banded order reads the instrument list (its own
   * reference read, at most once a minute) before it streams a symbol new to it: not the order's.
   */
  const orderCalls = () => upstreamCalls(stack) - stack.sandbox.state.counter('exchange.calls.instruments');

  async function refused(body: object) {
    const sent = orderCalls();
    const res = await post(stack, '/exchange/v1/trading/orders', body, 'bot');
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(orderCalls()).toBe(sent);
    return { status: res.status, body: await json(res) };
  }

  it('refuses an aggressive order outside the band, naming band, reference and price; accepts one inside', async () => {
    const { status, body } = await refused(limit('SIDE_BUY', 1, 48, { clordId: 'far' }));
    expect(status).toBe(422);
    expect(body).toMatchObject({
      code: 'RISK_PRICE_BAND',
      limit: 0.05,
      band: { low: 0.37, high: 0.47 },
      reference: 0.42,
      referenceSource: 'mid',
      observed: 0.48,
      scope: 'team:trading',
      order: 'body',
    });
    const inside = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 45, { clordId: 'near' }),
      'bot',
    );
    expect(inside.status).toBe(200);
    expect(stack.sandbox.state.engine.order((await json(inside)).orderId)).toMatchObject({ cumQty: 1 });
    // A resting order is not the band's business, however far from the reference.
    expect(
      (await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 20, { clordId: 'low-bid' }), 'bot'))
        .status,
    ).toBe(200);
    // A batch child outside the band refuses the batch, by its path.
    const batch = await post(
      stack,
      '/exchange/v1/trading/orders/list',
      { requests: [limit('SIDE_BUY', 1, 21, { clordId: 'b0' }), limit('SIDE_SELL', 1, 30, { clordId: 'b1' })] },
      'bot',
    );
    expect(await json(batch)).toMatchObject({ code: 'RISK_PRICE_BAND', order: 'body.requests.1', observed: 0.3 });
  });

  it('with no reference (an empty book, a one-sided book never traded), refuses aggressive orders and lets resting ones through', async () => {
    const { status, body } = await refused(marketBuy(EMPTY));
    expect(status).toBe(422);
    expect(body).toMatchObject({ code: 'RISK_REFERENCE_STALE', symbol: EMPTY, order: 'body' });
    expect(
      (
        await post(
          stack,
          '/exchange/v1/trading/orders',
          { ...limit('SIDE_BUY', 1, 50), symbol: EMPTY, clordId: 'rest-empty' },
          'bot',
        )
      ).status,
    ).toBe(200);

    expect((await refused({ ...limit('SIDE_BUY', 1, 60), symbol: ONE_SIDED, clordId: 'lift' })).body).toMatchObject({
      code: 'RISK_REFERENCE_STALE',
      symbol: ONE_SIDED,
    });
    const passive = await post(
      stack,
      '/exchange/v1/trading/orders',
      { ...limit('SIDE_BUY', 1, 55), symbol: ONE_SIDED, clordId: 'under' },
      'bot',
    );
    expect(passive.status).toBe(200);
    expect(stack.sandbox.state.engine.order((await json(passive)).orderId)).toMatchObject({ cumQty: 0 });
    // The what-if route runs the band too, and sends nothing (EMPTY now holds only the bot's own bid: still no reference).
    const sent = upstreamCalls(stack);
    expect((await json(await post(stack, '/exchange/v1/trading/orders/check', marketBuy(EMPTY), 'bot'))).code).toBe(
      'RISK_REFERENCE_STALE',
    );
    expect(upstreamCalls(stack)).toBe(sent);
  });
});
