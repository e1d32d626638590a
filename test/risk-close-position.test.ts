import { COUNTERPARTY, post } from './support/exchange-stack.js';
import { RETAIL_KEYS, type Stack, api, eventually, json, startStack, withGhostAccount } from './support/stack.js';
import { RetailPositionBook } from '../apps/gateway/src/risk/retail-position-book.service.js';

const SLUG = 'aec-nfl-bal-pit-2026-11-22';
const SMALL = 'aec-nfl-det-min-2026-11-22';
const MID = 'aec-nfl-sf-sea-2026-11-22';
const app = (id: string, account: string) => ({
  id,
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  retailAccounts: [account],
});

let placed = 0;

/** Another firm rests an order straight on the engine; answers its order id. */
function rest(stack: Stack, symbol: string, side: 'SIDE_BUY' | 'SIDE_SELL', price: number, orderQty: number) {
  const timeInForce = 'TIME_IN_FORCE_GOOD_TILL_CANCEL' as const;
  const order = { symbol, side, orderQty, price, timeInForce, account: COUNTERPARTY, clordId: `carol-${++placed}` };
  return stack.sandbox.state.engine.insert(order).orderId;
}

/** The `main` account buys `qty` YES at 40 straight on the engine (outside the gateway). */
function buyYesOutside(stack: Stack, symbol: string, qty: number): void {
  rest(stack, symbol, 'SIDE_SELL', 40, qty);
  const timeInForce = 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL';
  const order = { symbol, side: 'SIDE_BUY', orderQty: qty, price: 40, timeInForce } as const;
  stack.sandbox.state.engine.insert({ ...order, account: RETAIL_KEYS.main, clordId: `main-${++placed}` });
}

const held = (stack: Stack, symbol: string) =>
  Number(stack.sandbox.state.engine.position(RETAIL_KEYS.main, symbol)?.netPosition ?? 0);
const closesServed = (stack: Stack) => stack.sandbox.state.counterSnapshot()['retail.route.closePosition'] ?? 0;
const close = (stack: Stack, client: string, marketSlug: string) =>
  api(stack, client)('/retail/v1/order/close-position', { method: 'POST', body: JSON.stringify({ marketSlug }) });

/** The close is refused with `status` and `problem`: nothing reaches the sandbox, the position stays. Answers the problem. */
async function refusedClose(stack: Stack, client: string, slug: string, status: number, problem: object) {
  const [before, net] = [closesServed(stack), held(stack, slug)];
  const res = await close(stack, client, slug);
  const body = await json(res);
  expect([res.status, body]).toEqual([status, expect.objectContaining(problem)]);
  expect([closesServed(stack), held(stack, slug)]).toEqual([before, net]);
  return { body, retryAfter: res.headers.get('retry-after') };
}

/**
 * A close-position is an order-entering call (README "Risk controls"): the per-order limits judge it as
 * a market sell of the whole position, at its worst case (qty × $1). Before, its terms carried no
 * quantity or notional, so a close of 500 against `maxOrderQty: 10` was sent.
 */
describe('close-position under maxOrderQty and maxOrderNotional', () => {
  let stack: Stack;
  /** A long of `qty` bought outside, a bid for it, and this gateway's position channel showing it (where it holds one). */
  const long = async (slug: string, qty: number, bid: number) => {
    buyYesOutside(stack, slug, qty);
    rest(stack, slug, 'SIDE_BUY', bid, qty);
    await eventually(
      () => stack.gateway.get(RetailPositionBook).net('main', slug, 0),
      (value) => value === qty || value === undefined,
    );
  };

  beforeAll(async () => {
    stack = await startStack({
      clients: [app('ro-app', 'main')],
      gateway: (config) => ({
        ...config,
        risk: { limits: [{ scope: 'client', id: 'ro-app', maxOrderQty: 10, maxOrderNotional: 5 }] },
      }),
    });
  });
  afterAll(() => stack?.close());

  it('refuses a close of 500 422 RISK_MAX_QUANTITY, nothing sent, the position kept', async () => {
    await long(SLUG, 500, 5);
    const problem = { code: 'RISK_MAX_QUANTITY', limit: 10, observed: 500, scope: 'client:ro-app' };
    await refusedClose(stack, 'ro-app', SLUG, 422, problem);
  });

  it('refuses a close of 8 (within the quantity) 422 RISK_MAX_NOTIONAL at its worst case, $8 against $5; sends a close of 4', async () => {
    await long(MID, 8, 5);
    await refusedClose(stack, 'ro-app', MID, 422, { code: 'RISK_MAX_NOTIONAL', limit: 5, observed: 8 });
    // A close of 4 ($4 at worst) is within both: sent.
    await long(SMALL, 4, 35);
    const before = closesServed(stack);
    expect((await close(stack, 'ro-app', SMALL)).status).toBe(200);
    expect([closesServed(stack), held(stack, SMALL)]).toEqual([before + 1, 0]);
  });
});

/** The close's size is the account's position on this instance's position channel: not known there, a quantity limit cannot judge it. */
describe('close-position under maxOrderQty with the position not known', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      clients: [app('ghost-app', 'ghost')],
      gateway: (config) => ({
        ...withGhostAccount(config),
        risk: { limits: [{ scope: 'client', id: 'ghost-app', maxOrderQty: 10 }] },
      }),
    });
  });
  afterAll(() => stack?.close());

  it('refuses it 503 RISK_POSITION_UNKNOWN (fail closed), nothing sent', async () => {
    const problem = { code: 'RISK_POSITION_UNKNOWN', limit: 10, order: 'body' };
    expect((await refusedClose(stack, 'ghost-app', SLUG, 503, problem)).retryAfter).toBe('1');
  });
});

/**
 * Under reduce-only a close-position is judged as a sell of the whole position, with the account's open
 * orders on its side counted ahead (README "Trading states"). Before, its terms said it always reduces: a
 * long 6 with a sell of 6 resting was closed, and once the resting sell traded the account was short 6.
 */
describe('close-position under reduce-only', () => {
  let stack: Stack;
  const call = (path: string, body: unknown) =>
    api(stack, 'ro-app')(path, { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    stack = await startStack({
      clients: [app('ro-app', 'main')],
      gateway: (config) => ({ ...config, limits: { ...config.limits, maxDecisionAgeMs: 30_000 } }),
    });
    buyYesOutside(stack, SLUG, 6);
    const latched = await post(stack, '/admin/risk/states', {
      scope: 'team:trading',
      state: 'reduce-only',
      reason: 'close test',
    });
    expect(latched.status).toBe(200);
  });
  afterAll(() => stack?.close());

  it('refuses a close while a sell of the position rests 403 TRADING_REDUCE_ONLY, nothing sent; once it is cancelled, the close is sent and stops at flat', async () => {
    const price = { value: '0.90', currency: 'USD' };
    const sell = await call('/retail/v1/orders', {
      marketSlug: SLUG,
      intent: 'ORDER_INTENT_SELL_LONG',
      price,
      quantity: 6,
    });
    expect(sell.status).toBe(200);
    const sellId = (await json(sell)).id as string;
    rest(stack, SLUG, 'SIDE_BUY', 35, 12);

    const problem = { code: 'TRADING_REDUCE_ONLY', scope: 'team:trading', order: 'body' };
    const { body } = await refusedClose(stack, 'ro-app', SLUG, 403, problem);
    expect(body.detail).toContain('cancel them first');
    expect(held(stack, SLUG)).toBe(6);

    const before = closesServed(stack);
    expect((await call(`/retail/v1/order/${sellId}/cancel`, { marketSlug: SLUG })).status).toBe(200);
    expect((await close(stack, 'ro-app', SLUG)).status).toBe(200);
    expect([closesServed(stack), held(stack, SLUG)]).toEqual([before + 1, 0]);
  });
});
