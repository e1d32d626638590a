import { SCOPES } from '@lib/core';

import { PARTICIPANT, type Json, type Stack, api, startStack } from './support/stack.js';

/**
 * Issue 25 item 2, through the real wire (sandbox, real Redis, sockets): team `trading` fires 100
 * blocking retail creates (`synchronousExecution`, maxBlockTime 20 s) from two clients while team
 * `platform` keeps calling retail and the exchange. The blocking calls draw from an allowance and a
 * pool of their own: trading holds at most its blocking bound upstream, its other calls are refused
 * 429 naming the bound before any budget is spent, and platform's calls are all answered while the
 * blocking ones are still held. Figures are printed, not asserted (a busy machine shifts them).
 */

const SLUG = 'aec-nfl-buf-kc-2026-11-22';
const BLOCKING = 100;
const ROUNDS = 20;
const BLOCKING_SPACING_MS = 80;
const BLOCK_SECONDS = '25';
/** The default blocking bound of a team: bulkheads.blocking.connectionsPerOrigin (16) split between the stack's two teams. */
const TEAM_CAP = 8;
const CAPS = ['bulkheads.blocking.perClient', 'bulkheads.blocking.perTeam'];
const blockingOrder = (maxBlockTime = BLOCK_SECONDS) => ({
  marketSlug: SLUG,
  intent: 'ORDER_INTENT_BUY_LONG',
  type: 'ORDER_TYPE_LIMIT',
  price: { value: '0.03', currency: 'USD' },
  quantity: 1,
  synchronousExecution: true,
  maxBlockTime,
});

interface Timed {
  status: number;
  ms: number;
  body?: Json;
  retryAfter?: string | null;
  contentType?: string | null;
}

async function timed(request: () => Promise<Response>): Promise<Timed> {
  const started = performance.now();
  try {
    const res = await request();
    const text = await res.text();
    let body: Json;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return {
      status: res.status,
      ms: performance.now() - started,
      body,
      retryAfter: res.headers.get('retry-after'),
      contentType: res.headers.get('content-type'),
    };
  } catch (error) {
    return { status: 0, ms: performance.now() - started, body: String(error) };
  }
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};
const figures = (answers: readonly Timed[]): string =>
  `p50 ${percentile(
    answers.map((a) => a.ms),
    50,
  ).toFixed(1)} ms, p99 ${percentile(
    answers.map((a) => a.ms),
    99,
  ).toFixed(1)} ms (n=${answers.length})`;

/** The allowed budget decisions of `bucket` for `team`, summed over scope keys, from /metrics. */
async function allowed(stack: Stack, bucket: string, team: string): Promise<number> {
  const text = await (await api(stack)('/metrics')).text();
  const pattern = new RegExp(
    `^ratelimit_decisions_total\\{bucket="${bucket.replace(/\./g, '\\.')}",[^}]*team="${team}",outcome="allowed"\\} (\\d+)$`,
    'gm',
  );
  return [...text.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
}

describe('bulkheads: one team holding blocking calls beside another team', () => {
  let stack: Stack;
  let hedgeKeyId: string;

  beforeAll(async () => {
    const scopes = SCOPES.filter((scope) => scope !== 'admin');
    stack = await startStack({
      redis: true,
      clients: [
        { id: 'blocker-1', team: 'trading', scopes, participants: [PARTICIPANT], retailAccounts: ['hedge'] },
        { id: 'blocker-2', team: 'trading', scopes, participants: [PARTICIPANT], retailAccounts: ['hedge'] },
        { id: 'desk', team: 'platform', scopes, participants: [PARTICIPANT], retailAccounts: ['main'] },
      ],
    });
    hedgeKeyId = stack.sandbox.keys.retail.find((key) => key.name === 'hedge')!.keyId;
  });
  afterAll(() => stack.close());

  /** Hedge's orders resting upstream: each one is a blocking create the sandbox is holding. */
  const heldUpstream = () => stack.sandbox.state.engine.openOrders(hedgeKeyId).length;

  /** ROUNDS of one retail and one exchange call by desk (team platform), 100 ms apart, each bounded by 5 s. */
  async function deskRounds(): Promise<{ retail: Timed[]; exchange: Timed[] }> {
    const desk = api(stack, 'desk');
    const rounds = Array.from({ length: ROUNDS }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 100));
      return Promise.all([
        timed(() => desk('/retail/v1/account/balances', { signal: AbortSignal.timeout(5_000) })),
        timed(() => desk('/exchange/v1/positions', { signal: AbortSignal.timeout(5_000) })),
      ]);
    });
    const answers = await Promise.all(rounds);
    return { retail: answers.map(([r]) => r), exchange: answers.map(([, e]) => e) };
  }

  it("keeps the other team's retail and exchange calls answered while one team holds 100 blocking calls, refusing that team's extra calls before any budget", async () => {
    await deskRounds(); // warm-up: the exchange token, keep-alive connections, JIT
    const idle = await deskRounds();
    expect([...idle.retail, ...idle.exchange].map((a) => a.status)).toEqual(Array(2 * ROUNDS).fill(200));
    const budgetBefore = await allowed(stack, 'retail.orders.create', 'trading');
    const teamCap = TEAM_CAP;

    // Watch the upstream the whole time: never more of trading's blocking calls than its bound.
    let mostHeld = 0;
    const watch = setInterval(() => (mostHeld = Math.max(mostHeld, heldUpstream())), 5);
    let settled = 0;
    // 12.5 a second: inside the hedge key's budget (14/s refill, spec's 440 per 10 s), so the budget alone would let all 100 through.
    const blocking = Array.from({ length: BLOCKING }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * BLOCKING_SPACING_MS));
      const answer = await timed(() =>
        api(stack, i % 2 === 0 ? 'blocker-1' : 'blocker-2')('/retail/v1/orders', {
          method: 'POST',
          body: JSON.stringify(blockingOrder()),
          headers: { 'x-retail-account': 'hedge' },
        }),
      );
      settled++;
      return answer;
    });
    try {
      // The bound's worth is held upstream and every other call has its answer, or 12 s passed (the base commit holds them all).
      const deadline = Date.now() + 12_000;
      while (Date.now() < deadline && !(heldUpstream() >= teamCap && settled >= BLOCKING - teamCap))
        await new Promise((resolve) => setTimeout(resolve, 20));
      const heldBefore = heldUpstream();
      const loaded = await deskRounds();
      const stillHeld = heldUpstream();
      const settledDuringLoad = settled;
      const budgetAfter = await allowed(stack, 'retail.orders.create', 'trading');
      const metrics = await (await api(stack)('/metrics')).text();

      // Release the held calls: cancels are never bounded, and each blocking create then answers.
      const cancel = await api(stack, 'blocker-1')('/retail/v1/orders/open/cancel', {
        method: 'POST',
        body: JSON.stringify({}),
        headers: { 'x-retail-account': 'hedge' },
      });
      expect(cancel.status).toBe(200);
      const answers = await Promise.all(blocking);
      const refused = answers.filter((a) => a.status === 429);
      const held = answers.filter((a) => a.status !== 429);

      console.log(
        [
          `team platform (desk) idle:   retail ${figures(idle.retail)}; exchange ${figures(idle.exchange)}`,
          `team platform (desk) loaded: retail ${figures(loaded.retail)}; exchange ${figures(loaded.exchange)}`,
          `team trading: ${held.length} blocking calls held upstream (released by cancel) ${figures(held)}; ${refused.length} refused 429 ${figures(refused)}`,
          `most of trading's blocking calls in flight upstream at once: ${mostHeld} (bound ${teamCap}); budget decisions for trading's creates: ${budgetAfter - budgetBefore}`,
        ].join('\n'),
      );

      expect(loaded.retail.map((a) => a.status)).toEqual(Array(ROUNDS).fill(200));
      expect(loaded.exchange.map((a) => a.status)).toEqual(Array(ROUNDS).fill(200));
      // ... answered while trading's blocking calls were still held upstream.
      expect({ heldBefore, stillHeld, settledDuringLoad }).toEqual({
        heldBefore: teamCap,
        stillHeld: teamCap,
        settledDuringLoad: BLOCKING - teamCap,
      });
      expect(mostHeld).toBe(teamCap);
      expect(held.map((a) => a.status)).toEqual(Array(teamCap).fill(200));
      expect(refused).toHaveLength(BLOCKING - teamCap);
      for (const answer of refused) {
        expect(answer.contentType).toContain('application/problem+json');
        expect(answer.retryAfter).toMatch(/^\d+$/);
        expect(answer.body).toMatchObject({
          status: 429,
          code: 'IN_FLIGHT_LIMITED',
          cap: expect.stringMatching(new RegExp(`^(${CAPS.join('|').replace(/\./g, '\\.')})$`)),
          limit: teamCap,
        });
      }
      // Only the held calls spent budget: the refusals came before it.
      expect(budgetAfter - budgetBefore).toBe(teamCap);
      // The operator sees both: trading's blocking calls in flight, and its refusals by bound.
      expect(metrics).toMatch(
        new RegExp(`^gateway_upstream_in_flight\\{lane="blocking",pool="[^"]+",team="trading"\\} ${teamCap}$`, 'm'),
      );
      const refusals = [
        ...metrics.matchAll(/^gateway_upstream_in_flight_refused_total\{cap="[^"]+",team="trading"\} (\d+)$/gm),
      ].reduce((sum, m) => sum + Number(m[1]), 0);
      expect(refusals).toBe(BLOCKING - teamCap);
    } finally {
      clearInterval(watch);
      await api(stack, 'all')('/retail/v1/orders/open/cancel', {
        method: 'POST',
        body: JSON.stringify({}),
        headers: { 'x-retail-account': 'hedge' },
      });
      await Promise.all(blocking);
    }
  }, 90_000);

  it('refuses a maxBlockTime past the cap before anything is spent or sent, naming the field', async () => {
    const creates = stack.sandbox.state.counter('retail.route.createOrder');
    const budgetBefore = await allowed(stack, 'retail.orders.create', 'trading');
    const res = await timed(() =>
      api(stack, 'blocker-1')('/retail/v1/orders', {
        method: 'POST',
        body: JSON.stringify(blockingOrder('300')),
        headers: { 'x-retail-account': 'hedge' },
        signal: AbortSignal.timeout(5_000),
      }),
    );
    await api(stack, 'all')('/retail/v1/orders/open/cancel', {
      method: 'POST',
      body: JSON.stringify({}),
      headers: { 'x-retail-account': 'hedge' },
    });
    expect(res).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        errors: [
          expect.objectContaining({
            path: 'body.maxBlockTime',
            message: expect.stringContaining('bulkheads.blocking.maxBlockSeconds'),
          }),
        ],
      },
    });
    expect(stack.sandbox.state.counter('retail.route.createOrder')).toBe(creates);
    expect(await allowed(stack, 'retail.orders.create', 'trading')).toBe(budgetBefore);
  }, 30_000);
});
