import type { MetricsRegistry } from '@lib/core';
import { Counter, Gauge } from 'prom-client';

/** The kinds of exchange streaming calls the gateway holds. */
export type StreamKind = 'marketData' | 'orders' | 'dropCopy' | 'trades' | 'positions' | 'instrumentState';

/** Open streams of one kind, as the metrics count them (an UpstreamCall reports its open and its end). */
export interface StreamGauge {
  streamOpened(): void;
  streamClosed(): void;
}

/** One kind's view of the stream metrics: what its owner reports. */
export interface KindMetrics extends StreamGauge {
  reconnecting(code: string): void;
  delivered(count?: number): void;
  duplicateDropped(): void;
  /** The exchange refused the resume point; the feed goes on from `fallback` (`time`: its last checkpoint's time; `live`: now, with a resync). */
  resumeRefused(fallback: 'time' | 'live'): void;
}

const REGISTERED = new WeakMap<MetricsRegistry, ExchangeStreamMetrics>();

/**
 * Prometheus view of every exchange gRPC stream by kind, one set per registry (several services
 * report into the same series), and the in-use count per kind that the firm's pool of 20 streams
 * (upstream-facts) is measured against: `inUse()`.
 */
export class ExchangeStreamMetrics {
  private readonly open: Gauge<'kind'>;
  private readonly reconnects: Counter<'kind' | 'code'>;
  private readonly deliveries: Counter<'kind'>;
  private readonly duplicates: Counter<'kind'>;
  private readonly refusedResumes: Counter<'kind' | 'fallback'>;
  private readonly counts = new Map<StreamKind, number>();
  private readonly ages = new Map<StreamKind, () => number | undefined>();

  static of(registry: MetricsRegistry): ExchangeStreamMetrics {
    let metrics = REGISTERED.get(registry);
    if (!metrics) REGISTERED.set(registry, (metrics = new ExchangeStreamMetrics(registry)));
    return metrics;
  }

  private constructor(registry: MetricsRegistry) {
    this.open = new Gauge({
      name: 'gateway_exchange_grpc_streams_open',
      help: 'Open exchange gRPC streams of this instance by kind (the exchange allows 20 per firm across every kind)',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.reconnects = new Counter({
      name: 'gateway_exchange_grpc_stream_reconnects_total',
      help: 'Streams lost and reopened, by kind and the gRPC status they ended with',
      labelNames: ['kind', 'code'],
      registers: [registry],
    });
    this.deliveries = new Counter({
      name: 'gateway_exchange_grpc_executions_delivered_total',
      help: 'Executions passed on to /ws topics, by stream kind',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.duplicates = new Counter({
      name: 'gateway_exchange_grpc_duplicates_dropped_total',
      help: 'Messages not forwarded because they repeat one delivered already, by stream kind',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.refusedResumes = new Counter({
      name: 'gateway_exchange_grpc_resume_refused_total',
      help: 'Resume points the exchange refused (a token it no longer knows, e.g. after it restarted empty), by stream kind and what the feed resumed from instead: time (its last checkpoint) or live (with a resync: records may be missing)',
      labelNames: ['kind', 'fallback'],
      registers: [registry],
    });
    const ages = this.ages;
    new Gauge({
      name: 'gateway_exchange_grpc_resume_token_age_seconds',
      help: 'Seconds since a resumable stream kind last saved its resume token (absent before the first save)',
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        for (const [kind, ageMs] of ages) {
          const age = ageMs();
          if (age !== undefined) this.set({ kind }, age / 1000);
        }
      },
    });
  }

  /** The resume token of `kind` was last saved `ageMs()` ago (undefined before the first save). */
  resumeTokenAge(kind: StreamKind, ageMs: () => number | undefined): void {
    this.ages.set(kind, ageMs);
  }

  /** Streams of each kind open now on this instance. */
  inUse(): Record<StreamKind, number> {
    const of = (kind: StreamKind) => this.counts.get(kind) ?? 0;
    return {
      marketData: of('marketData'),
      orders: of('orders'),
      dropCopy: of('dropCopy'),
      trades: of('trades'),
      positions: of('positions'),
      instrumentState: of('instrumentState'),
    };
  }

  kind(kind: StreamKind): KindMetrics {
    const labels = { kind };
    const move = (by: number) => {
      this.counts.set(kind, (this.counts.get(kind) ?? 0) + by);
      this.open.inc(labels, by);
    };
    return {
      streamOpened: () => move(1),
      streamClosed: () => move(-1),
      reconnecting: (code) => this.reconnects.inc({ kind, code }),
      delivered: (count = 1) => this.deliveries.inc(labels, count),
      duplicateDropped: () => this.duplicates.inc(labels),
      resumeRefused: (fallback) => this.refusedResumes.inc({ kind, fallback }),
    };
  }
}

/** Prometheus view of the exchange gRPC market-data streams: the shared per-kind series plus their own. */
export class MarketDataMetrics {
  private readonly streams: KindMetrics;
  private readonly messages: Counter<'kind'>;

  constructor(registry: MetricsRegistry, symbolsCarried: () => number) {
    this.streams = ExchangeStreamMetrics.of(registry).kind('marketData');
    this.messages = new Counter({
      name: 'gateway_exchange_grpc_messages_total',
      help: 'Messages received on exchange gRPC market-data streams, by kind of message',
      labelNames: ['kind'],
      registers: [registry],
    });
    new Gauge({
      name: 'gateway_exchange_grpc_symbols_carried',
      help: 'Symbols carried on the market-data streams of this instance',
      registers: [registry],
      collect() {
        this.set(symbolsCarried());
      },
    });
  }

  streamOpened(): void {
    this.streams.streamOpened();
  }

  streamClosed(): void {
    this.streams.streamClosed();
  }

  reconnecting(code: string): void {
    this.streams.reconnecting(code);
  }

  received(kind: 'update' | 'heartbeat'): void {
    this.messages.inc({ kind });
  }

  duplicateDropped(): void {
    this.streams.duplicateDropped();
  }
}
