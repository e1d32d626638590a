import type { MetricsRegistry } from '@lib/core';
import { Counter, Gauge } from 'prom-client';

/** How a renewal ended: no loss, a forced resync, or the old stream died before the switch. */
export type RenewalOutcome = 'seamless' | 'resync' | 'after_loss';

/** Prometheus view of the exchange gRPC market-data streams. */
export class MarketDataMetrics {
  private readonly open: Gauge;
  private readonly renewals: Counter<'outcome'>;
  private readonly reconnects: Counter<'code'>;
  private readonly messages: Counter<'kind'>;
  private readonly duplicates: Counter;

  constructor(registry: MetricsRegistry) {
    this.open = new Gauge({
      name: 'gateway_exchange_grpc_streams_open',
      help: 'Open exchange gRPC market-data streams (the exchange allows 20 per firm; a renewal briefly holds two)',
      registers: [registry],
    });
    this.renewals = new Counter({
      name: 'gateway_exchange_grpc_stream_renewals_total',
      help: 'Streams replaced ahead of their token lapsing, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.reconnects = new Counter({
      name: 'gateway_exchange_grpc_stream_reconnects_total',
      help: 'Streams lost and reopened, by the gRPC status they ended with',
      labelNames: ['code'],
      registers: [registry],
    });
    this.messages = new Counter({
      name: 'gateway_exchange_grpc_messages_total',
      help: 'Messages received on exchange gRPC market-data streams, by kind',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.duplicates = new Counter({
      name: 'gateway_exchange_grpc_duplicates_dropped_total',
      help: 'Book states not forwarded because they equal the last one delivered (renewal overlap)',
      registers: [registry],
    });
  }

  streamOpened(): void {
    this.open.inc();
  }

  streamClosed(): void {
    this.open.dec();
  }

  renewed(outcome: RenewalOutcome): void {
    this.renewals.inc({ outcome });
  }

  reconnecting(code: string): void {
    this.reconnects.inc({ code });
  }

  received(kind: 'update' | 'heartbeat'): void {
    this.messages.inc({ kind });
  }

  duplicateDropped(): void {
    this.duplicates.inc();
  }
}
