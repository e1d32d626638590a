import { Redis } from 'ioredis';

import { LUA_GENERATION, LuaScript, generationCandidates } from './lua-script.js';

// LUA_GENERATION on a real Redis, with `now` given by the test (so a step of Redis's clock can be
// played): KEYS[1] the generation key; ARGV held, candidate, window ms, now ms. Reply {generation, ms left}.
const script = new LuaScript(`${LUA_GENERATION}
local gen, left = generation(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]))
return { gen, left }`);

const WINDOW = 1_000;

describe('LUA_GENERATION (a count Redis may lose), on a real Redis', () => {
  let redis: Redis;
  let n = 0;
  let key: string;
  beforeAll(() => {
    redis = new Redis(process.env.TEST_REDIS_URL!, { lazyConnect: false });
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    key = `lua-generation-spec:${process.pid}:${(n += 1)}`;
  });

  const look = async (held: string, candidate: string, now: number) =>
    (await script.run(redis, [key], [held, candidate, WINDOW, now])) as [string, number];

  it('a first look creates an unmarked generation; looking again, with it held, changes nothing', async () => {
    const [first, left] = await look('', 'a.0', 10_000);
    expect(first).toBe('a.0:10000:0');
    expect(left).toBe(0);
    expect(await look(first, 'a.1', 10_500)).toEqual([first, 0]);
    expect(await look('', 'b.0', 10_600)).toEqual([first, 0]); // a second instance's first look: the same generation
  });

  it('an instance that held one and finds none creates the next marked as a loss, for the window after it', async () => {
    const [held] = await look('', 'a.0', 10_000);
    await redis.del(key); // Redis lost its data
    const [next, left] = await look(held, 'a.1', 20_000);
    expect(next).toBe('a.1:20000:1');
    expect(left).toBe(WINDOW);
    expect(await look('', 'b.0', 20_400)).toEqual([next, 600]); // every instance sees the same window
    expect(await look(next, 'a.2', 21_000)).toEqual([next, 0]); // the window is over
  });

  it('one made by an instance that held none (a fresh start after the loss) is marked by the first that held the old one', async () => {
    const [held] = await look('', 'a.0', 10_000);
    await redis.del(key);
    const [fresh, none] = await look('', 'b.0', 20_000);
    expect(none).toBe(0); // the fresh instance cannot tell a loss from a first start
    const [marked, left] = await look(held, 'a.1', 20_300);
    expect(marked).toBe('b.0:20000:1'); // its creation time kept
    expect(left).toBe(700);
    expect(await look(fresh, 'b.1', 20_500)).toEqual([marked, 500]);
  });

  it("a step of Redis's clock does not stretch the window: never more than the window left, none past a step of the window", async () => {
    const [held] = await look('', 'a.0', 10_000);
    await redis.del(key);
    const [next] = await look(held, 'a.1', 20_000);
    expect(await look(next, 'a.2', 19_800)).toEqual([next, WINDOW]); // a small step back: at most the window
    expect(await look(next, 'a.3', 20_000 - WINDOW)).toEqual([next, 0]); // a step back of the window or more: over
  });

  it('candidates are unique per instance and call', () => {
    const a = generationCandidates('host:1:aa');
    const b = generationCandidates('host:2:bb');
    const seen = new Set([a(), a(), b(), b(), a()]);
    expect(seen.size).toBe(5);
  });
});
