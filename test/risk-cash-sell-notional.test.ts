import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, RETAIL_MARKET, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

// maxOrderNotional judges a sell at qty × (1 − price) (README "Risk controls"); a cash sell was judged at
// its cash amount only (found by a probe). A cash sell of $5 into a 5-cent bid sold 100 contracts, a worst
// case of 100 × $0.95 = $95 by the gateway's own rule: the same sale as a limit sell of 100 at 5 cents,
// which is refused. Now a cash sell is judged at the most contracts it can sell (its amount at the lowest
// price) times 1 − that price.

const W = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [{ id: 'bot', team: 'trading', scopes: W, participants: [PARTICIPANT], retailAccounts: ['main'] }];
const withLimits = (config: GatewayConfigInput): GatewayConfigInput => ({
  ...config,
  risk: { limits: [{ scope: 'client', id: 'bot', maxOrderNotional: 10 }] },
});
const usd = (value: string) => ({ value, currency: 'USD' });

describe('a cash sell under maxOrderNotional', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { gateway: withLimits });
  });
  afterAll(() => stack?.close());

  it('exchange: a $5 cash sell into a 5-cent bid is judged as the 100 contracts it can sell, as a limit sell of 100 at 5 cents is', async () => {
    const { state } = stack.sandbox;
    state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      account: COUNTERPARTY,
      orderQty: 100,
      price: 5,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    } as never);
    const asLimit = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_SELL', 100, 5), 'bot');
    expect(await json(asLimit)).toMatchObject({ code: 'RISK_MAX_NOTIONAL', observed: 95 });

    const inserts = state.counter('exchange.calls.insertOrder');
    const cash = await post(
      stack,
      '/exchange/v1/trading/orders',
      {
        symbol: SYMBOL,
        side: 'SIDE_SELL',
        type: 'ORDER_TYPE_MARKET_TO_LIMIT',
        timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
        cashOrderQty: '500',
      },
      'bot',
    );
    const answer = await json(cash);
    const sold = answer.orderId ? (state.engine.order(answer.orderId) as { cumQty: number }).cumQty : 0;
    expect({ status: cash.status, code: answer.code, sold }).toEqual({
      status: 422,
      code: 'RISK_MAX_NOTIONAL',
      sold: 0,
    });
    expect(state.counter('exchange.calls.insertOrder')).toBe(inserts);
  });

  it('retail: a $5 cash market sell the same way', async () => {
    const { state } = stack.sandbox;
    state.engine.insert({
      symbol: RETAIL_MARKET,
      side: 'SIDE_BUY',
      account: COUNTERPARTY,
      orderQty: 100,
      price: 5,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    } as never);
    const asLimit = await post(
      stack,
      '/retail/v1/orders',
      { marketSlug: RETAIL_MARKET, intent: 'ORDER_INTENT_SELL_LONG', price: usd('0.05'), quantity: 100 },
      'bot',
    );
    expect(await json(asLimit)).toMatchObject({ code: 'RISK_MAX_NOTIONAL', observed: 95 });
    const cash = await post(
      stack,
      '/retail/v1/orders',
      {
        marketSlug: RETAIL_MARKET,
        intent: 'ORDER_INTENT_SELL_LONG',
        type: 'ORDER_TYPE_MARKET',
        cashOrderQty: usd('5.00'),
      },
      'bot',
    );
    const answer = await json(cash);
    const sold = answer.id ? (state.engine.order(answer.id) as { cumQty: number }).cumQty : 0;
    expect({ status: cash.status, code: answer.code, sold }).toEqual({
      status: 422,
      code: 'RISK_MAX_NOTIONAL',
      sold: 0,
    });
  });
});
