import type { ChildProcess } from 'node:child_process';

import { limit, post, startExchangeStack } from './support/exchange-stack.js';
import { redisCli, startRedisServer } from './support/redis-server.js';
import { PARTICIPANT, type Stack, TEST_REDIS_COMMAND_TIMEOUT_MS, eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';
import { killed } from './support/processes.js';

const MAX_OPEN = 5;
const CLIENTS = [
  {
    id: 'bot',
    team: 'trading',
    scopes: ['write:orders' as const, 'read:orders' as const],
    participants: [PARTICIPANT],
  },
];
/** What an insert may meet once Redis lost the counts: refused while they are rebuilt, or by the rebuilt count. */
const REFUSED = ['SERVICE_UNAVAILABLE', 'RISK_MAX_OPEN_ORDERS'];

const withOpenLimit =
  (redisUrl: string, keyPrefix: string) =>
  (config: GatewayConfigInput): GatewayConfigInput => ({
    ...config,
    redis: { mode: 'single', url: redisUrl, keyPrefix, commandTimeoutMs: TEST_REDIS_COMMAND_TIMEOUT_MS },
    risk: { limits: [{ scope: 'team', id: 'trading', maxOpenOrders: MAX_OPEN }] },
  });

/**
 * Redis losing its data (FLUSHALL here; a restart empty is the same to the counts) must not empty the
 * open-order counts silently: the counts' generation is gone, and no instance accepts an order under a
 * count until the counts hold the exchange's open orders again (issue 26 item 1, issue 29).
 */
describe('open-order counts when Redis loses its data (two gateways, a real Redis)', () => {
  let redis: { port: number; url: string; process: ChildProcess };
  let a: Stack;
  let b: Stack;
  const prefix = `countsloss${process.pid}:`;
  const openAtSandbox = () => a.sandbox.state.engine.openOrders(PARTICIPANT).length;
  const insert = (stack: Stack, clordId: string) =>
    post(stack, '/exchange/v1/trading/orders', limit('SIDE_BUY', 1, 5, { clordId }), 'bot', { prefer: 'wait=20' });
  const answer = async (res: Response) => ({
    status: res.status,
    code: res.ok ? 'OK' : ((await json(res)).code as string),
  });
  /**
   * The rate-limit budget lost its cells with the rest and brings them back spent (its own rule, see
   * ratelimit-data-loss): a call it refuses (429, nothing sent) is made again until the budget answers.
   */
  const budgeted = (call: () => Promise<Response>) =>
    eventually(
      async () => answer(await call()),
      (one) => one.status !== 429,
      20_000,
      200,
    );

  beforeAll(async () => {
    redis = await startRedisServer(); // its own: this file flushes it
    a = await startExchangeStack(CLIENTS, { redis: true, gateway: withOpenLimit(redis.url, prefix) });
    b = await startExchangeStack(CLIENTS, {
      redis: true,
      reuseSandbox: a.sandbox,
      gateway: withOpenLimit(redis.url, prefix),
    });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    if (redis) await killed(redis.process);
  });

  it(`${MAX_OPEN} resting under maxOpenOrders ${MAX_OPEN}, then FLUSHALL: no insert passes the limit on either gateway; after a cancel, orders flow again`, async () => {
    for (let i = 0; i < MAX_OPEN; i++)
      expect(await answer(await insert(i % 2 ? b : a, `rest-${i}`))).toEqual({ status: 200, code: 'OK' });
    expect(await answer(await insert(a, 'full'))).toMatchObject({ code: 'RISK_MAX_OPEN_ORDERS' });
    expect(openAtSandbox()).toBe(MAX_OPEN);

    expect(await redisCli(redis.port, 'FLUSHALL')).toContain('OK');
    const storm = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => answer(await insert(i % 2 ? b : a, `after-flush-${i}`))),
    );
    const open = openAtSandbox();
    process.stdout.write(`after FLUSHALL: ${JSON.stringify(storm)}; open at the sandbox ${open} (limit ${MAX_OPEN})\n`);
    expect(open).toBe(MAX_OPEN);
    for (const one of storm) expect(REFUSED).toContain(one.code);

    // A cancel passes, gives its slot back, and one order (only one) fits again, whichever gateway takes it.
    const [first] = a.sandbox.state.engine.openOrders(PARTICIPANT);
    expect(await budgeted(() => post(b, '/exchange/v1/trading/orders/cancel', { orderId: first.id }, 'bot'))).toEqual({
      status: 200,
      code: 'OK',
    });
    expect(openAtSandbox()).toBe(MAX_OPEN - 1);
    expect(await budgeted(() => insert(a, 'after-cancel'))).toEqual({ status: 200, code: 'OK' });
    expect(await budgeted(() => insert(b, 'past-limit'))).toMatchObject({ code: 'RISK_MAX_OPEN_ORDERS' });
    expect(openAtSandbox()).toBe(MAX_OPEN);
  }, 60_000);

  it("while the counts cannot be rebuilt (the exchange's open orders unreadable) every insert is refused 503, nothing sent; once readable, orders flow again", async () => {
    expect(openAtSandbox()).toBe(MAX_OPEN);
    // The open-orders read loses its answer (the connection drops): the counts cannot be rebuilt.
    a.sandbox.state.setFaults({ exchangeAnswerFaults: { openOrders: { every: 1, drop: 1, hold: 0, holdMs: 0 } } });
    try {
      expect(await redisCli(redis.port, 'FLUSHALL')).toContain('OK');
      expect(await budgeted(() => insert(a, 'unreadable-a'))).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(await budgeted(() => insert(b, 'unreadable-b'))).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(openAtSandbox()).toBe(MAX_OPEN);
    } finally {
      a.sandbox.state.setFaults({ exchangeAnswerFaults: {} });
    }
    // Readable again (a cancel reads the open orders too, to check whose order it is): a cancel passes, one order fits, the next is refused.
    const [first] = a.sandbox.state.engine.openOrders(PARTICIPANT);
    expect(await budgeted(() => post(a, '/exchange/v1/trading/orders/cancel', { orderId: first.id }, 'bot'))).toEqual({
      status: 200,
      code: 'OK',
    });
    expect(await budgeted(() => insert(b, 'readable-again'))).toEqual({ status: 200, code: 'OK' });
    expect(await budgeted(() => insert(a, 'full-again'))).toMatchObject({ code: 'RISK_MAX_OPEN_ORDERS' });
    expect(openAtSandbox()).toBe(MAX_OPEN);
    process.stdout.write(
      'after FLUSHALL with the open orders unreadable: inserts refused 503 on both gateways; once readable, one order fitted after a cancel and the next was refused\n',
    );
  }, 60_000);

  it('an order in flight on one gateway when Redis loses its data is counted by the rebuild on the other: the limit holds', async () => {
    // One slot left: the order in flight takes it, so nothing else may pass.
    const [first] = a.sandbox.state.engine.openOrders(PARTICIPANT);
    expect(await budgeted(() => post(a, '/exchange/v1/trading/orders/cancel', { orderId: first.id }, 'bot'))).toEqual({
      status: 200,
      code: 'OK',
    });
    expect(openAtSandbox()).toBe(MAX_OPEN - 1);
    a.sandbox.state.setFaults({ exchangeDelayMs: { insertOrder: 2_000 } });
    try {
      const inFlight = insert(b, 'in-flight');
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await redisCli(redis.port, 'FLUSHALL')).toContain('OK');
      const after = await budgeted(() => insert(a, 'after-flush-in-flight'));
      const landed = await answer(await inFlight);
      const open = openAtSandbox();
      process.stdout.write(
        `FLUSHALL with an insert in flight on the other gateway: in flight ${JSON.stringify(landed)}, next ${JSON.stringify(after)}; open ${open} (limit ${MAX_OPEN})\n`,
      );
      expect(landed).toEqual({ status: 200, code: 'OK' });
      expect(REFUSED).toContain(after.code);
      expect(open).toBe(MAX_OPEN);
    } finally {
      a.sandbox.state.setFaults({ exchangeDelayMs: {} });
    }
  }, 60_000);
});
