import { Logger } from '@nestjs/common';
import { type Clock, type RedisClient, duplicateRedis, releaseLock, systemClock, takeLock } from '@lib/core';
import { Cluster } from 'ioredis';

import { type CatalogEntry, decodeEntry, encodeEntry } from './catalog-entry.js';
import { type CatalogStore, type PurgeMatch, purgeFilter } from './catalog-store.js';

/** Poll intervals of a waiting follower: quick at first (a catalog answer takes milliseconds), then steady. */
const POLL_MS = [2, 5, 10, 20, 25];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const globEscape = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * The catalog cache shared by every instance: one string per entry (`<prefix>catalog:e:<key>`), a
 * fill lock per key (`<prefix>catalog:l:<key>`, SET NX PX) and a pub/sub channel for purges.
 */
export class RedisCatalogStore implements CatalogStore {
  readonly shared = true;
  private readonly logger = new Logger('CatalogCache');
  private readonly listeners: ((match: PurgeMatch) => void)[] = [];
  private readonly subscriber: RedisClient;
  private readonly channel: string;
  private failures = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly clock: Clock = systemClock,
  ) {
    this.channel = `${prefix}catalog:purge`;
    // A subscribed connection can do nothing else, so purges get their own.
    this.subscriber = duplicateRedis(redis);
    // Purges published before the subscription is confirmed never reach it, on the first connect as on
    // every reconnect: at least once means dropping every local copy once it is confirmed (the shared
    // tier was purged by whoever purged). Dropping earlier would let a copy made in between survive.
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).then(
        () => this.notify({}),
        () => undefined, // the connection dropped again; the next 'ready' subscribes
      );
    });
    this.subscriber.on('message', (_channel: string, message: string) => this.received(message));
  }

  /** Store errors absorbed so far (each one made the cache local for one operation). */
  get errorCount(): number {
    return this.failures;
  }

  async get(key: string): Promise<CatalogEntry | undefined> {
    try {
      const raw = await this.redis.get(this.entryKey(key));
      return raw === null ? undefined : decodeEntry(raw);
    } catch (error) {
      return this.failed(error, undefined);
    }
  }

  async set(key: string, entry: CatalogEntry, retainMs: number): Promise<void> {
    try {
      await this.redis.set(this.entryKey(key), encodeEntry(entry), 'PX', Math.max(1, Math.ceil(retainMs)));
    } catch (error) {
      this.failed(error, undefined);
    }
  }

  async acquire(key: string, token: string, ms: number): Promise<boolean> {
    try {
      return (await takeLock(this.redis, this.lockKey(key), token, ms)) !== undefined;
    } catch (error) {
      return this.failed(error, true);
    }
  }

  async release(key: string, token: string): Promise<void> {
    try {
      // Only the lock's owner releases it, never a later leader's lock.
      await releaseLock(this.redis, this.lockKey(key), token);
    } catch (error) {
      this.failed(error, undefined);
    }
  }

  async waitForFill(key: string, after: number, ms: number): Promise<CatalogEntry | undefined> {
    const deadline = this.clock.now() + ms;
    for (let attempt = 0; this.clock.now() < deadline; attempt++) {
      await sleep(Math.min(POLL_MS[Math.min(attempt, POLL_MS.length - 1)], Math.max(0, deadline - this.clock.now())));
      try {
        // Lock first, entry second: the leader stores the entry before it releases the lock, so an
        // entry read after seeing no lock includes any fill that lock covered (reading both at once
        // could miss the entry just before it was written and the lock just after it was released).
        const locked = await this.redis.exists(this.lockKey(key));
        const raw = await this.redis.get(this.entryKey(key));
        const entry = raw === null ? undefined : decodeEntry(raw);
        if (entry && entry.storedAt > after) return entry;
        if (!locked) return undefined; // the leader gave up without a result: fall back at once
      } catch (error) {
        return this.failed(error, undefined);
      }
    }
    return undefined;
  }

  async purge(match: PurgeMatch): Promise<number> {
    const pattern = `${globEscape(this.entryKey(''))}${match.route === undefined ? '*' : globEscape(match.route)}|${globEscape(match.prefix ?? '')}*`;
    const selected = purgeFilter(match);
    const base = this.entryKey('').length;
    let removed = 0;
    const nodes = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        const chosen = keys.filter((k) => selected(k.slice(base)));
        // One key per command: in a cluster the keys of one scan page live in different slots.
        const counts = await Promise.all(chosen.map((k) => this.redis.unlink(k)));
        removed += counts.reduce((sum, n) => sum + n, 0);
      } while (cursor !== '0');
    }
    await this.redis.publish(this.channel, JSON.stringify(match));
    return removed;
  }

  onPurge(listener: (match: PurgeMatch) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }

  private received(message: string): void {
    let match: PurgeMatch;
    try {
      match = JSON.parse(message) as PurgeMatch;
    } catch {
      return; // not ours
    }
    this.notify(match);
  }

  private notify(match: PurgeMatch): void {
    for (const listener of this.listeners) listener(match);
  }

  private entryKey(key: string): string {
    return `${this.prefix}catalog:e:${key}`;
  }

  private lockKey(key: string): string {
    return `${this.prefix}catalog:l:${key}`;
  }

  private failed<T>(error: unknown, fallback: T): T {
    if (this.failures++ % 1_000 === 0)
      this.logger.warn(`Redis unavailable for the catalog cache, serving locally: ${(error as Error).message}`);
    return fallback;
  }
}
