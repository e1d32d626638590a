import { SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/** Another open market of the sandbox fixture, named by a replace body that lies about its order's market. */
const OTHER_MARKET = 'aec-nfl-gb-chi-2026-11-22';
const MAX_QTY_IN_SYMBOL = 10;
const MAX_NOTIONAL = 100;
const CLIENTS = [
  {
    id: 'mkt-bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
const withLimits = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: {
    limits: [
      { scope: 'client', id: 'mkt-bot', market: SYMBOL, maxOrderQty: MAX_QTY_IN_SYMBOL },
      { scope: 'client', id: 'mkt-bot', maxOrderNotional: MAX_NOTIONAL },
    ],
  },
});

describe("an order's market and terms as the exchange reads them, not as the body says (issue 26 audit)", () => {
  let stack: Stack;
  const engine = () => stack.sandbox.state.engine;
  const send = (path: string, body: unknown) => post(stack, path, body, 'mkt-bot');
  const replace = (...requests: object[]) => send('/exchange/v1/trading/orders/replace/list', { requests });
  const setState = (scope: string, state: string, reason = 'market test') =>
    post(stack, '/admin/risk/states', { scope, state, reason });
  const outcome = async (res: Response) => {
    const body = await json(res);
    return { status: res.status, code: body.code, scope: body.scope, market: body.market };
  };
  const rest = async (clordId: string) => {
    const res = await send('/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 30, { clordId }));
    expect(res.status).toBe(200);
    return (await json(res)).orderId as string;
  };

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { gateway: withLimits });
  });
  afterAll(() => stack?.close());

  it("a replace is judged on its order's own market: a halt of that market refuses it with no symbol or another one; a cancel passes", async () => {
    const orderId = await rest('mkt-1');
    expect((await setState(`market:${SYMBOL}`, 'halted')).status).toBe(200);
    for (const extra of [{}, { symbol: OTHER_MARKET }]) {
      expect(await outcome(await replace({ orderId, orderQty: '5', ...extra }))).toEqual({
        status: 403,
        code: 'TRADING_HALTED',
        scope: `market:${SYMBOL}`,
        market: undefined,
      });
    }
    expect(engine().order(orderId)).toMatchObject({ orderQty: 1, state: 'ORDER_STATE_NEW' });
    expect((await send('/exchange/v1/trading/orders/cancel', { orderId })).status).toBe(200);
    expect(engine().order(orderId)).toMatchObject({ state: 'ORDER_STATE_CANCELED' });
    expect((await setState(`market:${SYMBOL}`, 'active', 'lifted')).status).toBe(200);
  });

  it("a limit narrowed to the order's market binds its replace whatever symbol the body names", async () => {
    const orderId = await rest('mkt-2');
    for (const extra of [{}, { symbol: OTHER_MARKET }]) {
      expect(await outcome(await replace({ orderId, orderQty: String(MAX_QTY_IN_SYMBOL + 10), ...extra }))).toEqual({
        status: 422,
        code: 'RISK_MAX_QUANTITY',
        scope: 'client:mkt-bot',
        market: SYMBOL,
      });
    }
    expect(engine().order(orderId)).toMatchObject({ orderQty: 1 });
    // Within the limit it passes, and reaches the exchange.
    expect((await replace({ orderId, orderQty: '3' })).status).toBe(200);
    expect(
      engine()
        .openOrders(PARTICIPANT)
        .map((o) => o.orderQty),
    ).toEqual([3]);
  });

  it('a replace of an order whose market the gateway does not know fails closed where a market state or narrowed limit could apply', async () => {
    const unknown = { orderId: 'never-seen-1', orderQty: String(MAX_QTY_IN_SYMBOL + 10), symbol: OTHER_MARKET };
    expect(await outcome(await replace(unknown))).toMatchObject({ status: 422, code: 'RISK_MARKET_UNKNOWN' });
    expect((await setState(`market:${OTHER_MARKET}`, 'halted')).status).toBe(200);
    expect(await outcome(await replace({ ...unknown, orderQty: '1' }))).toMatchObject({
      status: 422,
      code: 'RISK_MARKET_UNKNOWN',
    });
    expect((await setState(`market:${OTHER_MARKET}`, 'active', 'lifted')).status).toBe(200);
  });

  it('a cash amount sent beside a quantity does not hide it: the exchange trades the quantity, so its notional is judged', async () => {
    const before = engine().openOrders(PARTICIPANT).length;
    // $9,900 at the worst case (10,000 × $0.99); the cash amount says $0.01.
    const res = await send(
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 10_000, 99, { symbol: OTHER_MARKET, cashOrderQty: '1', clordId: 'cash-and-qty' }),
    );
    expect(await outcome(res)).toEqual({
      status: 422,
      code: 'RISK_MAX_NOTIONAL',
      scope: 'client:mkt-bot',
      market: undefined,
    });
    expect(engine().openOrders(PARTICIPANT)).toHaveLength(before);
    // The cash amount is judged too when it is the larger.
    const cash = await send('/exchange/v1/trading/orders', {
      ...limit('SIDE_BUY', 1, 50, { symbol: OTHER_MARKET, clordId: 'cash-large' }),
      cashOrderQty: String((MAX_NOTIONAL + 1) * 100),
    });
    expect((await outcome(cash)).code).toBe('RISK_MAX_NOTIONAL');
  });
});
