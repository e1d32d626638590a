import { limit } from './support/exchange-stack.js';
import { type Fleet, startFleet } from './support/fleet.js';
import { offer, tally } from './support/load.js';

const OFFERED_PER_SECOND = 60; // 2× the T1 insert figure (30/s, upstream-facts)
const RUN_MS = 5_000;
const REVOKE_EVERY_MS = 250;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Budget decisions a gateway process allowed on `bucket`, summed over its series (its /metrics). */
async function allowedDecisions(url: string, key: string, bucket: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${key}` } })).text();
  const pattern = new RegExp(
    `^ratelimit_decisions_total\\{bucket="${bucket.replace(/\./g, '\\.')}",[^}]*outcome="allowed"\\} (\\d+)$`,
    'gm',
  );
  return [...text.matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** A stream open refused by the exchange's auth (not by its own checks after it: ingress, arguments, accounts, caps). */
const GRPC_AUTH_REFUSED =
  /^grpc\.[^.]+\.refused\.(?!(ingress|invalid_argument|foreign_account|foreign_firm|resource_exhausted|resume)$)/;

const sum = (counters: Record<string, number>, name: RegExp): number =>
  Object.entries(counters)
    .filter(([counter]) => name.test(counter))
    .reduce((total, [, n]) => total + n, 0);

/**
 * Every REST request the sandbox's exchange surface received: calls it ran, and calls its auth or
 * limits refused. Its auth counts the gRPC stream opens it refuses as `exchange.rejected.*` too (the
 * gateway's order stream reopened during the storm, its token revoked): those are no REST request and
 * take no REST budget, and each is also counted by its stream as `grpc.<stream>.refused.<reason>`.
 */
function exchangeArrivals(counters: Record<string, number>): number {
  return sum(counters, /^exchange\.(calls|rejected|throttled|latency-rejected)\./) - sum(counters, GRPC_AUTH_REFUSED);
}

/** Every try pays budget, the resend after an upstream 401 included (issue 15). */
describe('a 401 storm during order entry across three gateway processes', () => {
  let cluster: Fleet | undefined;

  beforeAll(async () => {
    cluster = await startFleet('resend');
  }, 90_000);
  afterAll(() => cluster?.close());

  /** Warms every process up (tokens, connections, a full insert bucket), then counts from there. */
  async function counting(): Promise<
    () => Promise<{ decisions: number; arrivals: number; counters: Record<string, number> }>
  > {
    const { stack, calls, processes } = cluster!;
    const { state } = stack.sandbox;
    for (const call of calls) expect((await call('/exchange/v1/whoami')).status).toBe(200);
    await sleep(1_100); // a full insert bucket again
    const allowed = () =>
      Promise.all(processes.map((p) => allowedDecisions(p.url, stack.keys.all, 'exchange.orders.insert')));
    const before = await allowed();
    const arrivalsBefore = exchangeArrivals(state.counterSnapshot());
    return async () => {
      const after = await allowed();
      const counters = state.counterSnapshot();
      return {
        decisions: after.reduce((sum, n, i) => sum + n - before[i], 0),
        arrivals: exchangeArrivals(counters) - arrivalsBefore,
        counters,
      };
    };
  }

  const insert = (i: number, clordId: string) =>
    cluster!.calls[i % cluster!.calls.length]('/exchange/v1/trading/orders', {
      method: 'POST',
      body: JSON.stringify(limit('SIDE_BUY', 1, 10, { clordId })),
    });

  it('sends the upstream exactly as many requests as the budget allowed, and never earns a 429', async () => {
    const { state } = cluster!.stack.sandbox;
    const counted = await counting();
    const storm = setInterval(() => state.revokeAccessTokens(), REVOKE_EVERY_MS);
    let answers;
    try {
      answers = await offer(OFFERED_PER_SECOND, RUN_MS, (i) => insert(i, `storm-${process.pid}-${i}`));
    } finally {
      clearInterval(storm);
    }
    await sleep(200);
    const { decisions, arrivals, counters } = await counted();
    const revoked = counters['exchange.rejected.revoked'] ?? 0;
    console.log(
      `401 storm: ${answers.length} inserts offered at ${OFFERED_PER_SECOND}/s, gateway ${JSON.stringify(tally(answers))}; ` +
        `budget decisions allowed ${decisions}, sandbox arrivals ${arrivals} (${revoked} refused as revoked), upstream 429s ${counters['exchange.throttled.order-entry'] ?? 0}`,
    );
    expect(revoked).toBeGreaterThan(0);
    // The promise: no request reaches the upstream without a budget decision of its own (a 401 resend
    // re-asks the budget). Fewer arrivals than decisions is allowed: a decision refused at the send (read
    // late on a busy machine) was counted allowed and refunded, not sent.
    expect(arrivals).toBeGreaterThan(0);
    expect(arrivals).toBeLessThanOrEqual(decisions);
    expect(counters['exchange.throttled.order-entry'] ?? 0).toBe(0);
    // 503: the resend found no budget (not processed). 502 UPSTREAM_UNAUTHORIZED: the storm revoked the
    // fresh token too before the one resend arrived; nothing is resent twice.
    expect(
      answers.filter(
        (a) => ![200, 429, 503].includes(a.status) && !(a.status === 502 && a.code === 'UPSTREAM_UNAUTHORIZED'),
      ),
    ).toEqual([]);
  }, 60_000);

  // Last: the token providers back off for a while after the auth server came back.
  it('spends no budget on a try that cannot get a token (auth server down, tokens revoked)', async () => {
    const { stack, processes } = cluster!;
    const { state } = stack.sandbox;
    const counted = await counting();
    state.setFaults({ authDown: true });
    try {
      state.revokeAccessTokens();
      const answers: string[] = [];
      for (let i = 0; i < 15; i++) {
        const response = await insert(i, `down-${process.pid}-${i}`);
        answers.push(`${response.status} ${((await response.json()) as { code?: string }).code}`);
      }
      const { decisions, arrivals } = await counted();
      console.log(
        `auth down: ${answers.length} inserts; budget decisions allowed ${decisions}, sandbox arrivals ${arrivals}`,
      );
      expect(answers).toEqual(Array(15).fill('503 UPSTREAM_AUTH_UNAVAILABLE'));
      // Each process sent its revoked token once (a 401); no try that found no token took budget.
      expect(arrivals).toBe(processes.length);
      expect(decisions).toBe(arrivals);
    } finally {
      state.setFaults({ authDown: false });
    }
  }, 60_000);
});
