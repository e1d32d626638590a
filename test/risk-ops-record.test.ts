// The brakes on the record and on the dashboards: refusals, trading states and kill-switch runs as
// metrics, and every admin decision appended to the hash-chained order journal (real PostgreSQL).
import { generateApiKey } from '@lib/auth';
import { openJournalDatabase } from '@lib/journal';

import { PARTICIPANT, type Stack, api, json } from './support/stack.js';
import { limit, post, startExchangeStack } from './support/exchange-stack.js';

const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
const RESTING = 5;

/** One sample's value from the exposition (0 when the series is absent). */
function sample(exposition: string, name: string, labels: Record<string, string>): number {
  const line = exposition
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('risk metrics and admin actions on the journal', () => {
  let stack: Stack;
  const metrics = async () => (await fetch(`${stack.url}/metrics`)).text();
  const setState = (scope: string, state: string, reason: string) =>
    post(stack, '/admin/risk/states', { scope, state, reason });

  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS);
  });
  afterAll(() => stack?.close());

  it('counts refusals by code and scope, exports the states in force, and counts a kill-switch run by outcome', async () => {
    const resting = [];
    for (let i = 0; i < RESTING; i++)
      resting.push(
        await json(
          await post(
            stack,
            '/exchange/v1/trading/orders',
            limit('SIDE_BUY', 1, 10 + i, { clordId: `ops-rest-${i}` }),
            'bot',
          ),
        ),
      );
    expect(resting.every((order) => typeof order.orderId === 'string')).toBe(true);

    const killed = await setState('team:trading', 'halt-and-cancel', 'runaway bot, OPS-1');
    expect(killed.status).toBe(200);
    const { report, journaled } = await json(killed);
    expect(journaled).toBe(true);
    expect(report.cancelled).toHaveLength(RESTING);

    for (let i = 0; i < 3; i++)
      expect((await json(await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10), 'bot'))).code).toBe(
        'TRADING_HALTED',
      );
    // A what-if is not a refusal of an order.
    expect((await post(stack, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 1, 10), 'bot')).status).toBe(403);

    const text = await metrics();
    expect(sample(text, 'gateway_risk_refusals_total', { code: 'TRADING_HALTED', scope: 'team:trading' })).toBe(3);
    expect(sample(text, 'gateway_trading_state', { scope: 'team:trading', state: 'halt-and-cancel' })).toBe(1);
    expect(sample(text, 'gateway_kill_switch_runs_total', { scope: 'team:trading' })).toBe(1);
    expect(sample(text, 'gateway_kill_switch_orders_total', { scope: 'team:trading', outcome: 'cancelled' })).toBe(
      RESTING,
    );
    expect(sample(text, 'gateway_kill_switch_orders_total', { scope: 'team:trading', outcome: 'unresolved' })).toBe(0);

    // Each order's timeline says who cancelled it and why; the team reads its own.
    const timeline = await json(await api(stack, 'bot')(`/orders/timeline?clordId=ops-rest-0`));
    const kill = timeline.records.find((record: { kind: string }) => record.kind === 'admin');
    expect(kill).toMatchObject({
      orderId: resting[0].orderId,
      clientId: 'all',
      data: {
        action: 'kill-switch',
        outcome: 'cancelled',
        scope: 'team:trading',
        by: 'all',
        reason: 'runaway bot, OPS-1',
      },
    });
    expect(timeline.records.map((record: { kind: string }) => record.kind)).toContain('received');

    expect((await setState('team:trading', 'active', 'bot fixed, OPS-1')).status).toBe(200);
    const after = await metrics();
    expect(sample(after, 'gateway_trading_state', { scope: 'team:trading', state: 'halt-and-cancel' })).toBe(0);
    expect(after).toMatch(/^# TYPE gateway_trading_state gauge$/m);
  });

  it('puts every state change and the kill-switch report on the hash-chained journal: who, when, old → new, why', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const res = await api(stack)(`/admin/journal/export?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    expect(res.status).toBe(200);
    const records = (await res.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; team?: string; at: string; data: Record<string, unknown> });
    // The decisions themselves (a run's per-order records are checked on the order's timeline above).
    const admin = records.filter(
      (record) =>
        record.kind === 'admin' && (record.data.action === 'trading-state' || record.data.summary !== undefined),
    );
    expect(admin.map((record) => record.data)).toEqual([
      expect.objectContaining({
        action: 'trading-state',
        scope: 'team:trading',
        from: 'active',
        to: 'halt-and-cancel',
        by: 'all',
        reason: 'runaway bot, OPS-1',
      }),
      expect.objectContaining({
        action: 'kill-switch',
        scope: 'team:trading',
        by: 'all',
        summary: expect.objectContaining({
          targeted: RESTING,
          cancelled: RESTING,
          filledFirst: 0,
          unresolved: 0,
          remainingOpen: 0,
        }),
      }),
      expect.objectContaining({
        action: 'trading-state',
        scope: 'team:trading',
        from: 'halt-and-cancel',
        to: 'active',
        by: 'all',
        reason: 'bot fixed, OPS-1',
      }),
    ]);
    expect(admin.map((record) => record.team)).toEqual(['trading', 'trading', 'trading']);

    const reader = await openJournalDatabase({ ...stack.config.journal, url: process.env.TEST_PG_URL });
    try {
      expect((await reader.journal.verify()).breaks).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  // The reason is free text an operator types in a hurry: a key or token pasted into it was written to the
  // log line's structured fields (only top-level strings were scrubbed), the journal and the latched state.
  it('keeps key material pasted into a reason out of the log, the journal and the state, and still applies the change', async () => {
    const key = generateApiKey();
    const jwt = `eyJhbGciOiJSUzI1NiJ9.${'eyJzdWIiOiJnYXRld2F5In0'}.${'c2lnbmF0dXJlLWJ5dGVz'.repeat(2)}`;
    const from = new Date(Date.now() - 60_000).toISOString();
    const halted = await setState('client:bot', 'halted', `leaked ${key} and ${jwt} OPS-2`);
    expect(halted.status).toBe(200);
    const view = await json(await api(stack)('/admin/risk'));
    const text = JSON.stringify(view);
    expect(text).toContain('leaked [redacted] and [redacted] OPS-2');
    expect((await setState('client:bot', 'active', `lifted ${key}`)).status).toBe(200);

    const to = new Date(Date.now() + 60_000).toISOString();
    const exported = await (
      await api(stack)(`/admin/journal/export?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)
    ).text();
    expect(exported).toContain('leaked [redacted] and [redacted] OPS-2');
    for (const secret of [key, jwt]) {
      expect(stack.logs.filter((line) => line.includes(secret))).toEqual([]);
      expect(exported).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
    expect(stack.logs.some((line) => line.includes('leaked [redacted] and [redacted] OPS-2'))).toBe(true);
  });
});
