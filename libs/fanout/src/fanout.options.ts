import { type Clock, newInstanceId, type RedisClient } from '@lib/core';
import type { Registry } from 'prom-client';

import type { CapacitySettings } from './capacity/stream-capacity.types.js';
import type { HubClientOptions } from './client/hub.client.js';
import type { ClusterOptions } from './cluster/redis.coordinator.js';
import type { TopicSourceRegistry } from './source/topic-source.registry.js';

/** Tunables of the hub; every one has a default. */
export interface FanoutSettings {
  /** How long an upstream subscription outlives its last subscriber; a resubscribe within it reuses it. */
  lingerMs?: number;
  client?: Partial<HubClientOptions>;
  cluster?: Partial<ClusterOptions>;
  /** Caps on the upstream streams topics cost (TopicPolicy.capacity); without it nothing is counted. */
  capacity?: CapacitySettings;
}

export interface FanoutHubOptions extends FanoutSettings {
  sources: TopicSourceRegistry;
  /** Prometheus registry (the app's `MetricsRegistry`); a private one when absent. */
  registry?: Registry;
  clock?: Clock;
  /** Without Redis the hub runs single-instance: no leases, no relay. */
  redis?: RedisClient | null;
}

export const DEFAULT_LINGER_MS = 5_000;

export const DEFAULT_CLIENT_OPTIONS: HubClientOptions = {
  // A few seconds of a busy account stream; beyond that the client reconnects and resumes.
  maxQueueBytes: 4 * 1024 * 1024,
  highWaterBytes: 64 * 1024,
};

export function clusterOptions(options: Partial<ClusterOptions> = {}): ClusterOptions {
  return {
    keyPrefix: 'pmgw:fanout:',
    instanceId: newInstanceId(),
    // A dead holder is replaced within about leaseMs + renewEveryMs (3-4 s).
    leaseMs: 3_000,
    renewEveryMs: 1_000,
    // Renewals are the holder's heartbeats: a relay missing one and a half of them holds locally (within 2 s).
    silenceMs: 1_500,
    watchEveryMs: 250,
    stateTtlMs: 24 * 60 * 60 * 1_000,
    resyncIntervalMs: 2_000,
    ...options,
  };
}
