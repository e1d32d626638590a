import { type GatewayProcess, spawnGateway } from './support/gateway-process.js';
import { fleetConfig } from './support/fleet.js';
import { FIRM, PARTICIPANT, type Json, type Stack, eventually, redisUrl, startStack } from './support/stack.js';
import { StallProxy } from './support/stall-proxy.js';
import { WsTestClient, seqGaps } from './support/ws-client.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const TOPIC = 'exchange.dropcopy';
const CALL = 'CreateDropCopySubscription';
const SYMBOL = 'aec-nba-lal-gsw-2026-11-21';
const EXECUTIONS = 1_000;

/** Execution ids of the topic's frames, in order. */
const idsOf = (frames: Json[]): string[] => frames.flatMap((f) => f.data.executions.map((e: { id: string }) => e.id));

async function subscribed(url: string, key: string): Promise<WsTestClient> {
  const client = await WsTestClient.open(url, { key });
  client.send({ type: 'subscribe', id: 'd', topics: [TOPIC] });
  await client.next((f) => f.type === 'ack', 15_000);
  return client;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('exchange drop copy when its holder is killed (two gateway processes, Redis)', () => {
  let stack: Stack | undefined;
  let proxy: StallProxy | undefined;
  const processes: GatewayProcess[] = [];
  const clients: WsTestClient[] = [];

  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await Promise.all(processes.splice(0).map((gateway) => gateway.stop()));
    await proxy?.close();
    await stack?.close();
  });

  it('the client on the survivor gets every execution once, in order, with continuous seq; never two drop-copy streams', async () => {
    stack = await startStack({ sandbox: { grpc: { heartbeatMs: 200 } } });
    // Redis answers the holder late (its commands arrive at once), as on a busy network: at the kill, batches
    // are in flight, some published (each with its resume token as the topic's checkpoint), some not.
    proxy = await StallProxy.start(Number(new URL(redisUrl()).port), { replyDelayMs: 20 });
    const name = `dcr${Date.now() % 100_000}x`;
    const slowRedis = (config: GatewayConfigInput) => ({
      ...config,
      redis: { ...config.redis!, url: proxy!.url, commandTimeoutMs: 1_000 },
    });
    const holder = await spawnGateway(fleetConfig(stack, name, slowRedis));
    processes.push(holder);
    const survivor = await spawnGateway(fleetConfig(stack, name));
    processes.push(survivor);
    const { state } = stack.sandbox;
    const key = stack.keys.all!;

    // The first subscriber's instance takes the lease and opens the firm's one drop-copy stream.
    clients.push(await subscribed(holder.url, key));
    await eventually(
      async () => state.streams.view().byCall[CALL] ?? 0,
      (n) => n === 1,
      10_000,
    );
    const client = await subscribed(survivor.url, key);
    clients.push(client);
    expect(state.counter(`grpc.streams.opened.${CALL}`)).toBe(1); // the survivor relays; the first instance holds

    const produced: string[] = [];
    const stop = state.engine.on('execution', ({ execution }) => {
      if (execution.order.account.startsWith(`firms/${FIRM}/`)) produced.push(execution.id);
    });
    const faults = await fetch(`${stack.sandbox.urls.exchange}/_sandbox/grpc/dropcopy/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ duplicate: true }),
    });
    expect(faults.status).toBe(200);

    // ~1,000 executions in small batches (resting buys, some filled by another firm's sells); the holder dies midway.
    let killed = false;
    for (let i = 0; produced.length < EXECUTIONS; i++) {
      state.engine.insert({
        symbol: SYMBOL,
        side: 'SIDE_BUY',
        orderQty: 1,
        price: 20 + (i % 30),
        timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
        account: PARTICIPANT,
      });
      if (i % 4 === 0)
        state.engine.insert({
          symbol: SYMBOL,
          side: 'SIDE_SELL',
          orderQty: 1,
          price: 1,
          timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
          account: 'firms/OTHERFIRM/users/carol',
        });
      await pause(i % 2); // one batch per insert, over a few seconds
      if (!killed && produced.length >= EXECUTIONS / 2) {
        killed = holder.process.kill('SIGKILL'); // no graceful close: no lease release, no last token save
      }
    }
    stop();
    expect(killed).toBe(true);

    const frames = await eventually(
      async () => client.topic(TOPIC),
      (f) => new Set(idsOf(f)).size >= produced.length,
      45_000,
    ).catch(() => client.topic(TOPIC));
    const received = idsOf(frames);
    expect(produced.length).toBeGreaterThanOrEqual(EXECUTIONS);
    // Nothing repeated, nothing lost, in production order.
    expect(received.length - new Set(received).size).toBe(0);
    expect(produced.filter((id) => !received.includes(id))).toEqual([]);
    expect(received).toEqual(produced);
    // One numbering: consecutive seq; a takeover's resync (if any) carries no execution to repeat.
    expect(seqGaps(frames)).toEqual([]);
    expect(frames.filter((f) => f.type === 'resync').every((f) => f.data.executions.length === 0)).toBe(true);
    // The survivor took the stream over; the sandbox never saw two drop-copy streams of the firm at once.
    expect(state.counter(`grpc.streams.opened.${CALL}`)).toBeGreaterThanOrEqual(2);
    expect(state.counter(`grpc.dropCopy.concurrent.${FIRM}`)).toBe(0);
  }, 120_000);
});
