import { status as GrpcStatus } from '@grpc/grpc-js';
import { MetricsRegistry } from '@lib/core';
import { MarketDataStreams, type MarketDataUpdateMessage } from '@lib/exchange';
import type { TopicSink } from '@lib/fanout';

import { SandboxGrpcClient } from './support/sandbox-grpc.js';
import { FIRM, PARTICIPANT, type Stack, eventually, startStack } from './support/stack.js';

const SYMBOL = 'aec-nfl-buf-kc-2026-11-22';
const OTHER_SYMBOL = 'aec-nfl-dal-phi-2026-11-22';
const TOPIC = `exchange.marketData.${SYMBOL}`;

function messageView(update: MarketDataUpdateMessage): string {
  const side = (entries: MarketDataUpdateMessage['bids']) => entries.map((e) => [e.px, e.qty]);
  const time = update.transactTime ? Number(update.transactTime.seconds) * 1000 + update.transactTime.nanos / 1e6 : NaN;
  return JSON.stringify([side(update.bids), side(update.offers), update.state, time]);
}

class RecordingSink implements TopicSink {
  readonly events: { kind: 'snapshot' | 'update' | 'gap'; update?: MarketDataUpdateMessage }[] = [];
  snapshot(payload: unknown): void {
    this.events.push({ kind: 'snapshot', update: payload as MarketDataUpdateMessage });
  }
  update(payload: unknown): void {
    this.events.push({ kind: 'update', update: payload as MarketDataUpdateMessage });
  }
  gap(): void {
    this.events.push({ kind: 'gap' });
  }
  kinds(): string[] {
    return this.events.map((e) => e.kind);
  }
  views(): string[] {
    return this.events.flatMap((e) => (e.update ? [messageView(e.update)] : []));
  }
}

/** One change of SYMBOL's top 10 levels per call: bids only, so nothing trades. */
function changeBook(stack: Stack, i: number): void {
  stack.sandbox.state.engine.insert({
    symbol: SYMBOL,
    side: 'SIDE_BUY',
    orderQty: 1 + (i % 5),
    price: 30 + (i % 10),
    timeInForce: 'TIME_IN_FORCE_GOOD_TILL_CANCEL',
    account: PARTICIPANT,
  });
}

async function metricValue(stack: Stack, name: string, labels: Record<string, string>): Promise<number> {
  const values = (await stack.gateway.get(MetricsRegistry).getSingleMetric(name)?.get())?.values ?? [];
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

interface RawMessage {
  event: string;
  update?: { symbol: string };
}

/** A direct gRPC client of the sandbox built from the proto files by the sandbox's loader, as any exchange client would be. */
function rawSubscriber(stack: Stack) {
  const client = new SandboxGrpcClient(stack.sandbox);
  const subscribe = (request: { symbols: string[]; snapshotOnly?: boolean }, token?: string) => {
    const call = client.serverStream<RawMessage>('marketData', 'CreateMarketDataSubscription', request, { token });
    return { call, messages: call.messages, status: call.status };
  };
  return { subscribe, close: () => client.close() };
}

function tokenOf(stack: Stack, clientId: string): string {
  return new SandboxGrpcClient(stack.sandbox).token(clientId);
}

describe('exchange gRPC market data', () => {
  describe('on one stack', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({
        sandbox: {
          exchange: {
            clients: [
              { clientId: 'gateway-test', firm: FIRM, users: ['alice', 'bob'] },
              { clientId: 'no-market-data', firm: 'OTHERFIRM', users: ['carol'], scopes: ['read:instruments'] },
              { clientId: 'other-firm', firm: 'THIRDFIRM', users: ['dave'] },
            ],
          },
        },
      });
      stack.sandbox.state.marketDataStreams.heartbeatMs = 100;
    });
    afterAll(() => stack.close());
    afterEach(() =>
      eventually(
        async () => stack.sandbox.state.marketDataStreams.openStreams(),
        (open) => open === 0,
      ),
    );

    it('reconnects after the exchange drops its streams: a gap, then a fresh snapshot', async () => {
      const { state } = stack.sandbox;
      const streams = stack.gateway.get(MarketDataStreams);
      const sink = new RecordingSink();
      await streams.open(TOPIC, sink);
      changeBook(stack, 1);
      await eventually(
        async () => sink.kinds(),
        (kinds) => kinds.length === 2,
      );

      expect(state.endMarketDataStreams()).toBe(1);
      await eventually(
        async () => sink.kinds(),
        (kinds) => kinds.length === 4,
      );
      changeBook(stack, 2);
      await eventually(
        async () => sink.kinds(),
        (kinds) => kinds.length === 5,
      );
      streams.close(TOPIC);

      expect(sink.kinds()).toEqual(['snapshot', 'update', 'gap', 'snapshot', 'update']);
      expect(sink.events[3].update!.bids).toEqual(sink.events[1].update!.bids); // the fresh snapshot is the current book
      expect(state.counter('grpc.marketData.ended.reset')).toBe(1);
      expect(await metricValue(stack, 'gateway_exchange_grpc_stream_reconnects_total', { code: 'UNAVAILABLE' })).toBe(
        1,
      );
    });

    it('answers UNAUTHENTICATED on reconnect with one token refresh, then resumes', async () => {
      const { state } = stack.sandbox;
      const streams = stack.gateway.get(MarketDataStreams);
      const sink = new RecordingSink();
      await streams.open(TOPIC, sink);
      const tokensBefore = state.counter('token.accepted');
      state.revokeAccessTokens();
      state.endMarketDataStreams();
      await eventually(
        async () => sink.kinds(),
        (kinds) => kinds.at(-1) === 'snapshot' && kinds.includes('gap'),
      );
      streams.close(TOPIC);

      expect(state.counter('exchange.rejected.revoked')).toBe(1);
      expect(state.counter('token.accepted')).toBe(tokensBefore + 1);
    });

    it('sends the snapshots and ends the stream when asked for snapshot_only', async () => {
      const raw = rawSubscriber(stack);
      try {
        const { messages, status } = raw.subscribe(
          { symbols: [SYMBOL, OTHER_SYMBOL], snapshotOnly: true },
          tokenOf(stack, 'gateway-test'),
        );
        expect(await status).toMatchObject({ code: GrpcStatus.OK });
        expect(messages.map((m) => m.update?.symbol ?? m.event)).toEqual([SYMBOL, OTHER_SYMBOL]);
        expect(messages[0]).toMatchObject({
          update: { state: 'INSTRUMENT_STATE_OPEN', priceScale: 2, transactTime: { seconds: expect.any(String) } },
        });
        expect(stack.sandbox.state.counter('grpc.marketData.ended.snapshot_only')).toBe(1);
      } finally {
        raw.close();
      }
    });

    it('refuses the 21st concurrent stream of one firm with RESOURCE_EXHAUSTED', async () => {
      const raw = rawSubscriber(stack);
      const token = tokenOf(stack, 'gateway-test');
      const open = Array.from({ length: 20 }, () => raw.subscribe({ symbols: [SYMBOL] }, token));
      try {
        await eventually(async () => open.every((s) => s.messages.length > 0), Boolean);
        const refused = raw.subscribe({ symbols: [SYMBOL] }, token);
        expect(await refused.status).toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED });
        expect(stack.sandbox.state.marketDataStreams.openStreams({ firm: FIRM })).toBe(20);
        // The limit is per firm: another firm still gets its stream.
        const other = raw.subscribe({ symbols: [SYMBOL] }, tokenOf(stack, 'other-firm'));
        open.push(other);
        await eventually(
          async () => other.messages.length,
          (n) => n > 0,
        );
        expect(stack.sandbox.state.counter('grpc.marketData.refused.resource_exhausted')).toBe(1);
      } finally {
        for (const s of open) s.call.cancel();
        raw.close();
      }
    });

    it('refuses a missing token, a missing scope and an unknown symbol', async () => {
      const raw = rawSubscriber(stack);
      try {
        expect(await raw.subscribe({ symbols: [SYMBOL] }).status).toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
        expect(await raw.subscribe({ symbols: [SYMBOL] }, 'not-a-token').status).toMatchObject({
          code: GrpcStatus.UNAUTHENTICATED,
        });
        expect(await raw.subscribe({ symbols: [SYMBOL] }, tokenOf(stack, 'no-market-data')).status).toMatchObject({
          code: GrpcStatus.PERMISSION_DENIED,
          details: 'permission denied: missing required scope read:marketdata',
        });
        expect(await raw.subscribe({ symbols: ['aec-nope'] }, tokenOf(stack, 'gateway-test')).status).toMatchObject({
          code: GrpcStatus.INVALID_ARGUMENT,
        });
      } finally {
        raw.close();
      }
    });
  });

  it('fails the open with the upstream refusal when the gateway lacks read:marketdata', async () => {
    const stack = await startStack({
      sandbox: {
        exchange: {
          clients: [{ clientId: 'gateway-test', firm: FIRM, users: ['alice'], scopes: ['read:instruments'] }],
        },
      },
    });
    try {
      const streams = stack.gateway.get(MarketDataStreams);
      await expect(streams.open(TOPIC, new RecordingSink())).rejects.toMatchObject({ code: 'UPSTREAM_FORBIDDEN' });
      expect(streams.topics()).toEqual([]);
      expect(stack.sandbox.state.counter('grpc.marketData.refused.missing_scope')).toBe(1);
    } finally {
      await stack.close();
    }
  });
});
