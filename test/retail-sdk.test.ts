import { readFileSync } from 'node:fs';

import { MarketsWebSocket, PolymarketUS, type PrivateWebSocket } from 'polymarket-us';
import WebSocket from 'ws';

import type { RunningSandbox } from '../apps/sandbox/src/sandbox.js';
import { startTestSandbox } from './support/sandbox-harness.js';
import { type Json, eventually } from './support/stack.js';

const MAIN = '3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d';
const HEDGE = '8a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const usd = (value: string) => ({ value, currency: 'USD' as const });

let sandbox: RunningSandbox;
let main: PolymarketUS;
let hedge: PolymarketUS;

/** The official SDK as a real client, with the secret as issued: base64 of the key file's content. */
function sdk(index: number): PolymarketUS {
  const { keyId, secretKeyFile } = sandbox.keys.retail[index];
  const secretKey = readFileSync(secretKeyFile, 'utf8').trim();
  return new PolymarketUS({ keyId, secretKey, apiBaseUrl: sandbox.urls.retail, gatewayBaseUrl: sandbox.urls.catalog });
}

beforeAll(async () => {
  sandbox = await startTestSandbox({
    retail: {
      keys: [
        { name: 'main', keyId: MAIN },
        { name: 'hedge', keyId: HEDGE },
      ],
    },
  });
  // This suite checks shapes with back-to-back SDK calls, faster than the 20 requests/s per key the
  // sandbox enforces (checked in retail-rate-limits.spec and ratelimit-keys): lifted here.
  sandbox.state.retail.limiter.perKey.limit = 'off';
  main = sdk(0);
  hedge = sdk(1);
});
afterAll(() => sandbox.close());

describe('retail surface through the official SDK', () => {
  const slug = 'aec-nfl-buf-kc-2026-11-22';

  it('rests an order, sees it filled by another key, and finds the fill in positions, activities and balances', async () => {
    const { id } = await main.orders.create({
      marketSlug: slug,
      intent: 'ORDER_INTENT_BUY_LONG',
      type: 'ORDER_TYPE_LIMIT',
      price: usd('0.40'),
      quantity: 10,
      tif: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    });
    expect((await main.orders.list({ slugs: [slug] })).orders.map((o) => o.id)).toEqual([id]);
    expect((await main.orders.retrieve(id)).order).toMatchObject({
      id,
      marketSlug: slug,
      side: 'ORDER_SIDE_BUY',
      intent: 'ORDER_INTENT_BUY_LONG',
      price: usd('0.40'),
      quantity: 10,
      leavesQuantity: 10,
      state: 'ORDER_STATE_NEW',
    });

    const preview = await hedge.orders.preview({
      request: {
        marketSlug: slug,
        intent: 'ORDER_INTENT_SELL_LONG',
        type: 'ORDER_TYPE_LIMIT',
        price: usd('0.40'),
        quantity: 4,
      },
    });
    expect(preview.order).toMatchObject({ marketSlug: slug, intent: 'ORDER_INTENT_SELL_LONG', quantity: 4 });

    const sell = await hedge.orders.create({
      marketSlug: slug,
      intent: 'ORDER_INTENT_SELL_LONG',
      type: 'ORDER_TYPE_LIMIT',
      price: usd('0.40'),
      quantity: 4,
      synchronousExecution: true,
      maxBlockTime: '2',
    });
    expect(sell.executions?.map((e) => e.type)).toContain('EXECUTION_TYPE_FILL');
    expect((await main.orders.retrieve(id)).order).toMatchObject({
      cumQuantity: 4,
      leavesQuantity: 6,
      state: 'ORDER_STATE_PARTIALLY_FILLED',
      avgPx: usd('0.40'),
    });

    expect((await main.portfolio.positions()).positions[slug]).toMatchObject({
      netPosition: '4',
      qtyBought: '4',
      cost: usd('1.60'),
    });
    expect((await hedge.portfolio.positions({ market: slug })).positions[slug]).toMatchObject({
      netPosition: '-4',
      qtySold: '4',
    });
    const { activities } = await main.portfolio.activities({ marketSlug: slug, types: ['ACTIVITY_TYPE_TRADE'] });
    expect(activities).toEqual([
      expect.objectContaining({
        type: 'ACTIVITY_TYPE_TRADE',
        trade: expect.objectContaining({ marketSlug: slug, qty: '4', price: usd('0.40'), isAggressor: false }),
      }),
    ]);
    const [balance] = (await main.account.balances()).balances;
    expect(balance).toMatchObject({ currentBalance: 9_998.4, buyingPower: 9_996, currency: 'USD' });

    await main.orders.modify(id, { marketSlug: slug, quantity: 8 });
    expect((await main.orders.retrieve(id)).order).toMatchObject({ quantity: 8, leavesQuantity: 4 });
    await main.orders.cancel(id, { marketSlug: slug });
    expect((await main.orders.retrieve(id)).order.state).toBe('ORDER_STATE_CANCELED');
  });

  it('cancels all open orders of some markets and closes a position at market', async () => {
    const other = 'aec-nfl-dal-phi-2026-11-22';
    const a = await main.orders.create({
      marketSlug: other,
      intent: 'ORDER_INTENT_BUY_LONG',
      price: usd('0.10'),
      quantity: 1,
    });
    const b = await main.orders.create({
      marketSlug: other,
      intent: 'ORDER_INTENT_BUY_SHORT',
      price: usd('0.10'),
      quantity: 1,
    });
    expect((await main.orders.cancelAll({ slugs: [other] })).canceledOrderIds.sort()).toEqual([a.id, b.id].sort());

    await hedge.orders.create({ marketSlug: other, intent: 'ORDER_INTENT_SELL_LONG', price: usd('0.55'), quantity: 3 });
    const bought = await main.orders.create({
      marketSlug: other,
      intent: 'ORDER_INTENT_BUY_LONG',
      type: 'ORDER_TYPE_MARKET',
      quantity: 3,
      synchronousExecution: true,
    });
    expect(bought.executions?.at(-1)?.order.state).toBe('ORDER_STATE_FILLED');
    await hedge.orders.create({ marketSlug: other, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.60'), quantity: 3 });
    const closed = await main.orders.closePosition({
      marketSlug: other,
      synchronousExecution: true,
      maxBlockTime: '2',
    });
    expect(closed.executions?.at(-1)?.order).toMatchObject({
      intent: 'ORDER_INTENT_SELL_LONG',
      state: 'ORDER_STATE_FILLED',
    });
    expect((await main.portfolio.positions({ market: other })).positions[other]).toMatchObject({
      netPosition: '0',
      realized: usd('0.15'),
    });
  });

  it('buys NO as a short intent: a mirrored price on the YES book, and a position that cost 1 − p', async () => {
    const market = 'aec-nfl-sf-sea-2026-11-22';
    await main.orders.create({ marketSlug: market, intent: 'ORDER_INTENT_BUY_SHORT', price: usd('0.30'), quantity: 5 });
    // Buying NO at 0.30 offers YES at 0.70: a YES buyer at 0.70 meets it.
    expect((await hedge.markets.bbo(market)) as Json).toMatchObject({ bestAsk: usd('0.70') });
    await hedge.orders.create({ marketSlug: market, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.70'), quantity: 5 });
    expect((await main.portfolio.positions({ market })).positions[market]).toMatchObject({
      netPosition: '-5',
      cost: usd('1.50'),
    });
    const trade = (await main.portfolio.activities({ marketSlug: market })).activities[0].trade;
    expect(trade).toMatchObject({ price: usd('0.30'), qty: '5' });
    expect(((await main.markets.book(market)) as Json).offers).toEqual([]);
  });

  it('stops a market order at its slippage tolerance and sizes cash orders of either intent against the book', async () => {
    const market = 'aec-nhl-tor-mtl-2026-11-21';
    await hedge.orders.create({
      marketSlug: market,
      intent: 'ORDER_INTENT_SELL_LONG',
      price: usd('0.51'),
      quantity: 2,
    });
    await hedge.orders.create({
      marketSlug: market,
      intent: 'ORDER_INTENT_SELL_LONG',
      price: usd('0.53'),
      quantity: 2,
    });
    const slipped = await main.orders.create({
      marketSlug: market,
      intent: 'ORDER_INTENT_BUY_LONG',
      type: 'ORDER_TYPE_MARKET',
      quantity: 4,
      slippageTolerance: { currentPrice: usd('0.50'), ticks: 2 },
      synchronousExecution: true,
    });
    expect(slipped.executions?.at(-1)?.order).toMatchObject({
      type: 'ORDER_TYPE_MARKET',
      cumQuantity: 2,
      state: 'ORDER_STATE_CANCELED',
    });
    const cash = await main.orders.create({
      marketSlug: market,
      intent: 'ORDER_INTENT_BUY_LONG',
      type: 'ORDER_TYPE_MARKET',
      cashOrderQty: usd('1.10'),
      synchronousExecution: true,
    });
    expect(cash.executions?.at(-1)?.order).toMatchObject({
      cumQuantity: 2,
      cashOrderQty: usd('1.10'),
      avgPx: usd('0.53'),
    });

    await hedge.orders.create({ marketSlug: market, intent: 'ORDER_INTENT_BUY_LONG', price: usd('0.40'), quantity: 5 });
    // Buying NO against YES bids at 0.40 costs 0.60 a contract: 1.85 buys 3.
    const shortCash = await main.orders.create({
      marketSlug: market,
      intent: 'ORDER_INTENT_BUY_SHORT',
      type: 'ORDER_TYPE_MARKET',
      cashOrderQty: usd('1.85'),
      synchronousExecution: true,
    });
    expect(shortCash.executions?.at(-1)?.order).toMatchObject({
      intent: 'ORDER_INTENT_BUY_SHORT',
      cumQuantity: 3,
      avgPx: usd('0.60'),
      state: 'ORDER_STATE_FILLED',
    });
  });

  it('rejects an order for an unknown market with an execution, and reports errors as the SDK expects', async () => {
    const answer = await main.orders.create({
      marketSlug: 'no-such-market',
      intent: 'ORDER_INTENT_BUY_LONG',
      price: usd('0.50'),
      quantity: 1,
    });
    expect(answer.executions).toEqual([
      expect.objectContaining({
        type: 'EXECUTION_TYPE_REJECTED',
        orderRejectReason: 'ORD_REJECT_REASON_UNKNOWN_MARKET',
      }),
    ]);
    await expect(main.orders.retrieve('O999999')).rejects.toMatchObject({ status: 404 });
    await expect(
      main.orders.create({ marketSlug: slug, intent: 'ORDER_INTENT_BUY_LONG', quantity: 1 }),
    ).rejects.toMatchObject({ status: 400 });
  });
});

describe('retail channels through the official SDK', () => {
  const slug = 'aec-nba-lal-gsw-2026-11-21';
  const open: { close(): void }[] = [];
  afterAll(() => open.forEach((ws) => ws.close()));

  /** Every message of a socket, and a way to wait for one. */
  async function collect<T extends MarketsWebSocket | PrivateWebSocket>(
    ws: T,
  ): Promise<{ ws: T; seen: Json[]; next: (test: (m: Json) => boolean) => Promise<Json> }> {
    const seen: Json[] = [];
    const record = (message: Json) => void seen.push(message);
    // Two emitter types with incompatible generic signatures: each is called as itself.
    if (ws instanceof MarketsWebSocket) ws.on('message', record);
    else ws.on('message', record);
    await ws.connect();
    open.push(ws);
    const next = (test: (m: Json) => boolean) =>
      eventually(
        async () => seen.find(test),
        (m) => m !== undefined,
        5_000,
      );
    return { ws, seen, next };
  }

  it("snapshots on subscribe, then order, position, balance, book and trade updates from another key's crossing order", async () => {
    const priv = await collect(main.ws.private());
    priv.ws.subscribeOrders('orders', [slug]);
    priv.ws.subscribePositions('positions');
    priv.ws.subscribeAccountBalance('balance');
    const markets = await collect(main.ws.markets());
    markets.ws.subscribeMarketData('book', [slug]);
    markets.ws.subscribeMarketDataLite('lite', [slug]);
    markets.ws.subscribeTrades('trades', [slug]);
    await priv.next((m) => m.orderSubscriptionSnapshot?.eof === true);
    await priv.next((m) => m.positionSubscriptionSnapshot !== undefined);
    const before = await priv.next((m) => m.accountBalanceSubscriptionSnapshot !== undefined);
    await markets.next((m) => m.marketData?.marketSlug === slug);
    await markets.next((m) => m.marketDataLite?.marketSlug === slug);

    const { id } = await main.orders.create({
      marketSlug: slug,
      intent: 'ORDER_INTENT_BUY_LONG',
      price: usd('0.25'),
      quantity: 2,
    });
    await markets.next((m) => m.marketData?.bids?.[0]?.px?.value === '0.25');
    await hedge.orders.create({ marketSlug: slug, intent: 'ORDER_INTENT_SELL_LONG', price: usd('0.25'), quantity: 2 });

    const fill = await priv.next((m) => m.orderSubscriptionUpdate?.execution?.type === 'EXECUTION_TYPE_FILL');
    expect(fill).toMatchObject({
      requestId: 'orders',
      subscriptionType: 'SUBSCRIPTION_TYPE_ORDER',
      orderSubscriptionUpdate: { execution: { order: { id, state: 'ORDER_STATE_FILLED' } } },
    });
    await priv.next((m) => m.positionSubscriptionUpdate?.position?.netPosition === '2');
    const after = await priv.next(
      (m) => m.accountBalanceSubscriptionUpdate?.balance === before.accountBalanceSubscriptionSnapshot.balance - 0.5,
    );
    expect(after.requestId).toBe('balance');
    const trade = await markets.next((m) => m.trade !== undefined);
    expect(trade.trade).toMatchObject({
      marketSlug: slug,
      price: usd('0.25'),
      maker: { side: 'ORDER_SIDE_BUY', intent: 'ORDER_INTENT_BUY_LONG' },
      taker: { side: 'ORDER_SIDE_SELL' },
    });
    await markets.next((m) => m.marketDataLite?.lastTradePx?.value === '0.25');
  });

  it('refuses an unsigned upgrade, and one signed with another key, with 401', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const ws = new WebSocket(`${sandbox.urls.retail.replace(/^http/, 'ws')}/v1/ws/private`);
      ws.on('unexpected-response', (_request, response) => {
        resolve(response.statusCode);
        ws.terminate();
      });
      ws.on('open', () => reject(new Error('an unsigned upgrade was accepted')));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(401);
    const { keyId } = sandbox.keys.retail[0];
    const forged = new PolymarketUS({
      keyId,
      secretKey: readFileSync(sandbox.keys.retail[1].secretKeyFile, 'utf8').trim(),
      apiBaseUrl: sandbox.urls.retail,
    });
    const before = sandbox.state.counter('retail.rejected.bad_signature');
    await expect(forged.ws.markets().connect()).rejects.toThrow();
    expect(sandbox.state.counter('retail.rejected.bad_signature')).toBe(before + 1);
  });

  it('answers a bad subscription with an error frame and keeps the connection', async () => {
    const markets = await collect(main.ws.markets());
    const errors: Json[] = [];
    markets.ws.on('error', (error: Json) => errors.push(error));
    markets.ws.subscribeMarketData('nope', ['no-such-market']);
    markets.ws.subscribe('wrong', 'SUBSCRIPTION_TYPE_ORDER', [slug]);
    await markets.next((m) => m.requestId === 'wrong' && typeof m.error === 'string');
    expect(errors.map((e) => e.requestId).sort()).toEqual(['nope', 'wrong']);
    markets.ws.subscribeMarketData('ok', [slug]);
    await markets.next((m) => m.requestId === 'ok' && m.marketData !== undefined);
  });
});
