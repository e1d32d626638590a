import { limit } from './support/exchange-stack.js';
import { type Fleet, startFleet } from './support/fleet.js';
import { caller } from './support/load.js';
import { PARTICIPANT, eventually, json } from './support/stack.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const BOT = {
  id: 'bot',
  team: 'trading',
  scopes: ['write:orders' as const, 'read:orders' as const],
  participants: [PARTICIPANT],
};
const READER = { id: 'reader', scopes: ['read:orders' as const] };
const same = (config: GatewayConfigInput) => config;

describe("the dead-man's switch", () => {
  let fleet: Fleet;
  const openAtSandbox = () => fleet.stack.sandbox.state.engine.openOrders(PARTICIPANT).length;

  beforeAll(async () => {
    fleet = await startFleet('deadman', 2, { clients: [BOT, READER] }, same);
  }, 120_000);
  afterAll(() => fleet?.close());

  it('fires after the instance that armed it was SIGKILLed', async () => {
    const [armedOn] = fleet.processes;
    const bot = caller(armedOn.url, fleet.stack.keys.bot);
    for (let i = 0; i < 3; i++)
      expect(
        (
          await bot('/exchange/v1/trading/orders', {
            method: 'POST',
            body: JSON.stringify(limit('SIDE_BUY', 1, 2 + i, { clordId: `dms-${i}` })),
          })
        ).status,
      ).toBe(200);
    const armed = await bot('/risk/v1/dead-man-switch', { method: 'POST', body: JSON.stringify({ seconds: 2 }) });
    expect(armed.status).toBe(200);
    expect((await json(armed)).firesAt).toEqual(expect.any(String));
    armedOn.process.kill('SIGKILL');
    expect(openAtSandbox()).toBe(3);
    await expect(
      eventually(
        async () => openAtSandbox(),
        (n) => n === 0,
        20_000,
        50,
      ),
    ).resolves.toBe(0);
    // The other process fired it (its log says so; pino may write the line a moment after the cancels).
    await expect(
      eventually(
        async () => fleet.processes[1].output().includes("dead-man's switch of bot fired"),
        (seen) => seen,
        5_000,
      ),
    ).resolves.toBe(true);
    // The run is on the journal: each order's timeline names what cancelled it and why.
    const timeline = await eventually(
      async () => json(await caller(fleet.processes[1].url, fleet.stack.keys.bot)('/orders/timeline?clordId=dms-0')),
      (body) => body.records?.some((record: { kind: string }) => record.kind === 'admin') === true,
      5_000,
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
