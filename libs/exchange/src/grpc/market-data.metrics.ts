import type { MetricsRegistry } from '@lib/core';
import { Counter, Gauge } from 'prom-client';

import { ExchangeStreamMetrics, type KindMetrics } from './exchange-stream.metrics.js';

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
