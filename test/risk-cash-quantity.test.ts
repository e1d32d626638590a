import { COUNTERPARTY, SYMBOL, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/**
 * Issue 26, `maxOrderQty` (contracts per order), through the real wire (sandbox engine, sockets): a cash
 * order without a quantity is judged at the most contracts its amount could buy, at the lowest price
 * (one price unit, 10^-2 dollars here, on the exchange; $0.01 on retail). Before, a cash order had no
 * quantity to judge and passed: with `maxOrderQty: 10`, a $6 cash buy against 300 offered at 2 cents
 * bought all 300, on either surface.
 */

const RETAIL_SLUG = 'aec-nfl-sf-sea-2026-11-22';
const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
    retailAccounts: ['main'],
  },
];
const LIMIT = 10;

const config = (input: GatewayConfigInput): GatewayConfigInput => ({
  ...input,
  risk: { ...input.risk, limits: [{ scope: 'client', id: 'bot', maxOrderQty: LIMIT }] },
});

const offer300At2Cents = (stack: Stack, symbol: string, clordId: string) =>
  stack.sandbox.state.engine.insert({
    symbol,
    side: 'SIDE_SELL',
    orderQty: 300,
    price: 2,
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: COUNTERPARTY,
    clordId,
  });

describe('maxOrderQty judges a cash order at the most contracts its amount buys', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { gateway: config });
  });
  afterAll(() => stack?.close());

  const counter = (name: string) => stack.sandbox.state.counter(name);

  it('exchange: $6.00 (600 units) is refused 422 naming 600 contracts, nothing sent; $0.10 passes', async () => {
    offer300At2Cents(stack, SYMBOL, 'carol-cheap-exchange');
    const cash = (cashOrderQty: string, clordId: string) => ({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      type: 'ORDER_TYPE_MARKET_TO_LIMIT',
      timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
      cashOrderQty,
      clordId,
    });
    const inserts = counter('exchange.calls.insertOrder');
    const refused = await post(stack, '/exchange/v1/trading/orders', cash('600', 'cash-big'), 'bot');
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(refused)).toMatchObject({
      code: 'RISK_MAX_QUANTITY',
      limit: LIMIT,
      observed: 600,
      scope: 'client:bot',
      order: 'body',
    });
    expect(counter('exchange.calls.insertOrder')).toBe(inserts);

    // 10 units (10 cents) buy at most 10 contracts: within the limit, sent, and it buys 5 at 2 cents.
    const passed = await post(stack, '/exchange/v1/trading/orders', cash('10', 'cash-small'), 'bot');
    expect(passed.status).toBe(200);
    expect(counter('exchange.calls.insertOrder')).toBe(inserts + 1);
  });

  it('retail: a $6.00 market buy is refused 422 naming 600 contracts, nothing sent; $0.10 passes', async () => {
    offer300At2Cents(stack, RETAIL_SLUG, 'carol-cheap-retail');
    const create = (value: string) =>
      post(
        stack,
        '/retail/v1/orders',
        {
          marketSlug: RETAIL_SLUG,
          intent: 'ORDER_INTENT_BUY_LONG',
          type: 'ORDER_TYPE_MARKET',
          cashOrderQty: { value, currency: 'USD' },
        },
        'bot',
      );
    const creates = counter('retail.route.createOrder');
    const refused = await create('6.00');
    expect(refused.status).toBe(422);
    expect(await json(refused)).toMatchObject({ code: 'RISK_MAX_QUANTITY', limit: LIMIT, observed: 600 });
    expect(counter('retail.route.createOrder')).toBe(creates);

    const passed = await create('0.10');
    expect(passed.status).toBe(200);
    expect(counter('retail.route.createOrder')).toBe(creates + 1);
  });
});
