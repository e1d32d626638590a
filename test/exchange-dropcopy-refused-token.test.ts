import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { MetricsRegistry } from '@lib/core';

import { FIRM, PARTICIPANT, type Json, type Stack, eventually, startStack } from './support/stack.js';
import { WsTestClient } from './support/ws-client.js';
import type { GatewayConfigInput } from '../apps/gateway/src/config/gateway-config.schema.js';

const TOPIC = 'exchange.dropcopy';
const SYMBOL = 'aec-nba-lal-gsw-2026-11-21';
const REFUSED = 'gateway_exchange_grpc_resume_refused_total';

type SandboxState = Stack['sandbox']['state'];

async function metricValue(stack: Stack, name: string, labels: Record<string, string>): Promise<number> {
  const values = (await stack.gateway.get(MetricsRegistry).getSingleMetric(name)?.get())?.values ?? [];
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

/** The firm's executions as the engine makes them, in order, until `stop`. */
function recordFirmExecutions(state: SandboxState): { produced: string[]; stop: () => void } {
  const produced: string[] = [];
  const stop = state.engine.on('execution', ({ execution }) => {
    if (execution.order.account.startsWith(`firms/${FIRM}/`)) produced.push(execution.id);
  });
  return { produced, stop };
}

const restingBuys = (state: SandboxState, from: number, to: number) => {
  for (let i = from; i < to; i++)
    state.engine.insert({
      symbol: SYMBOL,
      side: 'SIDE_BUY',
      orderQty: 1,
      price: 20 + (i % 30),
      timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
      account: PARTICIPANT,
    });
};

const idsOf = (client: WsTestClient): string[] =>
  client.topic(TOPIC).flatMap((f) => f.data.executions.map((e: { id: string }) => e.id));

/** Subscribes from the start of the topic's window; resolves with the ack or the error frame that answers it. */
async function subscribe(stack: Stack): Promise<{ client: WsTestClient; answer: Json }> {
  const client = await WsTestClient.open(stack.url, { key: stack.keys.all });
  client.send({ type: 'subscribe', id: 'd', topics: [TOPIC], resumeFrom: { [TOPIC]: 0 } });
  const answer = await client.next((f) => f.id === 'd' && ['ack', 'error'].includes(f.type), 20_000);
  return { client, answer };
}

describe('exchange drop copy when the exchange refuses its stored resume token', () => {
  let dir: string;
  let resumeFile: string;
  const withResumeFile = (config: GatewayConfigInput) => ({
    ...config,
    exchange: { ...config.exchange, dropCopyResumeFile: resumeFile },
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dropcopy-refused-'));
    resumeFile = join(dir, 'resume');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('after the exchange restarted empty, the feed resumes by time from its last checkpoint: nothing since the restart is missed, no manual step', async () => {
    const before = await startStack({ sandbox: { grpc: { heartbeatMs: 200 } }, gateway: withResumeFile });
    let after: Stack | undefined;
    const clients: WsTestClient[] = [];
    try {
      const old = recordFirmExecutions(before.sandbox.state);
      const first = await subscribe(before);
      clients.push(first.client);
      expect(first.answer.type).toBe('ack');
      restingBuys(before.sandbox.state, 0, 30);
      await eventually(
        async () => idsOf(first.client).length,
        (n) => n >= old.produced.length,
        15_000,
      );
      old.stop();
      await eventually(
        async () => readFileSync(resumeFile, 'utf8'),
        (text) => text.length > 0,
      );
      await before.close(); // the gateway and the exchange go; the exchange comes back empty (a new sandbox)

      after = await startStack({ sandbox: { grpc: { heartbeatMs: 200 } }, gateway: withResumeFile });
      const { state } = after.sandbox;
      const fresh = recordFirmExecutions(state);
      restingBuys(state, 0, 20); // while no gateway holds the stream
      const second = await subscribe(after); // the stored token is one the new exchange never issued
      clients.push(second.client);
      expect(second.answer).toMatchObject({ type: 'ack', topics: [TOPIC] });
      restingBuys(state, 20, 40);
      fresh.stop();
      await eventually(
        async () => idsOf(second.client).length,
        (n) => n >= fresh.produced.length,
        15_000,
      );
      expect(idsOf(second.client)).toEqual(fresh.produced); // every execution since the restart, once, in order
      expect(await metricValue(after, REFUSED, { kind: 'dropCopy', fallback: 'time' })).toBe(1);
      // The refused token is replaced by one of the new exchange: the next start resumes from it.
      expect(Buffer.from(readFileSync(resumeFile, 'utf8').split('@')[0]!, 'base64').toString()).toMatch(/^dc1:\d+$/);
    } finally {
      for (const client of clients) client.close();
      await after?.close().catch(() => undefined);
      await before.close().catch(() => undefined);
    }
  }, 60_000);

  it('a refused token with no checkpoint time (kept by an older gateway) starts the feed live with a resync', async () => {
    writeFileSync(resumeFile, Buffer.from('dc1:999999').toString('base64')); // a position the exchange never reached
    const stack = await startStack({ sandbox: { grpc: { heartbeatMs: 200 } }, gateway: withResumeFile });
    let client: WsTestClient | undefined;
    try {
      const { state } = stack.sandbox;
      const subscribed = await subscribe(stack);
      client = subscribed.client;
      expect(subscribed.answer).toMatchObject({ type: 'ack', topics: [TOPIC] });
      const { produced, stop } = recordFirmExecutions(state);
      restingBuys(state, 0, 20);
      stop();
      await eventually(
        async () => idsOf(client!).length,
        (n) => n >= produced.length,
        15_000,
      );
      expect(idsOf(client)).toEqual(produced);
      expect(await metricValue(stack, REFUSED, { kind: 'dropCopy', fallback: 'live' })).toBe(1);
    } finally {
      client?.close();
      await stack.close();
    }
  }, 30_000);

  it('an error frame names the stream kind that failed', async () => {
    // The firm's exchange client lacks read:dropcopy: the exchange refuses the drop-copy call itself.
    const scopes = ['read:marketdata', 'read:l2marketdata', 'read:instruments', 'read:orders', 'write:orders'] as const;
    const stack = await startStack({
      sandbox: {
        exchange: { clients: [{ clientId: 'gateway-test', firm: FIRM, users: ['alice', 'bob'], scopes: [...scopes] }] },
      },
      gateway: withResumeFile,
    });
    let client: WsTestClient | undefined;
    try {
      const subscribed = await subscribe(stack);
      client = subscribed.client;
      expect(subscribed.answer).toMatchObject({ type: 'error', topic: TOPIC, code: 'upstream_failed' });
      expect(subscribed.answer.message).toMatch(/^The exchange drop-copy stream ended with PERMISSION_DENIED/);
    } finally {
      client?.close();
      await stack.close();
    }
  }, 30_000);

  it('while a gateway holds the stream (Redis checkpoint), the exchange restarts empty: the feed comes back by itself from its checkpoint time, every execution once', async () => {
    const stack = await startStack({ redis: true, sandbox: { grpc: { heartbeatMs: 200 } } });
    let client: WsTestClient | undefined;
    try {
      const { state } = stack.sandbox;
      const { produced, stop } = recordFirmExecutions(state);
      const subscribed = await subscribe(stack);
      client = subscribed.client;
      restingBuys(state, 0, 20);
      await eventually(
        async () => idsOf(client!).length,
        (n) => n >= produced.length,
        15_000,
      );
      const restart = await fetch(`${stack.sandbox.urls.exchange}/_sandbox/grpc/dropcopy/restart`, { method: 'POST' });
      expect(restart.status).toBe(200);
      restingBuys(state, 20, 40); // in the new log, while the gateway reconnects
      stop();
      await eventually(
        async () => idsOf(client!).length,
        (n) => n >= produced.length,
        15_000,
      );
      expect(idsOf(client)).toEqual(produced); // nothing lost across the restart, nothing repeated
      expect(await metricValue(stack, REFUSED, { kind: 'dropCopy', fallback: 'time' })).toBe(1);
      expect(await metricValue(stack, REFUSED, { kind: 'dropCopy', fallback: 'live' })).toBe(0);
    } finally {
      client?.close();
      await stack.close();
    }
  }, 30_000);
});
