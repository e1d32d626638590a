import { post, startExchangeStack } from './support/exchange-stack.js';
import { type Json, PARTICIPANT, type Stack, api, json } from './support/stack.js';

/**
 * Two operators set one scope at once: instance A halts team `trading` while instance B sets it
 * reduce-only. Each write reads the state it replaces where the states are latched, in the same step,
 * so the later answer names the earlier state and the history is one chain (each `from` the `to`
 * before it). Before, `from` came from the writer's memory: in 5 of 5 rounds of a probe both answers
 * said `from: "active"`, and B's write replaced A's halt unseen. A caller may name the state it read
 * (`expected`): another latched is refused 412, nothing changed, on Redis (two instances) and without
 * it (one instance, its memory store).
 */
const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
const SCOPE = 'team:trading';
const ROUNDS = 5;

const setState = (stack: Stack, state: string, reason: string, expected?: string) =>
  post(stack, '/admin/risk/states', { scope: SCOPE, state, reason, ...(expected ? { expected } : {}) });

for (const redis of [true, false]) {
  describe(`trading states set at once (${redis ? 'two instances on Redis' : 'one instance, no Redis'})`, () => {
    let a: Stack;
    let b: Stack;
    beforeAll(async () => {
      const redisKeyPrefix = `chain${process.pid}:${Math.random().toString(36).slice(2, 8)}:`;
      a = await startExchangeStack(CLIENTS, { redis, redisKeyPrefix });
      b = redis ? await startExchangeStack(CLIENTS, { redis, redisKeyPrefix, reuseSandbox: a.sandbox }) : a;
    });
    afterAll(async () => {
      if (b !== a) await b?.close();
      await a?.close();
    });

    // Without Redis the same requests on one instance were right before too (nothing awaited between the
    // read of the old state and the write): there, the 412 case below covers the memory store.
    if (redis)
      it('names the state each write replaced: the later answer names the earlier state, the history is one chain', async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const answers = await Promise.all([
            setState(a, 'halted', `operator A halts, round ${round}`),
            setState(b, 'reduce-only', `operator B reduces, round ${round}`),
          ]);
          expect(answers.map((res) => res.status)).toEqual([200, 200]);
          const [halt, reduce] = await Promise.all(answers.map(async (res) => (await json(res)).change as Json));
          // Whichever landed first replaced `active`; the other replaced it (before: both `active`).
          expect([
            ['active', 'halted'],
            ['reduce-only', 'active'],
          ]).toContainEqual([halt.from, reduce.from]);
          const last = halt.from === 'active' ? 'reduce-only' : 'halted';
          const lift = await setState(a, 'active', `lift, round ${round}`);
          expect(lift.status).toBe(200);
          expect((await json(lift)).change).toMatchObject({ from: last, state: 'active' });
        }
        const changes = (await json(await api(b)('/admin/risk'))).changes as Json[];
        expect(changes).toHaveLength(3 * ROUNDS);
        const oldestFirst = changes.reverse();
        expect(oldestFirst.map((change) => change.from)).toEqual([
          'active',
          ...oldestFirst.slice(0, -1).map((change) => change.state),
        ]);
      });

    it('refuses a change naming another state than the one latched with 412, and changes nothing', async () => {
      expect((await setState(a, 'halted', 'operator A halts')).status).toBe(200);
      // B's operator read `active` before A's halt: whether B has seen the halt yet or not, it is refused.
      const refused = await setState(b, 'reduce-only', 'operator B reduces', 'active');
      expect(refused.status).toBe(412);
      expect(await json(refused)).toMatchObject({
        code: 'PRECONDITION_FAILED',
        scope: SCOPE,
        state: 'halted',
        expected: 'active',
      });
      const view = await json(await api(b)('/admin/risk'));
      expect(view.states).toEqual([expect.objectContaining({ scope: SCOPE, state: 'halted' })]);
      expect(view.changes[0]).toMatchObject({ from: 'active', state: 'halted', reason: 'operator A halts' });
      // Naming the state latched passes.
      const lifted = await setState(b, 'active', 'halt over', 'halted');
      expect(lifted.status).toBe(200);
      expect((await json(lifted)).change).toMatchObject({ from: 'halted', state: 'active' });
    });
  });
}
