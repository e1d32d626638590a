import { limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { PARTICIPANT, type Stack, api, eventually, json } from './support/stack.js';

const TRADER = ['write:orders' as const, 'read:orders' as const];

/** The stateless risk checks run before the order path claims an Idempotency-Key or writes its intent: a refusal is one `refused` record, written off the latency path. */
describe('a risk refusal claims no idempotency key and is journaled as one refused record', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startExchangeStack(
      [{ id: 'bot', team: 'trading', scopes: TRADER, participants: [PARTICIPANT], retailAccounts: ['main'] }],
      {
        gateway: (config) => ({ ...config, risk: { limits: [{ scope: 'team', id: 'trading', maxOrderQty: 10 }] } }),
      },
    );
  });
  afterAll(() => stack?.close());

  it('refuses over the limit with nothing journaled, and the same key then carries another order', async () => {
    const sent = upstreamCalls(stack);
    const refused = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 11, 20, { clordId: 'refused-before-journal' }),
      'bot',
      { 'idempotency-key': 'k-refused-1' },
    );
    expect(await json(refused)).toMatchObject({ code: 'RISK_MAX_QUANTITY', limit: 10, observed: 11 });
    expect(upstreamCalls(stack)).toBe(sent);
    // The refusal is on the record (one `refused` record naming the code); no key was claimed, no intent written.
    const timeline = await eventually(
      () =>
        api(
          stack,
          'bot',
        )('/orders/timeline?clordId=refused-before-journal').then((res) => (res.ok ? json(res) : { records: [] })),
      (body) => body.records.length > 0,
    );
    expect(
      timeline.records.map((r: { kind: string; data: { code?: string; idempotencyKey?: string } }) => ({
        kind: r.kind,
        code: r.data.code,
        key: r.data.idempotencyKey,
      })),
    ).toEqual([{ kind: 'refused', code: 'RISK_MAX_QUANTITY', key: 'k-refused-1' }]);
    expect((await api(stack, 'bot')('/orders/key/k-refused-1')).status).toBe(404);
    // The same key with another body is a new call, not a reuse (422 IDEMPOTENCY_KEY_REUSED).
    const accepted = await post(
      stack,
      '/exchange/v1/trading/orders',
      limit('SIDE_BUY', 5, 20, { clordId: 'accepted-after-refusal' }),
      'bot',
      { 'idempotency-key': 'k-refused-1' },
    );
    expect(accepted.status).toBe(200);
    expect((await api(stack, 'bot')('/orders/key/k-refused-1')).status).toBe(200);
  });

  it('refuses a retail create and a batch child the same way', async () => {
    const from = new Date(Date.now() - 1_000).toISOString();
    const retail = await post(
      stack,
      '/retail/v1/orders',
      {
        marketSlug: 'aec-nfl-buf-kc-2026-11-22',
        intent: 'ORDER_INTENT_BUY_LONG',
        type: 'ORDER_TYPE_LIMIT',
        price: { value: '0.20', currency: 'USD' },
        quantity: 11,
      },
      'bot',
      { 'idempotency-key': 'k-refused-2' },
    );
    expect(retail.status).toBe(422);
    expect((await api(stack, 'bot')('/orders/key/k-refused-2')).status).toBe(404);
    const batch = await post(
      stack,
      '/exchange/v1/trading/orders/list',
      {
        requests: [
          limit('SIDE_BUY', 1, 20, { clordId: 'batch-ok' }),
          limit('SIDE_BUY', 11, 20, { clordId: 'batch-over' }),
        ],
      },
      'bot',
      { 'idempotency-key': 'k-refused-3' },
    );
    expect(await json(batch)).toMatchObject({ code: 'RISK_MAX_QUANTITY', order: 'body.requests.1' });
    expect((await api(stack, 'bot')('/orders/key/k-refused-3')).status).toBe(404);
    expect((await api(stack, 'bot')('/orders/timeline?clordId=batch-ok')).status).toBe(404);
    // The journal holds one `refused` record of each call and nothing else of them (no intent, no send).
    const refusedKinds = async () => {
      const to = new Date(Date.now() + 1_000).toISOString();
      const exported = (await (await api(stack)(`/admin/journal/export?from=${from}&to=${to}`)).text()).trim();
      const lines =
        exported === ''
          ? []
          : exported
              .split('\n')
              .map((line) => JSON.parse(line) as { kind: string; data?: { idempotencyKey?: string } });
      return lines
        .filter((line) => line.data?.idempotencyKey === 'k-refused-2' || line.data?.idempotencyKey === 'k-refused-3')
        .map((line) => `${line.data?.idempotencyKey} ${line.kind}`);
    };
    expect((await eventually(refusedKinds, (kinds) => kinds.length >= 2)).sort()).toEqual([
      'k-refused-2 refused',
      'k-refused-3 refused',
    ]);
  });

  it('answers a retry of an accepted order its replay, not a refusal that came after it (a halt)', async () => {
    const order = limit('SIDE_BUY', 2, 20, { clordId: 'accepted-then-halted' });
    const first = await post(stack, '/exchange/v1/trading/orders', order, 'bot', {
      'idempotency-key': 'k-before-halt',
    });
    expect(first.status).toBe(200);
    const sent = upstreamCalls(stack);
    expect(
      (await post(stack, '/admin/risk/states', { scope: 'client:bot', state: 'halted', reason: 'retry after a halt' }))
        .status,
    ).toBe(200);
    try {
      // The retry's answer must say the order exists (its first answer), never TRADING_HALTED (which says it was not sent).
      const retry = await post(stack, '/exchange/v1/trading/orders', order, 'bot', {
        'idempotency-key': 'k-before-halt',
      });
      expect({ status: retry.status, replayed: retry.headers.get('idempotent-replayed') }).toEqual({
        status: 200,
        replayed: 'true',
      });
      expect(await json(retry)).toEqual(await json(first));
      // A new order is refused by the halt, before any key or journal.
      const fresh = await post(
        stack,
        '/exchange/v1/trading/orders',
        limit('SIDE_BUY', 2, 20, { clordId: 'after-halt' }),
        'bot',
        { 'idempotency-key': 'k-after-halt' },
      );
      expect(await json(fresh)).toMatchObject({ code: 'TRADING_HALTED' });
      expect(upstreamCalls(stack)).toBe(sent);
    } finally {
      await post(stack, '/admin/risk/states', {
        scope: 'client:bot',
        state: 'active',
        reason: 'end of the retry test',
      });
    }
  });

  it('answers a resend of an accepted insert without its key, or under a new key, its replay under a halt too', async () => {
    const ioc = (price: number) =>
      limit('SIDE_BUY', 1, price, { clordId: 'sent-then-halted', timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL' });
    const order = ioc(12);
    const first = await post(stack, '/exchange/v1/trading/orders', order, 'bot', { 'idempotency-key': 'k-sent-1' });
    expect(first.status).toBe(200);
    const placed = await json(first);
    const sent = upstreamCalls(stack);
    expect(
      (
        await post(stack, '/admin/risk/states', {
          scope: 'team:trading',
          state: 'halted',
          reason: 'resend after a halt',
        })
      ).status,
    ).toBe(200);
    try {
      // The clordId went out under k-sent-1: a resend of the same body gets that call's answer, as it does without a halt.
      for (const headers of [{}, { 'idempotency-key': 'k-sent-2' }] as Record<string, string>[]) {
        const resend = await post(stack, '/exchange/v1/trading/orders', order, 'bot', headers);
        expect({ status: resend.status, replayed: resend.headers.get('idempotent-replayed') }).toEqual({
          status: 200,
          replayed: 'true',
        });
        expect(await json(resend)).toEqual(placed);
      }
      // Another body under the sent clordId is refused as it is without a halt: 409 CLORDID_IN_USE.
      for (const headers of [{}, { 'idempotency-key': 'k-sent-3' }] as Record<string, string>[]) {
        const other = await post(stack, '/exchange/v1/trading/orders', ioc(13), 'bot', headers);
        expect(other.status).toBe(409);
        expect(await json(other)).toMatchObject({ code: 'CLORDID_IN_USE', clordIds: ['sent-then-halted'] });
      }
      expect(upstreamCalls(stack)).toBe(sent);
      expect(stack.sandbox.state.engine.searchOrders({ clordId: 'sent-then-halted' }).order).toHaveLength(1);
    } finally {
      await post(stack, '/admin/risk/states', {
        scope: 'team:trading',
        state: 'active',
        reason: 'end of the resend test',
      });
    }
  });
});
