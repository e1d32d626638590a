import type { ChildProcess } from 'node:child_process';

import { limit, startExchangeStack } from './support/exchange-stack.js';
import { LOOP_BOT, throttled } from './support/fleet.js';
import { caller } from './support/load.js';
import { killed } from './support/processes.js';
import { redisCli, startRedisServer } from './support/redis-server.js';
import { StallProxy } from './support/stall-proxy.js';
import { type Stack, TEST_REDIS_COMMAND_TIMEOUT_MS, json } from './support/stack.js';

// The per-client throttle when Redis forgets a client's bucket while the client is busy: flushed or
// restarted empty, or back after an outage longer than the bucket takes to refill (its key expired in
// Redis while the instances counted alone). A bucket Redis does not hold was read as full, so the client
// got a second burst on top of the one it had just spent: more than the burst plus the refill.

const RATE = 24;
const BOT = LOOP_BOT;
const PAUSE_MS = 20;
const LOOPS_PER_GATEWAY = 3;
const PROBE_MS = 200;

describe('per-client throttle when Redis forgets its buckets (two gateways, a real Redis of their own)', () => {
  let redis: { port: number; url: string; process: ChildProcess };
  let proxy: StallProxy;
  let a: Stack;
  let b: Stack;

  beforeAll(async () => {
    redis = await startRedisServer(); // its own: this file flushes it
    proxy = await StallProxy.start(redis.port);
    const prefix = `throttleloss${process.pid}:`;
    const config = (input: Parameters<ReturnType<typeof throttled>>[0]) =>
      throttled(RATE)({
        ...input,
        redis: { mode: 'single', url: proxy.url, keyPrefix: prefix, commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS },
        // Redis found again within a fifth of a second: while one instance decides there and the other still alone, the fleet passes up to rate + rate / 2.
        limits: { ...input.limits, probeMs: PROBE_MS },
      });
    a = await startExchangeStack([BOT], { redis: true, gateway: config });
    b = await startExchangeStack([BOT], { redis: true, reuseSandbox: a.sandbox, gateway: config });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await proxy?.close();
    if (redis) await killed(redis.process);
  });

  let n = 0;
  /** One insert through `stack` (a or b in turn when not named): 'OK', or the refusal's code. */
  const insert = async (through?: Stack) => {
    const i = n++;
    const stack = through ?? (i % 2 ? b : a);
    const via = caller(stack.url, stack.keys[BOT.id]!);
    const res = await via('/exchange/v1/trading/orders', {
      method: 'POST',
      body: JSON.stringify(limit('SIDE_BUY', 1, 10 + (i % 5), { clordId: `forget-${i}` })),
    });
    return res.ok ? 'OK' : ((await json(res)).code as string);
  };
  const burst = () => Promise.all(Array.from({ length: RATE + 4 }, () => insert()));
  /**
   * For `ms`, LOOPS_PER_GATEWAY loops per gateway each inserting one after another, PAUSE_MS apart:
   * together several times the rate even on a busy machine, so the throttle is always the limit.
   */
  const steadily = async (ms: number) => {
    const until = performance.now() + ms;
    const loop = async (stack: Stack) => {
      const codes: string[] = [];
      while (performance.now() < until) {
        codes.push(await insert(stack));
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
      return codes;
    };
    const loops = [a, b].flatMap((stack) => Array.from({ length: LOOPS_PER_GATEWAY }, () => loop(stack)));
    return (await Promise.all(loops)).flat();
  };
  /**
   * The promise: the throttle lets through at most `held` (what the bucket could hold at the start) plus
   * the refill over the time the calls took.
   */
  const judge = (what: string, codes: string[], startedAt: number, held: number) => {
    const seconds = (performance.now() - startedAt) / 1_000;
    // A call the throttle let through was sent (OK), or refused after it by the budget (which came back spent) or while its counts are rebuilt.
    const passed = codes.filter((code) => code !== 'RISK_THROTTLED').length;
    console.log(`${what}: ${passed} of ${codes.length} passed the throttle in ${seconds.toFixed(2)} s at ${RATE}/s`);
    expect(passed).toBeLessThanOrEqual(held + Math.floor(RATE * seconds));
    expect(codes.every((code) => ['OK', 'RISK_THROTTLED', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'].includes(code))).toBe(
      true,
    );
  };

  it('FLUSHALL after the burst was spent: no second burst', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // idle: the bucket is full
    await burst(); // spends the burst
    expect(await redisCli(redis.port, 'FLUSHALL')).toContain('OK');
    const flushedAt = performance.now();
    const after = [...(await burst()), ...(await steadily(500))];
    // From the FLUSHALL on, at most the refill: the client may have just spent its burst. Half a burst of slack: while the
    // budget finds the loss, an instance may count alone (a share, starting spent) beside one deciding in Redis. A bucket
    // read as full gives a whole burst more.
    judge('throttle after FLUSHALL', after, flushedAt, RATE / 2);
  }, 60_000);

  it('Redis back after an outage longer than the bucket takes to refill: the calls go on at the rate, with no new burst', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const startedAt = performance.now();
    const codes = await burst();
    proxy.cut();
    codes.push(...(await steadily(2_500))); // each instance counts alone; Redis's copy of the bucket expires
    // The bucket is empty as Redis comes back: the throttle was refusing the calls just before.
    expect(codes.slice(-10)).toContain('RISK_THROTTLED');
    proxy.restore();
    const backAt = performance.now();
    const back = await steadily(4_000); // the instances find Redis again (two probes), then decide there
    // The bucket was empty: the refill since, and a quarter burst of slack for the instances' local shares; a bucket read as full on return gives a whole burst more.
    judge('throttle after the outage', back, backAt, RATE / 4);
    judge('throttle across the outage', [...codes, ...back], startedAt, RATE);
  }, 60_000);
});
