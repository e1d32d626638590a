import { createRedisClient } from '@lib/core';

import { limit } from './support/exchange-stack.js';
import { type Fleet, startFleet } from './support/fleet.js';
import { caller } from './support/load.js';
import { PARTICIPANT, eventually, redisUrl } from './support/stack.js';

/**
 * Two operators set one scope at once on two instances (halt on one, lift on the other): every instance
 * ends on the state Redis holds. Each write is pushed after it commits, and the pushes may arrive in
 * another order than the writes: an instance that applied them as they came held the earlier one until
 * its next re-read. A probe saw it in 4 of 40 rounds: Redis held `halted` and both instances accepted
 * orders (2 s at the default `risk.stateResyncMs`; set to a minute here, and the age past which states count as unknown to ten, so only the push can heal it).
 */
const BOT = {
  id: 'bot',
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
};
const ROUNDS = 25;

describe('trading states written at once on two instances', () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await startFleet('converge', 2, { clients: [BOT] }, (config) => ({
      ...config,
      risk: { ...config.risk, stateResyncMs: 60_000, maxStateAgeMs: 600_000 },
    }));
  }, 120_000);
  afterAll(() => fleet?.close());

  it('every instance ends on what Redis holds, whichever write came last', async () => {
    const redis = createRedisClient({
      mode: 'single',
      url: redisUrl(),
      keyPrefix: '',
      commandTimeoutMs: 2_000,
      connectTimeoutMs: 2_000,
    });
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    const key = `converge${process.pid}:{risk}:states`;
    const set = (i: number, state: string) =>
      fleet.calls[i]!('/admin/risk/states', {
        method: 'POST',
        body: JSON.stringify({ scope: 'team:trading', state, reason: 'two operators at once' }),
      });
    let orders = 0;
    /** What instance i enforces now: an insert is refused 403 under a halt, else placed. */
    const enforced = async (i: number) => {
      const res = await caller(fleet.processes[i]!.url, fleet.stack.keys.bot)('/exchange/v1/trading/orders', {
        method: 'POST',
        body: JSON.stringify(limit('SIDE_BUY', 1, 2, { clordId: `converge-${orders++}` })),
      });
      return res.status === 403 ? 'halted' : res.status === 200 ? 'active' : `status ${res.status}`;
    };
    const diverged: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const halts = round % 2;
        const answers = await Promise.all([set(halts, 'halted'), set(1 - halts, 'active')]);
        expect(answers.map((res) => res.status)).toEqual([200, 200]);
        const held = (await redis.hget(key, 'team:trading')) ? 'halted' : 'active';
        // Each instance comes to the state Redis holds (a push and a re-read: well under a second when idle).
        for (const i of [0, 1]) {
          const seen = await eventually(
            () => enforced(i),
            (state) => state === held,
            5_000,
            100,
          ).catch((error: Error) => error.message);
          if (seen !== held) diverged.push(`round ${round}: Redis ${held}, instance ${i}: ${seen}`);
        }
        await set(0, 'active');
        for (const i of [0, 1])
          await eventually(
            () => enforced(i),
            (state) => state === 'active',
            5_000,
            100,
          );
      }
    } finally {
      redis.disconnect();
    }
    process.stdout.write(`state convergence: ${ROUNDS} rounds, ${diverged.length} diverged\n${diverged.join('\n')}\n`);
    expect(diverged).toEqual([]);
  }, 300_000);
});
