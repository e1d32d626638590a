import { createRedisClient } from '@lib/core';
import { WebSocket } from 'ws';

import { limit } from './support/exchange-stack.js';
import { type Fleet, fleetConfig, startFleet } from './support/fleet.js';
import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { caller } from './support/load.js';
import { PARTICIPANT, eventually, json, redisUrl } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const BOT = {
  id: 'bot',
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
};
const READER = { id: 'reader', scopes: ['read:orders' as const] };
const same = (config: GatewayConfigInput) => config;

describe("the dead-man's switch and cancel-on-disconnect, when gateway instances die", () => {
  let fleet: Fleet;
  const openAtSandbox = () => fleet.stack.sandbox.state.engine.openOrders(PARTICIPANT).length;

  beforeAll(async () => {
    fleet = await startFleet('deadman', 3, { clients: [BOT, READER] }, same);
  }, 120_000);
  afterAll(() => fleet?.close());

  const allCancelled = () =>
    expect(
      eventually(
        async () => openAtSandbox(),
        (n) => n === 0,
        20_000,
        50,
      ),
    ).resolves.toBe(0);
  const place = async (url: string, clordId: string, price: number) =>
    expect(
      (
        await caller(url, fleet.stack.keys.bot)('/exchange/v1/trading/orders', {
          method: 'POST',
          body: JSON.stringify(limit('SIDE_BUY', 1, price, { clordId })),
        })
      ).status,
    ).toBe(200);

  it("cancels a bot's orders after its grace when the instance its connection closed on was SIGKILLed meanwhile", async () => {
    const holder = fleet.processes[2];
    const ws = new WebSocket(`${holder.url.replace(/^http/, 'ws')}/ws?cancelOnDisconnect=2`, {
      headers: { authorization: `Bearer ${fleet.stack.keys.bot}` },
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    for (let i = 0; i < 2; i++) await place(holder.url, `cod-kill-${i}`, 2 + i);
    ws.terminate();
    // Once the holder has made the bot due (its grace, in Redis), the holder's death loses nothing.
    const redis = createRedisClient({
      mode: 'single',
      url: redisUrl(),
      keyPrefix: '',
      commandTimeoutMs: 500,
      connectTimeoutMs: 500,
    });
    try {
      if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
      await eventually(
        () => redis.zscore(`deadman${process.pid}:{risk}:cod-due`, 'bot'),
        (score) => score !== null,
        10_000,
        20,
      );
    } finally {
      redis.disconnect();
    }
    holder.process.kill('SIGKILL');
    expect(openAtSandbox()).toBe(2);
    await allCancelled();
  });

  it('answers an instant of the shared clock, not of the instance it was armed on', async () => {
    // An instance whose wall clock is 40 s ahead: before, it stored and answered its own instant (60 s away).
    let skewed: GatewayProcess | undefined;
    try {
      skewed = await spawnGateway(fleetConfig(fleet.stack, 'deadman', same), { wallClock: { offsetMs: 40_000 } });
      const bot = caller(skewed.url, fleet.stack.keys.bot);
      const asked = Date.now();
      const armed = await bot('/risk/v1/dead-man-switch', { method: 'POST', body: JSON.stringify({ seconds: 20 }) });
      expect(armed.status).toBe(200);
      const firesIn = Date.parse((await json(armed)).firesAt) - asked;
      expect({ firesIn, within: firesIn > 15_000 && firesIn < 25_000 }).toMatchObject({ within: true });
      expect((await bot('/risk/v1/dead-man-switch', { method: 'DELETE' })).status).toBe(204);
    } finally {
      await skewed?.stop();
    }
  });

  it('fires after the instance that armed it was SIGKILLed', async () => {
    const [armedOn] = fleet.processes;
    const bot = caller(armedOn.url, fleet.stack.keys.bot);
    for (let i = 0; i < 3; i++) await place(armedOn.url, `dms-${i}`, 2 + i);
    const armed = await bot('/risk/v1/dead-man-switch', { method: 'POST', body: JSON.stringify({ seconds: 2 }) });
    expect(armed.status).toBe(200);
    expect((await json(armed)).firesAt).toEqual(expect.any(String));
    armedOn.process.kill('SIGKILL');
    expect(openAtSandbox()).toBe(3);
    await allCancelled();
    // Another process fired it (its log says so once the run's report is complete: after the cancels it
    // follows them on the order stream, which a busy machine may take seconds over, and waits out the
    // client's order-entering calls the journal shows in flight, up to `journal.inFlightStaleMs`, 30 s).
    await expect(
      eventually(
        async () =>
          fleet.processes.slice(1).some((process) => process.output().includes("dead-man's switch of bot fired")),
        (seen) => seen,
        45_000,
      ),
    ).resolves.toBe(true);
    // The run is on the journal: each order's timeline names what cancelled it and why.
    const timeline = await eventually(
      async () => json(await caller(fleet.processes[1].url, fleet.stack.keys.bot)('/orders/timeline?clordId=dms-0')),
      (body) => body.records?.some((record: { kind: string }) => record.kind === 'admin') === true,
      20_000,
    );
    expect(timeline.records.find((record: { kind: string }) => record.kind === 'admin')).toMatchObject({
      data: { action: 'dead-man-switch', outcome: 'cancelled', scope: 'client:bot', by: 'bot' },
    });
  });

  it('asks write:orders and 1 to 3,600 seconds', async () => {
    const live = fleet.processes[1].url;
    expect((await fetch(`${live}/risk/v1/dead-man-switch`, { method: 'POST' })).status).toBe(401);
    expect(
      (
        await caller(live, fleet.stack.keys.reader)('/risk/v1/dead-man-switch', {
          method: 'POST',
          body: JSON.stringify({ seconds: 5 }),
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await caller(live, fleet.stack.keys.bot)('/risk/v1/dead-man-switch', {
          method: 'POST',
          body: JSON.stringify({ seconds: 0 }),
        })
      ).status,
    ).toBe(400);
    expect((await caller(live, fleet.stack.keys.bot)('/risk/v1/dead-man-switch', { method: 'DELETE' })).status).toBe(
      204,
    );
  });
});
