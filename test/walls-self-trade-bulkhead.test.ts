import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { OTHER_PARTICIPANT, PARTICIPANT, type Stack, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

/**
 * A wall between teams, through the real wire (sandbox, sockets): with cross-team self-trade prevention
 * on, every order and every what-if reads the other participants' open orders at the exchange. Those
 * reads are the caller's calls, counted in its own team's bound on calls in flight. Before, they were
 * made under a name of the gateway's own, one place shared by every team: team `trading` flooding the
 * what-if route (no budget spent) held it, and team `platform`'s insert waited and was refused 429
 * IN_FLIGHT_LIMITED, nothing sent. Now the flood meets only its own team's bound.
 */

const TRADER = ['write:orders' as const, 'read:orders' as const];
const CLIENTS = [
  { id: 'alice-bot', team: 'platform', scopes: TRADER, participants: [PARTICIPANT], retailAccounts: ['main'] },
  { id: 'bob-bot', team: 'trading', scopes: TRADER, participants: [OTHER_PARTICIPANT], retailAccounts: ['hedge'] },
];
/** Each team's bound on exchange calls in flight: small, so a flood of 40 fills it at once. */
const PER_TEAM = 4;
const FLOOD = 40;
/** The open-orders snapshot slowed to this: the first reads hold their places while alice sends. */
const READ_MS = 1_500;

const config = (input: GatewayConfigInput): GatewayConfigInput => ({
  ...input,
  risk: { ...input.risk, crossTeamSelfTrade: 'reject' },
  http: { ...input.http, connectionsPerOrigin: 2 * PER_TEAM },
  // A short line: a call that finds its bound full is refused after 200 ms unless a place frees (none does while the reads are held).
  bulkheads: { ...input.bulkheads, queueMs: 200 },
  teams: [
    { id: 'platform', bulkhead: { perTeam: PER_TEAM } },
    { id: 'trading', bulkhead: { perTeam: PER_TEAM } },
  ],
});

describe("cross-team self-trade reads count in the caller's team", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startExchangeStack(CLIENTS, { gateway: config });
  });
  afterAll(() => stack?.close());

  it("one team's what-if flood does not refuse another team's insert", async () => {
    expect((await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 10), 'alice-bot')).status).toBe(200);
    const reads = () => stack.sandbox.state.counter('exchange.calls.openOrders');
    stack.sandbox.state.setFaults({ exchangeDelayMs: { openOrders: READ_MS } });
    try {
      const before = reads();
      const flood = Array.from({ length: FLOOD }, () =>
        post(stack, '/exchange/v1/trading/orders/check', limit('SIDE_SELL', 1, 90), 'bob-bot').then(async (res) => ({
          status: res.status,
          type: res.headers.get('content-type'),
          body: (await json(res)) as { code?: string },
        })),
      );
      // The flood holds every place its team has (its reads have reached the exchange) before alice sends.
      const deadline = Date.now() + 60_000;
      while (reads() - before < PER_TEAM && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(reads() - before).toBeGreaterThanOrEqual(PER_TEAM);

      const own = await post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 11), 'alice-bot');
      const ownBody = (await json(own)) as Record<string, unknown>;
      const answers = await Promise.all(flood);
      const byStatus = answers.reduce<Record<string, number>>((acc, a) => {
        const key = `${a.status}${a.body.code ? ` ${a.body.code}` : ''}`;
        return { ...acc, [key]: (acc[key] ?? 0) + 1 };
      }, {});
      console.log(`alice's insert ${own.status}; bob's ${FLOOD} what-ifs: ${JSON.stringify(byStatus)}`);

      expect({ status: own.status, body: ownBody }).toMatchObject({ status: 200 });
      // The flood met its own team's bound: answered, never a 500; a refusal is problem+json naming the bound.
      for (const answer of answers) {
        expect([200, 429]).toContain(answer.status);
        if (answer.status === 429) {
          expect(answer.type).toContain('application/problem+json');
          expect(answer.body.code).toBe('IN_FLIGHT_LIMITED');
        }
      }
    } finally {
      stack.sandbox.state.setFaults({ exchangeDelayMs: {} });
    }
  });
});
