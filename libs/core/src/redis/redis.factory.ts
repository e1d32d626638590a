import { readFileSync } from 'node:fs';

import { Cluster, Redis, type RedisOptions } from 'ioredis';

import type { RedisConfig } from '../config/config.schema.js';

export type RedisClient = Redis | Cluster;

/** Builds an ioredis client for single node, Sentinel or Cluster from config. */
export function createRedisClient(config: RedisConfig, connectionName = 'gateway'): RedisClient {
  const password = config.passwordFile ? readFileSync(config.passwordFile, 'utf8').trim() : undefined;
  const common: RedisOptions = {
    connectionName,
    password,
    connectTimeout: config.connectTimeoutMs,
    commandTimeout: config.commandTimeoutMs,
    // Fail fast while disconnected so callers can fall back (issue 6): never queue commands behind an outage.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
    lazyConnect: false,
  };
  switch (config.mode) {
    case 'single':
      return new Redis(config.url as string, common);
    case 'sentinel':
      // No failoverDetector: ioredis 6's (it drops the connection on the sentinels' +switch-master) ends the
      // client for good when that message lands while a reconnect is asking a sentinel for the master
      // ("Connection is closed.", status `end`, no retry): 47 of 300 clients beside two busy loops in one
      // promotion, and a gateway that never left its local buckets (test/redis-sentinel-clients.test.ts).
      // Without it a client finds the new master at its next reconnect attempt: measured 2 s after the
      // promotion either way, as the sentinels answer the new address only once the failover completes.
      // A master demoted while alive loses its clients too: a sentinel sends it CLIENT KILL on reconfiguring.
      return new Redis({ ...common, sentinels: config.sentinels, name: config.sentinelName });
    case 'cluster':
      return new Cluster(config.nodes ?? [], { redisOptions: common, enableOfflineQueue: false });
  }
}

/**
 * A second connection with the same settings, for subscriptions (a subscribed connection can do
 * nothing else). Its errors are absorbed: ioredis reconnects and re-subscribes by itself.
 */
export function duplicateRedis(client: RedisClient): RedisClient {
  // No command timeout: ioredis re-subscribes after a reconnect without handling the promise, so a
  // timed-out re-subscribe would be an unhandled rejection (a crash). Callers bound their own waits.
  const quiet = { commandTimeout: undefined };
  // On a Cluster, SSUBSCRIBE needs the sharded subscribers: one connection per shard, moved on failover.
  const connection: RedisClient =
    client instanceof Cluster
      ? client.duplicate([], { shardedSubscribers: true, redisOptions: quiet })
      : client.duplicate(quiet);
  connection.on('error', () => undefined);
  return connection;
}

/**
 * `true` when the client emits `event` within `timeoutMs`, `false` when it does not. Bounded on purpose:
 * while Redis is down ioredis reconnects for ever, and a caller at start-up must not wait that long.
 */
export function nextRedisEvent(client: RedisClient, event: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (emitted: boolean) => {
      clearTimeout(timer);
      client.off(event, onEvent);
      resolve(emitted);
    };
    const onEvent = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.once(event, onEvent);
  });
}
