import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { MetricsRegistry, createRedisClient } from '@lib/core';

import { FIRM, PARTICIPANT, type Stack, eventually, redisUrl, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const TOPIC = 'exchange.dropcopy';
const SYMBOL = 'aec-nba-lal-gsw-2026-11-21';
const CALL = 'CreateDropCopySubscription';

async function metricValue(stack: Stack, name: string, labels: Record<string, string> = {}): Promise<number> {
  const values = (await stack.gateway.get(MetricsRegistry).getSingleMetric(name)?.get())?.values ?? [];
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

/** `resumeFrom: 0`: every batch since the holder opened the stream (its replay window), the backlog included. */
async function subscribed(stack: Stack): Promise<WsTestClient> {
  const client = await WsTestClient.open(stack.url, { key: stack.keys.all });
  client.send({ type: 'subscribe', id: 'd', topics: [TOPIC], resumeFrom: { [TOPIC]: 0 } });
  await client.next((f) => f.type === 'ack', 10_000);
  return client;
}

/** Execution ids received on the topic, in order. */
const idsOf = (client: WsTestClient): string[] =>
  client.topic(TOPIC).flatMap((f) => f.data.executions.map((e: { id: string }) => e.id));

type SandboxState = Stack['sandbox']['state'];

/** The firm's executions as the engine makes them, in order, until `stop`. */
function recordFirmExecutions(state: SandboxState): { produced: string[]; stop: () => void } {
  const produced: string[] = [];
  const stop = state.engine.on('execution', ({ execution }) => {
    if (execution.order.account.startsWith(`firms/${FIRM}/`)) produced.push(execution.id);
  });
  return { produced, stop };
}

/** A resting buy of the firm's participant: one execution (new). */
const restingBuy = (state: SandboxState, i: number) =>
  state.engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_BUY',
    orderQty: 1,
    price: 20 + (i % 30),
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: PARTICIPANT,
  });

describe('exchange drop copy on /ws', () => {
  it('delivers every execution of the firm once despite duplicated batches, and resumes after a restart from the stored token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dropcopy-'));
    const resumeFile = join(dir, 'resume');
    const gateway = (config: GatewayConfigInput) => ({
      ...config,
      exchange: { ...config.exchange, dropCopyResumeFile: resumeFile },
    });
    const first = await startStack({ sandbox: { grpc: { heartbeatMs: 200 } }, gateway });
    let second: Stack | undefined;
    const clients: WsTestClient[] = [];
    try {
      const { state } = first.sandbox;
      const { produced, stop } = recordFirmExecutions(state);
      const trade = (i: number) => {
        restingBuy(state, i);
        if (i % 3 === 0)
          state.engine.insert({
            symbol: SYMBOL,
            side: 'SIDE_SELL',
            orderQty: 1,
            price: 1,
            timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
            account: 'firms/OTHERFIRM/users/carol',
          });
      };
      clients.push(await subscribed(first));
      const faults = await fetch(`${first.sandbox.urls.exchange}/_sandbox/grpc/dropcopy/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ duplicate: true }),
      });
      expect(faults.status).toBe(200);
      for (let i = 0; i < 150; i++) trade(i);
      await eventually(
        async () => idsOf(clients[0]!).length,
        (n) => n >= produced.length,
        15_000,
      );
      expect(idsOf(clients[0]!)).toEqual(produced); // every execution, once, in order
      // Each batch came twice; the second copies were dropped, not delivered.
      await eventually(
        async () => metricValue(first, 'gateway_exchange_grpc_duplicates_dropped_total', { kind: 'dropCopy' }),
        (n) => n >= produced.length,
      );
      expect(idsOf(clients[0]!)).toEqual(produced);
      expect(clients[0]!.topic(TOPIC).map((f) => f.seq)).toEqual(clients[0]!.topic(TOPIC).map((_, i) => i + 1));
      const beforeRestart = produced.length;

      // The holder goes away; executions go on; the next holder resumes from the stored token.
      clients[0]!.close();
      await first.gateway.close();
      for (let i = 150; i < 240; i++) trade(i);
      second = await startStack({ reuseSandbox: first.sandbox, gateway });
      clients.push(await subscribed(second));
      for (let i = 240; i < 260; i++) trade(i);
      stop();
      await eventually(
        async () => idsOf(clients[1]!).length,
        (n) => n >= produced.length - beforeRestart,
        15_000,
      );
      expect(idsOf(clients[1]!)).toEqual(produced.slice(beforeRestart)); // the missed ones replayed, none repeated
      expect(state.counter(`grpc.dropCopy.concurrent.${FIRM}`)).toBe(0); // never two drop-copy streams at once
      expect(state.streams.view().byCall[CALL]).toBe(1);
    } finally {
      for (const client of clients) client.close();
      await second?.gateway.close();
      await first.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('exchange drop copy across a takeover (two instances, Redis)', () => {
  it('the other instance takes the stream over from the stored token: its client gets every execution once, in order', async () => {
    const redisKeyPrefix = `dc${process.pid}:${Date.now()}:`;
    const a = await startStack({ redis: true, redisKeyPrefix, sandbox: { grpc: { heartbeatMs: 200 } } });
    let b: Stack | undefined;
    const clients: WsTestClient[] = [];
    try {
      const { state } = a.sandbox;
      const { produced, stop } = recordFirmExecutions(state);
      const trade = (i: number) => restingBuy(state, i);
      clients.push(await subscribed(a)); // a holds the topic and the drop-copy stream
      b = await startStack({ redis: true, redisKeyPrefix, reuseSandbox: a.sandbox });
      clients.push(await subscribed(b)); // b relays it
      await fetch(`${a.sandbox.urls.exchange}/_sandbox/grpc/dropcopy/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ duplicate: true }),
      });
      for (let i = 0; i < 100; i++) trade(i);
      await eventually(
        async () => idsOf(clients[1]!).length,
        (n) => n >= produced.length,
        15_000,
      );

      await a.gateway.close(); // the holder goes; b takes the topic over and resumes from the token in Redis
      for (let i = 100; i < 200; i++) {
        trade(i);
        if (i % 20 === 0) await new Promise((r) => setTimeout(r, 50));
      }
      stop();
      const frames = await eventually(
        async () => clients[1]!.topic(TOPIC),
        () => new Set(idsOf(clients[1]!)).size >= produced.length,
        20_000,
      );
      // Every execution once and in order; a resync, if the takeover sent one, carries no execution to repeat.
      expect(idsOf(clients[1]!)).toEqual(produced);
      expect(frames.filter((f) => f.type === 'resync').every((f) => f.data.executions.length === 0)).toBe(true);
      expect(state.counter(`grpc.dropCopy.concurrent.${FIRM}`)).toBe(0);
      expect(state.counter(`grpc.streams.opened.${CALL}`)).toBe(2); // a's, then b's after the takeover
      expect(
        await metricValue(b, 'gateway_exchange_grpc_executions_delivered_total', { kind: 'dropCopy' }),
      ).toBeGreaterThan(0);
    } finally {
      for (const client of clients) client.close();
      await b?.gateway.close();
      await a.close().catch(() => undefined);
    }
  }, 60_000);
});

describe('exchange drop copy after an upgrade to topic checkpoints (Redis)', () => {
  it('resumes from the token an older gateway kept under its own Redis key while the topic has no checkpoint', async () => {
    // The token of a first holder (kept in a file here), put where gateways before checkpoints kept it in Redis.
    const dir = mkdtempSync(join(tmpdir(), 'dropcopy-upgrade-'));
    const resumeFile = join(dir, 'resume');
    const older = await startStack({
      sandbox: { grpc: { heartbeatMs: 200 } },
      gateway: (config) => ({ ...config, exchange: { ...config.exchange, dropCopyResumeFile: resumeFile } }),
    });
    const redisKeyPrefix = `dcu${process.pid}:${Date.now()}:`;
    const redis = createRedisClient({
      mode: 'single',
      url: redisUrl(),
      keyPrefix: '',
      commandTimeoutMs: 2_000,
      connectTimeoutMs: 2_000,
    });
    let upgraded: Stack | undefined;
    const clients: WsTestClient[] = [];
    try {
      const { state } = older.sandbox;
      const { produced, stop } = recordFirmExecutions(state);
      clients.push(await subscribed(older));
      for (let i = 0; i < 40; i++) restingBuy(state, i);
      await eventually(
        async () => idsOf(clients[0]!).length,
        (n) => n >= produced.length,
        15_000,
      );
      clients[0]!.close();
      await older.gateway.close();
      const before = produced.length;
      await redis.set(`${redisKeyPrefix}exchange:dropcopy:resume:development`, readFileSync(resumeFile, 'utf8'));

      for (let i = 40; i < 80; i++) restingBuy(state, i); // while no gateway holds the stream
      upgraded = await startStack({ redis: true, redisKeyPrefix, reuseSandbox: older.sandbox });
      clients.push(await subscribed(upgraded));
      stop();
      await eventually(
        async () => idsOf(clients[1]!).length,
        (n) => n >= produced.length - before,
        15_000,
      );
      expect(idsOf(clients[1]!)).toEqual(produced.slice(before)); // the missed ones replayed, none repeated
    } finally {
      for (const client of clients) client.close();
      await upgraded?.gateway.close();
      await older.close().catch(() => undefined);
      await redis.quit().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('exchange trade capture on /ws', () => {
  it('delivers each trade of the firm once despite duplicated batches', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trades-'));
    const stack = await startStack({
      sandbox: { grpc: { heartbeatMs: 200 } },
      gateway: (config) => ({ ...config, exchange: { ...config.exchange, dropCopyResumeFile: join(dir, 'resume') } }),
    });
    const client = await WsTestClient.open(stack.url, { key: stack.keys.all });
    try {
      const { state } = stack.sandbox;
      const trades: string[] = [];
      const stop = state.engine.on('trade', ({ trade }) => trades.push(trade.tradeId));
      client.send({ type: 'subscribe', id: 't', topics: ['exchange.trades'], resumeFrom: { 'exchange.trades': 0 } });
      await client.next((f) => f.type === 'ack', 10_000);
      await fetch(`${stack.sandbox.urls.exchange}/_sandbox/grpc/dropcopy/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ duplicate: true }),
      });
      for (let i = 0; i < 30; i++) {
        state.engine.insert({
          symbol: SYMBOL,
          side: 'SIDE_BUY',
          orderQty: 1,
          price: 60,
          timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
          account: PARTICIPANT,
        });
        state.engine.insert({
          symbol: SYMBOL,
          side: 'SIDE_SELL',
          orderQty: 1,
          price: 60,
          timeInForce: 'TIME_IN_FORCE_IMMEDIATE_OR_CANCEL',
          account: 'firms/OTHERFIRM/users/carol',
        });
      }
      stop();
      const received = () =>
        client.topic('exchange.trades').flatMap((f) => f.data.tradeCaptureReports.map((t: { id: string }) => t.id));
      await eventually(
        async () => received().length,
        (n) => n >= trades.length,
        10_000,
      );
      await eventually(
        async () => metricValue(stack, 'gateway_exchange_grpc_duplicates_dropped_total', { kind: 'trades' }),
        (n) => n >= trades.length,
      );
      expect(trades).toHaveLength(30);
      expect(received()).toEqual(trades);
    } finally {
      client.close();
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
