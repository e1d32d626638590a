import { SeriesCounter } from '@lib/core';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

import type { WireFrame } from '../hub/frame.codec.js';

/**
 * The hub's Prometheus metrics. Labels are bounded: `family` is a registered topic prefix, never a
 * topic, because market-data topics are one per market.
 */
export class FanoutMetrics {
  readonly clients: Gauge;
  readonly subscriptions: Gauge<'family'>;
  readonly upstreamSubscriptions: Gauge;
  readonly relayedTopics: Gauge;
  /** Counted per frame: a series counter (see @lib/core SeriesCounter). */
  readonly messagesIn: SeriesCounter<'origin'>;
  readonly messagesOut: Counter;
  readonly conflatedFrames: Counter;
  readonly droppedClients: Counter;
  readonly relayGaps: Counter;
  readonly leaseChanges: Counter<'change'>;
  private readonly deliveryLag: Histogram;

  constructor(registry: Registry, queueBytesOfClients: () => Iterable<number>) {
    const registers = [registry];
    this.clients = new Gauge({
      name: 'gateway_fanout_clients',
      help: 'WebSocket clients connected to the hub',
      registers,
    });
    this.subscriptions = new Gauge({
      name: 'gateway_fanout_subscriptions',
      help: 'Client subscriptions, by topic family (registered prefix)',
      labelNames: ['family'],
      registers,
    });
    this.upstreamSubscriptions = new Gauge({
      name: 'gateway_fanout_upstream_subscriptions',
      help: 'Upstream subscriptions this instance holds',
      registers,
    });
    this.relayedTopics = new Gauge({
      name: 'gateway_fanout_relayed_topics',
      help: 'Topics this instance relays from the holding instance',
      registers,
    });
    this.messagesIn = new SeriesCounter({
      name: 'gateway_fanout_messages_in_total',
      help: 'Frames entering the hub, from an upstream source or relayed from another instance',
      labelNames: ['origin'],
      registers,
    });
    this.messagesOut = new Counter({
      name: 'gateway_fanout_messages_out_total',
      help: 'Frames written to client sockets',
      registers,
    });
    this.conflatedFrames = new Counter({
      name: 'gateway_fanout_conflated_frames_total',
      help: 'Frames a slow client skipped because a newer frame of the same topic replaced them',
      registers,
    });
    this.droppedClients = new Counter({
      name: 'gateway_fanout_dropped_clients_total',
      help: 'Clients closed with 1013 because their send queue of non-conflatable frames overflowed',
      registers,
    });
    this.relayGaps = new Counter({
      name: 'gateway_fanout_relay_gaps_total',
      help: 'Relayed frames that arrived after a missing seq',
      registers,
    });
    this.leaseChanges = new Counter({
      name: 'gateway_fanout_lease_changes_total',
      help: 'Topic leases this instance acquired or lost',
      labelNames: ['change'],
      registers,
    });
    this.deliveryLag = new Histogram({
      name: 'gateway_fanout_delivery_lag_seconds',
      help: 'Time from the hub receiving a frame to writing it to a client socket (for a broadcast: to its last direct write)',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    // Computed at scrape time: walking the clients costs nothing on the send path.
    new Gauge({
      name: 'gateway_fanout_client_queue_bytes_max',
      help: 'Largest send queue of one client (socket buffer plus the hub queue), in bytes',
      registers,
      collect() {
        let max = 0;
        for (const bytes of queueBytesOfClients()) max = Math.max(max, bytes);
        this.set(max);
      },
    });
  }

  /** One observation per broadcast, not per client: the loop writes every socket in the same tick. */
  broadcast(frame: WireFrame, written: number): void {
    if (written === 0) return;
    this.messagesOut.inc(written);
    this.deliveryLag.observe((performance.now() - frame.receivedAt) / 1_000);
  }

  /** A frame that waited in a client's queue. */
  queuedSent(frame: WireFrame): void {
    this.messagesOut.inc();
    this.deliveryLag.observe((performance.now() - frame.receivedAt) / 1_000);
  }
}
