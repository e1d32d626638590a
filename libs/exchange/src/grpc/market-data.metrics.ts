import type { MetricsRegistry } from '@lib/core';
import { Counter, Gauge } from 'prom-client';

/** Prometheus view of the exchange gRPC market-data streams. */
export class MarketDataMetrics {
  private readonly open: Gauge<'kind'>;
  private readonly reconnects: Counter<'kind' | 'code'>;
  private readonly messages: Counter<'kind'>;
  private readonly duplicates: Counter<'kind'>;

  constructor(registry: MetricsRegistry, symbolsCarried: () => number) {
    this.open = new Gauge({
      name: 'gateway_exchange_grpc_streams_open',
      help: 'Open exchange gRPC streams by kind (the exchange allows 20 per firm across every kind)',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.reconnects = new Counter({
      name: 'gateway_exchange_grpc_stream_reconnects_total',
      help: 'Streams lost and reopened, by kind and the gRPC status they ended with',
      labelNames: ['kind', 'code'],
      registers: [registry],
    });
    this.messages = new Counter({
      name: 'gateway_exchange_grpc_messages_total',
      help: 'Messages received on exchange gRPC market-data streams, by kind of message',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.duplicates = new Counter({
      name: 'gateway_exchange_grpc_duplicates_dropped_total',
      help: 'Messages not forwarded because they repeat one delivered already, by stream kind',
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
    this.open.inc({ kind: 'marketData' });
  }

  streamClosed(): void {
    this.open.dec({ kind: 'marketData' });
  }

  reconnecting(code: string): void {
    this.reconnects.inc({ kind: 'marketData', code });
  }

  received(kind: 'update' | 'heartbeat'): void {
    this.messages.inc({ kind });
  }

  duplicateDropped(): void {
    this.duplicates.inc({ kind: 'marketData' });
  }
}
