import { SYMBOL, limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const NARROW = 'aec-nfl-gb-chi-2026-11-22';
const TRADER = ['write:orders' as const, 'read:orders' as const];

/**
 * Limits as data: firm > team > client, one narrowed to a market prefix; the most restrictive wins. The orders
 * these tests expect through are judged on risk, not on lateness: the budget's age limit at the send (50 ms by
 * default, refused as `unavailable` when the jest process stalls that long beside other suites) is set far above
 * any stall, so a designed refusal of a late decision cannot stand in for the risk verdict checked here.
 */
const withLimits = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  limits: { ...config.limits, maxDecisionAgeMs: 30_000 },
  risk: {
    limits: [
      { scope: 'firm', maxOrderQty: 1000, maxOrderNotional: 500 },
      { scope: 'team', id: 'trading', maxOrderQty: 100 },
      { scope: 'team', id: 'trading', market: 'aec-nfl-gb-*', maxOrderQty: 10 },
      { scope: 'client', id: 'bot', maxOrderNotional: 50 },
    ],
  },
  clients: (config.clients ?? []).map((client) =>
    client.id === 'vip' ? { ...client, entitlements: ['ignorePriceValidityChecks'], manualOrders: true } : client,
  ),
});

const retailOrder = (quantity: number, price = '0.60', extra: object = {}) => ({
  marketSlug: SYMBOL,
  intent: 'ORDER_INTENT_BUY_LONG',
  type: 'ORDER_TYPE_LIMIT',
  price: { value: price, currency: 'USD' },
  quantity,
  ...extra,
});

describe('static pre-trade limits and field policing, before any budget is spent', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startExchangeStack(
      [
        { id: 'bot', team: 'trading', scopes: TRADER, participants: [PARTICIPANT], retailAccounts: ['main'] },
        { id: 'vip', team: 'trading', scopes: TRADER, participants: [PARTICIPANT], retailAccounts: ['main'] },
        { id: 'reader', scopes: ['read:orders'] },
      ],
      { gateway: (config) => withLimits(config) },
    );
  });
  afterAll(() => stack?.close());

  async function refused(path: string, body: object, client = 'bot') {
    const sent = upstreamCalls(stack);
    const res = await post(stack, path, body, client);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(upstreamCalls(stack)).toBe(sent);
    return { status: res.status, body: await json(res) };
  }

  it('refuses an exchange insert over the quantity limit, naming the limit, the observed value and the scope', async () => {
    const { status, body } = await refused('/exchange/v1/trading/orders', limit('SIDE_BUY', 101, 1));
    expect(status).toBe(422);
    expect(body).toMatchObject({
      code: 'RISK_MAX_QUANTITY',
      limit: 100,
      observed: 101,
      scope: 'team:trading',
      order: 'body',
    });
    // Another team falls under the firm's 1,000 only.
    expect((await post(stack, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 101, 1))).status).toBe(200);
  });

  it('takes the narrower limit where a market prefix applies', async () => {
    const { body } = await refused('/exchange/v1/trading/orders', { ...limit('SIDE_BUY', 11, 1), symbol: NARROW });
    expect(body).toMatchObject({
      code: 'RISK_MAX_QUANTITY',
      limit: 10,
      observed: 11,
      scope: 'team:trading',
      market: 'aec-nfl-gb-*',
    });
  });

  it('prices a buy at qty × price and a sell at qty × (1 − price), in exchange cents', async () => {
    const { status, body } = await refused('/exchange/v1/trading/orders', limit('SIDE_BUY', 90, 60));
    expect(status).toBe(422);
    expect(body).toMatchObject({ code: 'RISK_MAX_NOTIONAL', limit: 50, observed: 54, scope: 'client:bot' });
    // The same size sold risks 90 × 0.40 = $36.
    const sold = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_SELL', 90, 60, { clordId: 'sell-90' }),
      'bot',
    );
    expect(sold.status).toBe(200);
  });

  it('judges a market-type order at the worst case whatever price it carries (it trades at the market)', async () => {
    // A probe: a market-to-limit buy of 90 sent with a price of 1 cent was judged at $0.90 against the
    // $50 limit, sent, and filled at 90 cents ($81); a stop the same way.
    for (const type of ['ORDER_TYPE_MARKET_TO_LIMIT', 'ORDER_TYPE_STOP']) {
      const order = {
        ...limit('SIDE_BUY', 90, 1),
        type,
        timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
        ...(type === 'ORDER_TYPE_STOP' ? { stopPrice: '95' } : {}),
      };
      const { status, body } = await refused('/exchange/v1/trading/orders', order);
      expect({ type, status, body }).toMatchObject({
        type,
        status: 422,
        body: { code: 'RISK_MAX_NOTIONAL', limit: 50, observed: 90 },
      });
    }
    // A stop-limit trades at its price once triggered: judged at it (90 × $0.01).
    const stopLimit = { ...limit('SIDE_BUY', 90, 1), type: 'ORDER_TYPE_STOP_LIMIT', stopPrice: '95' };
    expect((await post(stack, '/exchange/v1/trading/orders/check', stopLimit, 'bot')).status).toBe(200);
    // A retail market order the same way.
    const market = retailOrder(90, '0.01', { type: 'ORDER_TYPE_MARKET', tif: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' });
    expect((await refused('/retail/v1/orders', market)).body).toMatchObject({
      code: 'RISK_MAX_NOTIONAL',
      observed: 90,
    });
  });

  it('refuses a whole batch for one child over a limit, and a replace to new values over one', async () => {
    const { body } = await refused('/exchange/v1/trading/orders/list', {
      requests: [limit('SIDE_BUY', 1, 10), limit('SIDE_BUY', 200, 10)],
    });
    expect(body).toMatchObject({ code: 'RISK_MAX_QUANTITY', limit: 100, observed: 200, order: 'body.requests.1' });
    const { orderId } = await json(
      await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10, { clordId: 'to-replace' }), 'bot'),
    );
    const replaced = await refused('/exchange/v1/trading/orders/replace/list', {
      requests: [{ orderId, orderQty: '150' }],
    });
    expect(replaced.body).toMatchObject({ code: 'RISK_MAX_QUANTITY', observed: 150, order: 'body.requests.0' });
  });

  it("checks retail creates (quantity, worst-case notional, a cash amount's most contracts) and modifies", async () => {
    expect((await refused('/retail/v1/orders', retailOrder(101))).body).toMatchObject({
      code: 'RISK_MAX_QUANTITY',
      limit: 100,
      observed: 101,
    });
    expect((await refused('/retail/v1/orders', retailOrder(90))).body).toMatchObject({
      code: 'RISK_MAX_NOTIONAL',
      limit: 50,
      observed: 54,
    });
    const cash = {
      marketSlug: SYMBOL,
      intent: 'ORDER_INTENT_BUY_LONG',
      type: 'ORDER_TYPE_MARKET',
      cashOrderQty: { value: '60.00', currency: 'USD' },
    };
    // $60 could buy 6,000 contracts at $0.01: past the team's maxOrderQty before its notional (test/risk-cash-quantity).
    expect((await refused('/retail/v1/orders', cash)).body).toMatchObject({
      code: 'RISK_MAX_QUANTITY',
      observed: 6_000,
    });
    expect(
      (await refused('/retail/v1/order/some-order/modify', { marketSlug: SYMBOL, quantity: 500 })).body,
    ).toMatchObject({ code: 'RISK_MAX_QUANTITY', observed: 500 });
  });

  it('lets ignorePriceValidityChecks through only with the entitlement, and stamps manualOrderIndicator from the config', async () => {
    const order = limit('SIDE_BUY', 1, 11, {
      ignorePriceValidityChecks: true,
      manualOrderIndicator: 'MANUAL_ORDER_INDICATOR_MANUAL',
    });
    const { status, body } = await refused('/exchange/v1/trading/orders', order);
    expect(status).toBe(403);
    expect(body).toMatchObject({ code: 'RISK_FIELD_NOT_ENTITLED', field: 'ignorePriceValidityChecks' });
    const vip = await post(
      stack,
      '/exchange/v1/trading/orders',
      { ...order, manualOrderIndicator: 'MANUAL_ORDER_INDICATOR_AUTOMATED', clordId: 'vip-1' },
      'vip',
    );
    expect(vip.status).toBe(200);
    expect(stack.sandbox.state.engine.order((await json(vip)).orderId)).toMatchObject({
      manualOrderIndicator: 'MANUAL_ORDER_INDICATOR_MANUAL',
    });
    const bot = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 12, { clordId: 'bot-manual', manualOrderIndicator: 'MANUAL_ORDER_INDICATOR_MANUAL' }),
      'bot',
    );
    expect(stack.sandbox.state.engine.order((await json(bot)).orderId)).toMatchObject({
      manualOrderIndicator: 'MANUAL_ORDER_INDICATOR_AUTOMATED',
    });
  });

  it('the what-if route runs every check and sends nothing', async () => {
    const sent = upstreamCalls(stack);
    const ok = await post(stack, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 5, 40), 'bot');
    expect(ok.status).toBe(200);
    expect(await json(ok)).toMatchObject({
      accepted: true,
      order: { orderQty: '5', manualOrderIndicator: 'MANUAL_ORDER_INDICATOR_AUTOMATED' },
    });
    expect(
      (await json(await post(stack, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 5000, 40), 'bot'))).code,
    ).toBe('RISK_MAX_QUANTITY');
    expect((await json(await post(stack, '/retail/v1/order/check', retailOrder(90), 'bot'))).code).toBe(
      'RISK_MAX_NOTIONAL',
    );
    expect(upstreamCalls(stack)).toBe(sent);
  });

  it('guards the risk routes: 401 without a key, 403 without the scope, 400 on a bad body', async () => {
    expect((await fetch(`${stack.url}/admin/risk`)).status).toBe(401);
    expect((await api(stack, 'bot')('/admin/risk')).status).toBe(403);
    expect(
      (await post(stack, '/admin/risk/states', { scope: 'desk', state: 'halted', reason: 'x'.repeat(5) })).status,
    ).toBe(400);
    expect((await post(stack, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 1, 1), 'reader')).status).toBe(
      403,
    );
    expect((await post(stack, '/exchange/v1/trading/orders/check', { side: 'SIDE_BUY' }, 'bot')).status).toBe(400);
    const view = await json(await api(stack)('/admin/risk'));
    expect(view).toMatchObject({ states: [], changes: [] });
    expect(view.limits).toHaveLength(4);
  });
});
