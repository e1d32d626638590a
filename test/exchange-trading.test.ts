import { ExchangeTokenProvider } from '@lib/auth';

import { COUNTERPARTY, SYMBOL, limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, api, json } from './support/stack.js';

describe('exchange trading through the gateway', () => {
  let stack: Stack;
  let crossId: string;
  let restingId: string;

  beforeAll(async () => {
    stack = await startExchangeStack([
      { id: 'reader', scopes: ['read:orders', 'read:reports', 'read:positions', 'read:l2marketdata'] },
    ]);
    // Another firm offers 10 at 55; alice lifts 4 of them and bids 10 at 54 below.
    stack.sandbox.state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_SELL',
      orderQty: 10,
      price: 55,
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: COUNTERPARTY,
      clordId: 'carol-1',
    });
    const cross = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 4, 55, { clordId: 'cross-1' }));
    expect(cross.status).toBe(200);
    crossId = (await json(cross)).orderId;
    const rest = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 10, 54, { clordId: 'rest-1' }));
    restingId = (await json(rest)).orderId;
  });
  afterAll(() => stack.close());

  it('shows the fill in order search with its last execution', async () => {
    const res = await post(stack, '/exchange/v1/report/orders/search', { clordId: 'cross-1', withLastExecution: true });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.order).toEqual([
      expect.objectContaining({
        id: crossId,
        state: 'ORDER_STATE_FILLED',
        cumQty: '4',
        leavesQty: '0',
        avgPx: '55',
        account: PARTICIPANT,
      }),
    ]);
    expect(body.lastExecutions).toEqual([
      expect.objectContaining({ type: 'EXECUTION_TYPE_FILL', lastShares: '4', lastPx: '55', aggressor: true }),
    ]);
  });

  it('shows the resting bid in open orders under both spellings of the route', async () => {
    for (const path of ['/exchange/v1/trading/orders/open', '/exchange/v1/trading/open-orders']) {
      const body = await json(await api(stack)(path));
      expect(body.orders).toEqual([
        expect.objectContaining({
          id: restingId,
          clordId: 'rest-1',
          state: 'ORDER_STATE_NEW',
          leavesQty: '10',
          price: '54',
        }),
      ]);
    }
    const bob = await json(
      await api(stack)('/exchange/v1/trading/orders/open', { headers: { 'x-participant-id': OTHER_PARTICIPANT } }),
    );
    expect(bob).toEqual({ orders: [] });
  });

  it('books the fill into positions and cash', async () => {
    const { positions } = await json(await api(stack)('/exchange/v1/positions'));
    expect(positions).toEqual([
      expect.objectContaining({ symbol: SYMBOL, netPosition: '4', qtyBought: '4', qtySold: '0', account: PARTICIPANT }),
    ]);
    const { balance } = await json(await post(stack, '/exchange/v1/positions/balance', {}));
    expect(balance).toMatchObject({ account: PARTICIPANT, currency: 'USD', currentBalance: '-220', openOrders: '540' });
    const { balances } = await json(await post(stack, '/exchange/v1/positions/balances', {}));
    expect(balances.map((b: { account: string }) => b.account)).toEqual([PARTICIPANT, OTHER_PARTICIPANT]);
  });

  it('shows both sides in the book and the BBO, and the trade in the statistics', async () => {
    const book = await json(await api(stack)(`/exchange/v1/orderbook/${SYMBOL}?depth=5`));
    expect(book).toMatchObject({
      symbol: SYMBOL,
      bids: [{ px: '54', qty: '10' }],
      offers: [{ px: '55', qty: '6' }],
      state: 'INSTRUMENT_STATE_OPEN',
    });
    expect(book.stats).toMatchObject({
      lastTradePx: '55',
      sharesTraded: '4',
      notionalTraded: '220',
      openInterest: '4',
    });
    const bbo = await json(await api(stack)(`/exchange/v1/orderbook/${SYMBOL}/bbo`));
    expect(bbo).toMatchObject({ bestBid: { px: '54', qty: '10' }, bestAsk: { px: '55', qty: '6' }, lastTradePx: '55' });
    const stats = await json(await post(stack, '/exchange/v1/report/trades/stats', { symbol: SYMBOL, bars: 2 }));
    expect(stats.stats).toMatchObject({ totalTradeCount: '1', volume: '4', notional: '220', first: '55', high: '55' });
    expect(stats.bars).toHaveLength(2);
    expect(stats.barStartTime).toHaveLength(2);
  });

  it('finds the trade in the trade search without revealing the other firm', async () => {
    const { trades } = await json(await post(stack, '/exchange/v1/report/trades/search', { symbol: SYMBOL }));
    expect(trades).toEqual([
      expect.objectContaining({
        px: '55',
        qty: '4',
        buyAccount: PARTICIPANT,
        buyOrderId: crossId,
        sellAccount: '',
        sellOrderId: '',
      }),
    ]);
  });

  it('previews without inserting', async () => {
    const before = stack.sandbox.state.engine.searchOrders({ pageSize: 1000 }).order.length;
    const res = await post(stack, '/exchange/v1/trading/orders/preview', { request: limit('SIDE_BUY', 1, 50) });
    expect((await json(res)).previewOrder).toMatchObject({ symbol: SYMBOL, orderQty: '1', price: '50' });
    expect(stack.sandbox.state.engine.searchOrders({ pageSize: 1000 }).order.length).toBe(before);
  });

  it('inserts a batch, replaces and cancels', async () => {
    const batch = await post(stack, '/exchange/v1/trading/orders/list', {
      requests: [limit('SIDE_BUY', 1, 40), limit('SIDE_BUY', 1, 41), limit('SIDE_BUY', 1, 42)],
    });
    const { responses } = await json(batch);
    expect(responses).toHaveLength(3);
    const replaced = await post(stack, '/exchange/v1/trading/orders/replace/list', {
      requests: [{ orderId: responses[0].orderId, price: '43', orderQty: '2' }],
    });
    expect(await json(replaced)).toEqual({ responses: [{ orderId: responses[0].orderId }] });
    expect(stack.sandbox.state.engine.order(responses[0].orderId)).toMatchObject({ price: 43, orderQty: 2 });
    const canceled = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId: responses[1].orderId });
    expect(canceled.status).toBe(200);
    expect((await json(canceled)).execution).toMatchObject({
      type: 'EXECUTION_TYPE_CANCELED',
      order: { state: 'ORDER_STATE_CANCELED' },
    });
    const byClord = await post(stack, '/exchange/v1/trading/orders/cancel', { clordId: 'rest-1' });
    expect((await json(byClord)).execution.order.id).toBe(restingId);
  });

  it('answers 404 for an order id that is not a working order of the participant, sending no cancel or replace', async () => {
    const before = upstreamCalls(stack);
    const unknown = await post(stack, '/exchange/v1/trading/orders/cancel', { orderId: 'O999999' });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ code: 'NOT_FOUND', detail: expect.stringContaining('(orderId)') });
    // A filled order is no longer working: checked against the open-orders snapshot, so 404 as well.
    const filled = await post(stack, '/exchange/v1/trading/orders/replace/list', {
      requests: [{ orderId: crossId, price: '50' }],
    });
    expect(filled.status).toBe(404);
    expect((await json(filled)).detail).toContain('(requests[0].orderId)');
    expect(upstreamCalls(stack) - before).toBe(2); // the two open-orders lookups, no cancel or replace
  });

  it('passes the upstream 409 through for a cancel of a closed order by clordId', async () => {
    const res = await post(stack, '/exchange/v1/trading/orders/cancel', { clordId: 'cross-1' });
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({ code: 'UPSTREAM_CONFLICT', upstream: { status: 409 } });
  });

  it("refuses a clordId reused for another order 409 before it reaches the exchange (an insert's clordId is its idempotency key)", async () => {
    const before = stack.sandbox.state.counter('exchange.calls.insertOrder');
    const res = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 30, { clordId: 'cross-1' }));
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(res)).toMatchObject({ code: 'CLORDID_IN_USE', field: 'clordId' });
    expect(stack.sandbox.state.counter('exchange.calls.insertOrder')).toBe(before);
  });

  it('passes through the rejection of an order on an unknown symbol', async () => {
    const res = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 1, 50, { symbol: 'aec-nfl-nobody-2026-01-01' }),
    );
    expect(res.status).toBe(200);
    const { orderId } = await json(res);
    const found = await json(
      await post(stack, '/exchange/v1/report/orders/search', { orderId, withLastExecution: true }),
    );
    expect(found.order[0]).toMatchObject({ state: 'ORDER_STATE_REJECTED' });
    expect(found.lastExecutions[0]).toMatchObject({
      type: 'EXECUTION_TYPE_REJECTED',
      orderRejectReason: 'ORD_REJECT_REASON_UNKNOWN_SYMBOL',
    });
  });

  it("lets an alice order crossing bob's with CANCEL_RESTING trade with it: self-match prevention is per participant", async () => {
    const symbol = 'aec-nfl-dal-phi-2026-11-22';
    const smp = { symbol, selfMatchPreventionId: 'desk-1' };
    const bobAsk = await json(
      await post(
        stack,
        '/exchange/v1/trading/orders',
        limit('SIDE_SELL', 2, 70, { ...smp, clordId: 'bob-ask' }),
        'all',
        { 'x-participant-id': OTHER_PARTICIPANT },
      ),
    );
    const lift = limit('SIDE_BUY', 2, 99, {
      ...smp,
      clordId: 'alice-lift',
      selfMatchPreventionInstruction: 'SELF_MATCH_PREVENTION_INSTRUCTION_CANCEL_RESTING',
    });
    const { orderId } = await json(await post(stack, '/exchange/v1/trading/orders', lift));
    const bob = await json(
      await post(
        stack,
        '/exchange/v1/report/orders/search',
        { orderId: bobAsk.orderId, withLastExecution: true },
        'all',
        { 'x-participant-id': OTHER_PARTICIPANT },
      ),
    );
    expect(bob.order[0]).toMatchObject({ state: 'ORDER_STATE_FILLED', cumQty: '2' });
    expect(bob.lastExecutions[0]).toMatchObject({ type: 'EXECUTION_TYPE_FILL' });
    expect(bob.lastExecutions[0].unsolicitedCancelReason).not.toBe('UNSOLICITED_CXL_REASON_SELF_MATCH_PREVENTION');
    const alice = await json(
      await post(stack, '/exchange/v1/report/orders/search', { orderId, withLastExecution: true }),
    );
    expect(alice.order[0]).toMatchObject({ state: 'ORDER_STATE_FILLED', cumQty: '2', avgPx: '70' });
  });

  it('lets self-match prevention reject an order meeting one of the same participant with the same id', async () => {
    const smp = { symbol: 'aec-nfl-dal-phi-2026-11-22', selfMatchPreventionId: 'desk-2' };
    const own = await json(
      await post(stack, '/exchange/v1/trading/orders', limit('SIDE_SELL', 2, 71, { ...smp, clordId: 'alice-ask' })),
    );
    const { orderId } = await json(
      await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 2, 99, { ...smp, clordId: 'alice-lift-2' })),
    );
    const found = await json(
      await post(stack, '/exchange/v1/report/orders/search', { orderId, withLastExecution: true }),
    );
    expect(found.lastExecutions[0]).toMatchObject({ orderRejectReason: 'ORD_REJECT_REASON_SELF_MATCH' });
    expect(stack.sandbox.state.engine.order(own.orderId)?.state).toBe('ORDER_STATE_NEW');
  });

  it('refuses a 21-order batch with 413 and a key without write:orders with 403, sending nothing', async () => {
    const before = upstreamCalls(stack);
    const big = await post(stack, '/exchange/v1/trading/orders/list', {
      requests: Array.from({ length: 21 }, () => limit('SIDE_BUY', 1, 10)),
    });
    expect(big.status).toBe(413);
    expect(await json(big)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', maxItems: 20, items: 21 });
    const bigReplace = await post(stack, '/exchange/v1/trading/orders/replace/list', {
      requests: Array.from({ length: 21 }, () => ({ orderId: 'O1' })),
    });
    expect(bigReplace.status).toBe(413);
    const denied = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10), 'reader');
    expect(denied.status).toBe(403);
    expect(await json(denied)).toMatchObject({ code: 'FORBIDDEN', missingScope: 'write:orders' });
    expect(upstreamCalls(stack)).toBe(before);
    expect(stack.sandbox.state.counter('exchange.calls.insertBatch')).toBe(1);
  });

  it('has the sandbox refuse a batch of 21 on its own, with 413 in the gRPC-status shape', async () => {
    const url = `${stack.sandbox.urls.exchange}/v1/trading/orders/list`;
    const authorization = await stack.gateway.get(ExchangeTokenProvider).authorization(url);
    const headers = { authorization, 'x-participant-id': PARTICIPANT, 'content-type': 'application/json' };
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ requests: Array.from({ length: 21 }, () => limit('SIDE_BUY', 1, 10)) }),
    });
    expect(res.status).toBe(413);
    expect(await json(res)).toEqual({ code: 3, message: 'a batch takes at most 20 requests; got 21', details: [] });
  });
});
