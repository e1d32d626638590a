import { EventEmitter } from 'node:events';

import { type ClientReadableStream, status as GrpcStatus } from '@grpc/grpc-js';
import { MetricsRegistry } from '@lib/core';
import type { TopicSink } from '@lib/fanout';

import type { FeedTiming } from './feed-timing.js';
import { MarketDataMetrics } from './market-data.metrics.js';
import type { MarketDataResponseMessage, MarketDataUpdateMessage } from './market-data.messages.js';
import { type FeedDeps, SymbolFeed } from './symbol-feed.js';
import { type StreamToken, UpstreamCall } from './upstream-call.js';

/** Stands in for a grpc-js client stream: the test pushes messages and ends it. */
class FakeStream extends EventEmitter {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
  }
  send(n: number, stampedAt = n): void {
    this.emit('data', { event: 'update', update: { ...book(n), transactTime: { seconds: String(stampedAt), nanos: 0 } } } satisfies MarketDataResponseMessage);
  }
  finish(code: GrpcStatus, details = ''): void {
    this.emit('status', { code, details });
  }
}

/** Book state n: one bid level at n, stamped n seconds. */
function book(n: number): MarketDataUpdateMessage {
  return {
    symbol: 'S',
    bids: [{ px: String(n), qty: '1' }],
    offers: [],
    state: 'INSTRUMENT_STATE_OPEN',
    stats: null,
    transactTime: { seconds: String(n), nanos: 0 },
    bookHidden: false,
    priceScale: 2,
    quantityScale: 0,
  };
}

const TIMING: FeedTiming = {
  renewLeadMs: () => 600,
  renewRetryMs: 20,
  handoverTimeoutMs: 300,
  openTimeoutMs: 500,
  silenceMs: 5_000,
  backoffInitialMs: 10,
  backoffMaxMs: 20,
};
// Renewal 400 ms after a stream opens; generous bounds, so a loaded machine does not trip them.
const LIFETIME_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function harness() {
  const streams: FakeStream[] = [];
  const seen: string[] = [];
  const sink: TopicSink = {
    snapshot: (p) => seen.push(`snapshot ${(p as MarketDataUpdateMessage).bids[0].px}`),
    update: (p) => seen.push(`update ${(p as MarketDataUpdateMessage).bids[0].px}`),
    gap: () => seen.push('gap'),
  };
  let tokens = 0;
  const rejected: string[] = [];
  const metrics = new MarketDataMetrics(new MetricsRegistry());
  const deps: FeedDeps = {
    // Every call gets a new token, so a renewal is never held back waiting for one.
    token: async (): Promise<StreamToken> => ({ authorization: `Bearer t${++tokens}`, expiresAt: Date.now() + LIFETIME_MS, lifetimeMs: LIFETIME_MS }),
    open: (_symbol, token, listener) => {
      const stream = new FakeStream();
      streams.push(stream);
      return new UpstreamCall(stream as unknown as ClientReadableStream<MarketDataResponseMessage>, token, listener, metrics, TIMING.silenceMs);
    },
    rejected: (authorization) => rejected.push(authorization),
    metrics,
    timing: TIMING,
    now: () => Date.now(),
    warn: () => undefined,
  };
  const sut = new SymbolFeed('S', sink, deps);
  const until = async (probe: () => boolean) => {
    for (let i = 0; i < 400 && !probe(); i++) await sleep(5);
    if (!probe()) throw new Error('condition not met');
  };
  /** Opens the feed and answers with snapshot 1. */
  const established = async () => {
    const ready = sut.start();
    await until(() => streams.length === 1);
    streams[0].send(1);
    await ready;
  };
  /** The same, then waits for the renewal stream, opened ahead of expiry. */
  const renewing = async () => {
    await established();
    await until(() => streams.length === 2);
  };
  return { sut, streams, seen, rejected, until, established, renewing };
}

describe(SymbolFeed.name, () => {
  it('switches to the renewal when the old stream catches up with its snapshot, delivering each state once', async () => {
    const { sut, streams, seen, renewing } = harness();
    await renewing();
    streams[1].send(2); // the replacement already holds state 2...
    streams[1].send(3);
    expect(streams[0].cancelled).toBe(false);
    streams[0].send(2); // ...which the old stream reaches now
    expect(streams[0].cancelled).toBe(true);
    streams[1].send(4);
    sut.close();
    expect(seen).toEqual(['snapshot 1', 'update 2', 'update 3', 'update 4']);
  });

  it('drops what the renewal repeats when the old stream ran ahead', async () => {
    const { sut, streams, seen, renewing } = harness();
    await renewing();
    streams[0].send(2);
    streams[0].send(3);
    streams[1].send(2); // its snapshot: older than what was delivered
    streams[1].send(3);
    streams[1].send(4);
    sut.close();
    expect(seen).toEqual(['snapshot 1', 'update 2', 'update 3', 'update 4']);
  });

  it('resyncs with a gap when the old stream dies before the switch', async () => {
    const { sut, streams, seen, renewing } = harness();
    await renewing();
    streams[1].send(5);
    streams[0].finish(GrpcStatus.UNAVAILABLE, 'gone');
    streams[1].send(6);
    sut.close();
    expect(seen).toEqual(['snapshot 1', 'gap', 'snapshot 5', 'update 6']);
  });

  it('switches silently after the handover timeout when the renewal shows the same book with a newer stamp', async () => {
    const { sut, streams, seen, until, renewing } = harness();
    await renewing();
    streams[1].send(1, 99); // a server that stamps snapshots "now": no common state to switch at
    await until(() => streams[0].cancelled);
    streams[1].send(2);
    sut.close();
    expect(seen).toEqual(['snapshot 1', 'update 2']);
  });

  it('reconnects after an error with a gap first and the fresh snapshot after', async () => {
    const { sut, streams, seen, rejected, until, established } = harness();
    await established();
    streams[0].finish(GrpcStatus.UNAUTHENTICATED, 'expired');
    await until(() => streams.length === 2);
    streams[1].send(2);
    sut.close();
    expect(seen).toEqual(['snapshot 1', 'gap', 'snapshot 2']);
    expect(rejected).toEqual(['Bearer t1']);
  });

  it('fails the open when the exchange refuses the subscription', async () => {
    const { sut, streams, until } = harness();
    const ready = sut.start();
    await until(() => streams.length === 1);
    streams[0].finish(GrpcStatus.PERMISSION_DENIED, 'permission denied: missing required scope read:marketdata');
    await expect(ready).rejects.toMatchObject({ code: 'UPSTREAM_FORBIDDEN' });
  });
});
