import type { ChildProcess } from 'node:child_process';

import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { limit, post, startExchangeStack, upstreamCalls } from './support/exchange-stack.js';
import { redisCli, startRedisServer } from './support/redis-server.js';
import { PARTICIPANT, type Stack, TEST_REDIS_COMMAND_TIMEOUT_MS, eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';
import { killed } from './support/processes.js';

const TRADER = ['write:orders' as const, 'read:orders' as const];
/** One client per test (each trips its own breaker); `frozen` is halted by a latched trading state. */
const CLIENTS = ['stream', 'flood', 'drift', 'frozen'].map((id) => ({
  id,
  team: 'trading',
  scopes: TRADER,
  participants: [PARTICIPANT],
}));
const TRIP_AT = 3;
/** The trading states and open breakers are re-read this often (the loss is noticed at the next read). */
const RESYNC_MS = 300;
/** The spawned gateway starts with its wall clock this far behind, then an NTP-like step corrects it. */
const CLOCK_OFFSET_MS = 600_000;

const withBreaker =
  (redisUrl: string, keyPrefix: string) =>
  (config: GatewayConfigInput): GatewayConfigInput => ({
    ...config,
    redis: { mode: 'single', url: redisUrl, keyPrefix, commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS },
    risk: {
      stateResyncMs: RESYNC_MS,
      breaker: {
        rejects: 50,
        windowSeconds: 60,
        coolOffSeconds: 300,
        clients: Object.fromEntries(CLIENTS.map(({ id }) => [id, { rejects: TRIP_AT }])),
      },
    },
  });

const insert = (stack: Stack, order: object, client: string, headers: Record<string, string> = {}) =>
  post(stack, '/exchange/v1/trading/orders', order, client, headers);
/** The what-if route runs every gateway check (the breaker included) and sends nothing: its status says whether the client may trade. */
const check = (stack: Stack, client: string) =>
  post(stack, '/exchange/v1/trading/orders/check', limit('SIDE_BUY', 1, 11), client).then((res) => res.status);
const refusedOn = (stack: Stack, client: string) =>
  eventually(
    () => check(stack, client),
    (status) => status === 403,
    10_000,
  ).catch(() => 'never');
/**
 * Another team's working order under `clordId` on the participant: the gateway sends a clordId once a key
 * lifetime per team, so the exchange's own refusal (409 while the order works) is reached through a
 * clordId another team holds.
 */
const holdAtExchange = async (stack: Stack, clordId: string) =>
  expect(
    (await insert(stack, limit('SIDE_BUY', 1, 10, { clordId }), 'all', { 'x-participant-id': PARTICIPANT })).status,
  ).toBe(200);
/** The client's order under a new Idempotency-Key and a clordId another team's order works under: a 409 reject. */
const resend = (stack: Stack, client: string, i: number) =>
  insert(stack, limit('SIDE_BUY', 1, 10, { clordId: `${client}-working` }), client, {
    'idempotency-key': `${client}-resend-${i}`,
  });

/** Trips `client`'s breaker through `stack` with TRIP_AT HTTP rejects (409: a clordId still working). */
async function tripByAnswers(stack: Stack, client: string): Promise<void> {
  await holdAtExchange(stack, `${client}-working`);
  for (let i = 1; i <= TRIP_AT; i++)
    expect({ i, status: (await resend(stack, client, i)).status }).toEqual({ i, status: 409 });
}

describe('reject breaker under faults: rejects after a 200, Redis losing its data, clocks across processes', () => {
  let redis: { port: number; url: string; process: ChildProcess };
  let a: Stack;
  let b: Stack;
  let drifted: GatewayProcess | undefined;
  const prefix = `breakerfaults${process.pid}:`;

  beforeAll(async () => {
    redis = await startRedisServer(); // its own: this file flushes it
    a = await startExchangeStack(CLIENTS, { redis: true, gateway: withBreaker(redis.url, prefix) });
    b = await startExchangeStack(CLIENTS, {
      redis: true,
      reuseSandbox: a.sandbox,
      gateway: withBreaker(redis.url, prefix),
    });
  }, 60_000);
  afterAll(async () => {
    await drifted?.stop();
    await b?.close();
    await a?.close();
    if (redis) await killed(redis.process);
  });

  it('counts the rejects that arrive on the order stream after a 200: N of them trip the breaker', async () => {
    // The first insert holds the order stream for the breaker; its rejects are followed from then on.
    expect((await insert(a, limit('SIDE_BUY', 1, 10, { clordId: 'stream-first' }), 'stream')).status).toBe(200);
    const ordersStream = async () =>
      /^gateway_exchange_grpc_streams_open\{kind="orders"\} 1$/m.test(await (await fetch(`${a.url}/metrics`)).text());
    await eventually(ordersStream, Boolean, 10_000).catch(() => undefined);

    // An unknown symbol: the exchange answers 200 with an order id, and rejects the order on its order stream.
    for (let i = 1; i <= TRIP_AT; i++) {
      const res = await insert(
        a,
        limit('SIDE_BUY', 1, 10, { symbol: 'no-such-symbol', clordId: `stream-bad-${i}` }),
        'stream',
      );
      expect({ i, status: res.status }).toEqual({ i, status: 200 });
      const { orderId } = await json(res);
      expect(a.sandbox.state.engine.order(orderId)).toMatchObject({ state: 'ORDER_STATE_REJECTED' });
    }

    expect(await refusedOn(a, 'stream')).toBe(403);
    const sent = upstreamCalls(a);
    const refused = await insert(a, limit('SIDE_BUY', 1, 12, { clordId: 'stream-next' }), 'stream');
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({
      code: 'RISK_BREAKER_OPEN',
      scope: 'client:stream',
      limit: TRIP_AT,
      observed: TRIP_AT,
    });
    expect(upstreamCalls(a)).toBe(sent);
    expect(await refusedOn(b, 'stream')).toBe(403);
    // Each counted once, by the instance that sent it, as seen on the stream.
    const counted = (await (await fetch(`${a.url}/metrics`)).text()).match(
      /^gateway_risk_breaker_rejects_total\{client="stream",source="stream"\} (\d+)$/m,
    )?.[1];
    expect(Number(counted)).toBe(TRIP_AT);
    console.log(
      `breaker: ${TRIP_AT} inserts answered 200 and rejected on the order stream tripped it; refused on both instances, nothing sent`,
    );
  }, 60_000);

  it('stays tripped, and a halt stays latched, when Redis loses its data (FLUSHALL): the instances latch what they held again', async () => {
    await tripByAnswers(a, 'flood');
    const halted = await post(a, '/admin/risk/states', {
      scope: 'client:frozen',
      state: 'halted',
      reason: 'flush drill',
    });
    expect(halted.status).toBe(200);
    expect(await refusedOn(b, 'flood')).toBe(403);
    expect(
      await eventually(
        () => check(b, 'frozen'),
        (status) => status === 403,
        10_000,
      ),
    ).toBe(403);

    expect(await redisCli(redis.port, 'FLUSHALL')).toContain('OK');
    // Signal: both latched sets are back in Redis (an instance noticed the loss and latched what it held again).
    const restored = await eventually(
      async () => [
        await redisCli(redis.port, 'HEXISTS', `${prefix}{risk}:breaker:open`, 'flood'),
        await redisCli(redis.port, 'HEXISTS', `${prefix}{risk}:states`, 'client:frozen'),
      ],
      (found) => found.every((answer) => answer.trim() === '1'),
      10_000,
    ).catch((error: Error) => error.message);
    expect(restored).toEqual(['1', '1'].map((one) => expect.stringContaining(one)));
    // Every instance has re-read since: each notices the loss of each set (the states, the breakers) and logs it, 4 lines
    // (in either stack's log: the two in-process gateways share Nest's static logger). Still refused on both.
    const noticed = () => [...a.logs, ...b.logs].join('').split('Redis lost the latched set').length - 1;
    await eventually(
      async () => noticed(),
      (lines) => lines >= 4,
      10_000,
    );
    for (const stack of [a, b]) {
      const flood = await insert(stack, limit('SIDE_BUY', 1, 13), 'flood');
      expect(await json(flood)).toMatchObject({ code: 'RISK_BREAKER_OPEN', scope: 'client:flood' });
      const frozen = await insert(stack, limit('SIDE_BUY', 1, 13), 'frozen');
      expect(await json(frozen)).toMatchObject({ code: 'TRADING_HALTED' });
    }
    console.log(
      'breaker and halt after FLUSHALL: latched again by the instances that held them; refused on both instances',
    );
  }, 60_000);

  it('an open breaker tripped by a process whose steady clock is off (wall clock stepped since its start) holds on every instance', async () => {
    const config = { ...a.configInput, logging: { level: 'warn' as const } };
    drifted = await spawnGateway(config, { wallClock: { offsetMs: -CLOCK_OFFSET_MS, stepsMs: [CLOCK_OFFSET_MS] } });
    const process = drifted;
    // NTP corrects the wall clock; the process's steady clock keeps the offset it started with.
    process.process.kill('SIGUSR2');
    await eventually(async () => process.output().includes('test wall clock stepped'), Boolean, 5_000);
    await eventually(
      () => fetch(`${process.url}/health/ready`).then((res) => res.status),
      (status) => status === 200,
      20_000,
      200,
    );

    const send = (body: object, headers: Record<string, string>) =>
      fetch(`${process.url}/exchange/v1/trading/orders`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${a.keys.drift}`, 'content-type': 'application/json', ...headers },
      });
    // The FLUSHALL of the test before brings the shared budget's cells back spent (the budget's own rule
    // for a Redis that lost its data), so a fresh process may be refused 429 for a moment (in one CI run:
    // the first resend): such a call was never sent, and is sent again after its Retry-After. The breaker
    // is what this test judges.
    const call = async (body: object, headers: Record<string, string> = {}): Promise<Response> => {
      for (let attempt = 0; ; attempt++) {
        const res = await send(body, headers);
        if (res.status !== 429 || attempt === 20) return res;
        const problem = await json(res);
        expect(['RATE_LIMITED', 'RISK_THROTTLED']).toContain(problem.code); // refused before the send, never sent
        await new Promise((r) => setTimeout(r, Math.min(2_000, 1_000 * Number(res.headers.get('retry-after') ?? 1))));
      }
    };
    await holdAtExchange(a, 'drift-working');
    for (let i = 1; i <= TRIP_AT; i++)
      expect({
        i,
        status: (
          await call(limit('SIDE_BUY', 1, 10, { clordId: 'drift-working' }), { 'idempotency-key': `drift-${i}` })
        ).status,
      }).toEqual({ i, status: 409 });

    expect((await call(limit('SIDE_BUY', 1, 11, { clordId: 'drift-next' }))).status).toBe(403);
    // The in-process instances read the same record: its `until` is a wall-clock instant, five minutes ahead for them too.
    expect(await refusedOn(a, 'drift')).toBe(403);
    const problem = await json(await insert(a, limit('SIDE_BUY', 1, 12), 'drift'));
    expect(problem).toMatchObject({ code: 'RISK_BREAKER_OPEN', scope: 'client:drift' });
    expect(Date.parse(problem.until)).toBeGreaterThan(Date.now() + 60_000);
    console.log(
      `breaker tripped by a process whose steady clock is ${CLOCK_OFFSET_MS / 60_000} min behind: refused elsewhere until ${problem.until}`,
    );
  }, 90_000);
});
