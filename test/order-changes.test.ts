import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, eventually, json, startStack, testJournal } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';

// Issue 27 item 2 for changes of existing orders: an exchange replace or a retail modify whose answer
// is lost after the upstream ran it is UNKNOWN (202 PENDING), never resent, and resolved from the
// order's terms: the order stream (the replaced order's new version), an order lookup once the call is
// final, the retail order read. The outcome reaches the lookup route, a retry with the same key, the
// journal and (the exchange's own execution) the client's order topic. Also across a restart.

const ORDERS = `exchange.orders.${PARTICIPANT}`;
const RETAIL_MARKET = 'aec-nfl-gb-chi-2026-11-22';
const REPLACE_PATH = '/exchange/v1/trading/orders/replace/list';
const dropOnce = { every: 1, drop: 1, hold: 0, holdMs: 0 };

interface Resolved {
  kind: string;
  orderId?: string;
  data: { outcome?: string; via?: string; operation?: string };
}

describe('UNKNOWN replaces and modifies: resolved from the order, never resent', () => {
  let stack: Stack;
  let client: WsTestClient | undefined;
  let crashed: GatewayProcess | undefined;
  let restarted: Stack | undefined;
  const get = (path: string, url = stack.url) =>
    fetch(`${url}${path}`, { headers: { authorization: `Bearer ${stack.keys.all}` } });
  const resolvedOf = async (orderId: string) => {
    const timeline = await eventually(
      async () => json(await get(`/orders/timeline?orderId=${orderId}`)),
      (body) => ((body.records ?? []) as Resolved[]).some((r) => r.kind === 'resolved'),
      10_000,
      100,
    );
    return (timeline.records as Resolved[]).find((record) => record.kind === 'resolved')!;
  };

  beforeAll(async () => {
    stack = await startExchangeStack([], {
      gateway: (config) => ({
        ...config,
        journal: { ...(config.journal ?? testJournal()), resolveSearchesPerMinute: 12 },
      }),
    });
    client = await WsTestClient.open(stack.url, { key: stack.keys.all });
    client.send({ type: 'subscribe', id: 'o', topics: [ORDERS] });
    await client.next((f) => f.type === 'ack', 10_000);
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await crashed?.stop();
    await restarted?.close();
    await stack?.close();
  });

  it('resolves a replace whose answer was lost as applied, from the order stream, and the client topic carries the new version', async () => {
    const { state } = stack.sandbox;
    const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 21, { clordId: 'chg-1' }));
    expect(placed.status).toBe(200);
    const { orderId } = (await json(placed)) as { orderId: string };
    const body = { requests: [{ orderId, clordId: 'chg-1b', price: '22' }] };
    const headers = { 'idempotency-key': 'replace-lost-1' };

    state.setFaults({ exchangeAnswerFaults: { replaceBatch: dropOnce } });
    const res = await post(stack, REPLACE_PATH, body, 'all', headers);
    state.setFaults({ exchangeAnswerFaults: {} });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe('/orders/key/replace-lost-1');
    expect(await json(res)).toMatchObject({ state: 'PENDING', idempotencyKey: 'replace-lost-1' });
    expect(state.engine.order(orderId)).toMatchObject({ price: 22, clordId: 'chg-1b' });

    const lookup = await eventually(
      async () => json(await get('/orders/key/replace-lost-1')),
      (found) => found.state === 'DONE',
      30_000,
      200,
    );
    expect(lookup).toMatchObject({
      operation: 'exchange.batchReplace',
      status: 200,
      answer: { responses: [{ orderId }] },
    });
    const again = await post(stack, REPLACE_PATH, body, 'all', headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual({ responses: [{ orderId }] });
    expect(state.counter('exchange.calls.replaceBatch')).toBe(1);
    expect(await resolvedOf(orderId)).toMatchObject({
      data: { operation: 'exchange.batchReplace', outcome: 'applied', via: 'order stream' },
    });
    const frame = await client!.next(
      (f) =>
        f.topic === ORDERS &&
        f.data.execution?.type === 'EXECUTION_TYPE_REPLACE' &&
        f.data.execution.order?.id === orderId,
      10_000,
    );
    expect(frame.data.execution.order).toMatchObject({ clordId: 'chg-1b' });
  }, 60_000);

  it('resolves a replace the exchange refused, its answer lost, as not applied, from an order lookup once the call is final', async () => {
    const { state } = stack.sandbox;
    const placed = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 23, { clordId: 'chg-2' }));
    expect(placed.status).toBe(200);
    const { orderId } = (await json(placed)) as { orderId: string };
    const searchesBefore = state.counter('exchange.calls.searchOrders');
    const replacesBefore = state.counter('exchange.calls.replaceBatch');
    // Outside the instrument's price band: the exchange refuses it, and the refusal is lost.
    const body = { requests: [{ orderId, price: '150' }] };
    const headers = { 'idempotency-key': 'replace-refused-1' };

    state.setFaults({ exchangeAnswerFaults: { replaceBatch: dropOnce } });
    const res = await post(stack, REPLACE_PATH, body, 'all', headers);
    state.setFaults({ exchangeAnswerFaults: {} });
    expect(res.status).toBe(202);

    const lookup = await eventually(
      async () => json(await get('/orders/key/replace-refused-1')),
      (found) => found.state === 'DONE',
      40_000,
      250,
    );
    expect(lookup).toMatchObject({
      status: 200,
      answer: { responses: [{ orderId, error: { message: expect.stringMatching(/^not applied: /) } }] },
    });
    expect(state.engine.order(orderId)).toMatchObject({ price: 23 });
    expect(state.counter('exchange.calls.searchOrders')).toBeGreaterThan(searchesBefore);
    expect(state.counter('exchange.calls.replaceBatch')).toBe(replacesBefore + 1);
    expect(await resolvedOf(orderId)).toMatchObject({ data: { outcome: 'not applied', via: 'order lookup' } });
  }, 60_000);

  /** A retail modify whose answer was lost, resolved as applied from the order read, never sent again. */
  async function expectLostModifyApplied(key: string): Promise<void> {
    const { state } = stack.sandbox;
    const created = await post(stack, '/retail/v1/orders', {
      marketSlug: RETAIL_MARKET,
      intent: 'ORDER_INTENT_BUY_LONG',
      price: { value: '0.17', currency: 'USD' },
      quantity: 3,
    });
    expect(created.status).toBe(200);
    const { id } = (await json(created)) as { id: string };
    const modify = { marketSlug: RETAIL_MARKET, price: { value: '0.18', currency: 'USD' }, quantity: 4 };
    const headers = { 'idempotency-key': key };

    const droppedBefore = state.counter('retail.answersDropped.modifyOrder');
    const modifiesBefore = state.counter('retail.route.modifyOrder');
    state.retail.faults.dropAnswers.modifyOrder = 1;
    const res = await post(stack, `/retail/v1/order/${id}/modify`, modify, 'all', headers);
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/orders/key/${key}`);
    expect(state.counter('retail.answersDropped.modifyOrder')).toBe(droppedBefore + 1);
    expect(state.engine.order(id)).toMatchObject({ orderQty: 4 });

    const lookup = await eventually(
      async () => json(await get(`/orders/key/${key}`)),
      (found) => found.state === 'DONE',
      30_000,
      200,
    );
    expect(lookup).toMatchObject({ operation: 'retail.modify', status: 200, answer: {} });
    const again = await post(stack, `/retail/v1/order/${id}/modify`, modify, 'all', headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(state.counter('retail.route.modifyOrder')).toBe(modifiesBefore + 1);
    expect(await resolvedOf(id)).toMatchObject({
      data: { operation: 'retail.modify', outcome: 'applied', via: 'retail order read' },
    });
  }

  it('resolves a retail modify whose answer was lost as applied, from the order read, without sending it again', async () => {
    await expectLostModifyApplied('modify-lost-1');
  }, 60_000);

  // A search that failed threw out of the resolver's whole pass: while the exchange's order search kept
  // failing for one participant's pending insert, every retail modify stayed 202 PENDING too, though its
  // upstream (the retail order read) answered. Each part of the pass now fails on its own.
  it('resolves a retail modify whose answer was lost while every exchange order search fails', async () => {
    const { state } = stack.sandbox;
    state.setFaults({ exchangeLostRequests: { insertOrder: 1, searchOrders: 1_000_000 } });
    try {
      const insert = await post(
        stack,
        '/exchange/v1/trading/orders',
        limit('SIDE_BUY', 1, 15, { clordId: 'no-search-1' }),
      );
      expect(insert.status).toBe(202);
      // The resolver is searching for it, and failing.
      await eventually(
        async () => state.counter('exchange.requestsLost.searchOrders'),
        (lost) => lost > 0,
        30_000,
        100,
      );
      await expectLostModifyApplied('modify-lost-no-search');
      // The insert stays pending: no search could prove anything about it.
      expect(await json(await get('/orders/clord/no-search-1'))).toMatchObject({ state: 'PENDING' });
    } finally {
      state.setFaults({ exchangeLostRequests: {} });
    }
  }, 60_000);

  it('resolves a retail modify the upstream refused, its answer lost, as not applied (409 ORDER_CHANGE_NOT_APPLIED) once the call is final', async () => {
    const { state } = stack.sandbox;
    const created = await post(stack, '/retail/v1/orders', {
      marketSlug: RETAIL_MARKET,
      intent: 'ORDER_INTENT_BUY_LONG',
      price: { value: '0.16', currency: 'USD' },
      quantity: 2,
    });
    expect(created.status).toBe(200);
    const { id } = (await json(created)) as { id: string };
    const modifiesBefore = state.counter('retail.route.modifyOrder');
    // Above the market's order size limit: the upstream refuses it, and the refusal is lost.
    const modify = { marketSlug: RETAIL_MARKET, quantity: 200_000 };
    const headers = { 'idempotency-key': 'modify-refused-1' };

    state.retail.faults.dropAnswers.modifyOrder = 1;
    const res = await post(stack, `/retail/v1/order/${id}/modify`, modify, 'all', headers);
    expect(res.status).toBe(202);

    const lookup = await eventually(
      async () => json(await get('/orders/key/modify-refused-1')),
      (found) => found.state === 'DONE',
      40_000,
      250,
    );
    expect(lookup).toMatchObject({
      operation: 'retail.modify',
      status: 409,
      answer: { code: 'ORDER_CHANGE_NOT_APPLIED', orderId: id },
    });
    expect(state.engine.order(id)).toMatchObject({ orderQty: 2 });
    const again = await post(stack, `/retail/v1/order/${id}/modify`, modify, 'all', headers);
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(state.counter('retail.route.modifyOrder')).toBe(modifiesBefore + 1);
    expect(await resolvedOf(id)).toMatchObject({
      data: { operation: 'retail.modify', outcome: 'not applied', via: 'retail order read' },
    });
  }, 60_000);

  it('resolves a replace a killed instance left in flight, after the restart, without resending it', async () => {
    const { state } = stack.sandbox;
    const journal = { ...testJournal(), inFlightStaleMs: 1_000, resolveSearchesPerMinute: 12 };
    const config = { ...stack.configInput, exchange: { requestTimeoutMs: 10_000 }, journal };
    crashed = await spawnGateway(config);
    const placed = await fetch(`${crashed.url}/exchange/v1/trading/orders`, {
      method: 'POST',
      body: JSON.stringify(limit('SIDE_BUY', 1, 24, { clordId: 'chg-3' })),
      headers: { authorization: `Bearer ${stack.keys.all}`, 'content-type': 'application/json' },
    });
    expect(placed.status).toBe(200);
    const { orderId } = (await json(placed)) as { orderId: string };
    const replacesBefore = state.counter('exchange.calls.replaceBatch');
    const body = JSON.stringify({ requests: [{ orderId, price: '25' }] });
    const headers = {
      authorization: `Bearer ${stack.keys.all}`,
      'content-type': 'application/json',
      'idempotency-key': 'replace-restart-1',
    };
    state.setFaults({ exchangeDelayMs: { replaceBatch: 2_000 } });
    const lost = fetch(`${crashed.url}${REPLACE_PATH}`, { method: 'POST', body, headers }).catch(
      (error: Error) => error,
    );
    // The exchange has the replace (and holds it): the instance dies before its answer.
    await eventually(
      async () => state.counter('exchange.calls.replaceBatch'),
      (n) => n === replacesBefore + 1,
      10_000,
    );
    crashed.process.kill('SIGKILL');
    expect(String(await lost)).toMatch(/fetch failed/);
    state.setFaults({ exchangeDelayMs: {} });
    await eventually(
      async () => state.engine.order(orderId)?.price,
      (price) => price === 25,
      10_000,
    );

    restarted = await startStack({ reuseSandbox: stack.sandbox, gateway: () => config });
    const retry = () => fetch(`${restarted!.url}${REPLACE_PATH}`, { method: 'POST', body, headers });
    const answer = await eventually(retry, (res) => res.status === 200, 40_000, 250);
    expect(answer.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(answer)).toEqual({ responses: [{ orderId }] });
    expect(state.counter('exchange.calls.replaceBatch')).toBe(replacesBefore + 1);
    const lookup = await json(await get('/orders/key/replace-restart-1', restarted.url));
    expect(lookup).toMatchObject({ state: 'DONE', status: 200, answer: { responses: [{ orderId }] } });
  }, 90_000);
});
