import { EventEmitter } from 'node:events';

import type { RedisClient } from '@lib/core';

import type { LatchedSource } from './latched/latched-source.js';
import { RedisLatchedHash } from './latched/redis-latched-hash.js';
import type { TradingStateChange, TradingStateRecord } from './trading-state.js';

/** How many recorded changes are kept (newest first). */
export const CHANGE_HISTORY = 1_000;

/**
 * Where trading states are latched and how a change reaches every instance: Redis (hash + generation +
 * change list + pub/sub) when the gateway has one, memory of this process otherwise (single-instance
 * mode). Read by the shared latched-state loop (LatchedSet), keyed by scope; `active` is no record.
 */
export interface TradingStateStore extends LatchedSource<TradingStateRecord> {
  /** Latches `record` (an `active` record removes the scope), records the change and tells every instance. */
  write(record: TradingStateRecord, change: TradingStateChange): Promise<void>;
  changes(count: number): Promise<TradingStateChange[]>;
}

export class MemoryTradingStateStore implements TradingStateStore {
  private readonly states = new Map<string, TradingStateRecord>();
  private readonly history: TradingStateChange[] = [];
  private readonly events = new EventEmitter();

  async read(): Promise<Map<string, TradingStateRecord>> {
    return new Map(this.states);
  }

  async write(record: TradingStateRecord, change: TradingStateChange): Promise<void> {
    if (record.state === 'active') this.states.delete(record.scope);
    else this.states.set(record.scope, record);
    this.history.unshift(change);
    this.history.length = Math.min(this.history.length, CHANGE_HISTORY);
    this.events.emit('record', record);
  }

  async changes(count: number): Promise<TradingStateChange[]> {
    return this.history.slice(0, count);
  }

  async watch(listener: (key: string, record: TradingStateRecord | null) => void): Promise<void> {
    this.events.on('record', (record: TradingStateRecord) =>
      listener(record.scope, record.state === 'active' ? null : record),
    );
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}

export class RedisTradingStateStore implements TradingStateStore {
  private readonly states: RedisLatchedHash<TradingStateRecord>;
  private readonly changesKey: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    // One hash tag: the state, its generation and its change list sit in one cluster slot, so one MULTI writes both.
    this.states = new RedisLatchedHash(redis, `${prefix}{risk}:states`, `${prefix}risk:states`, 'TradingStates');
    this.changesKey = `${prefix}{risk}:changes`;
  }

  read(held: ReadonlyMap<string, TradingStateRecord>): Promise<Map<string, TradingStateRecord>> {
    return this.states.read(held);
  }

  async write(record: TradingStateRecord, change: TradingStateChange): Promise<void> {
    const multi = this.redis.multi();
    const statesKey = this.states.hashKey;
    if (record.state === 'active') multi.hdel(statesKey, record.scope);
    else multi.hset(statesKey, record.scope, JSON.stringify(record));
    multi.lpush(this.changesKey, JSON.stringify(change)).ltrim(this.changesKey, 0, CHANGE_HISTORY - 1);
    await multi.exec();
    await this.states.publish(record.scope, record.state === 'active' ? null : record);
  }

  async changes(count: number): Promise<TradingStateChange[]> {
    return (await this.redis.lrange(this.changesKey, 0, count - 1)).map(
      (text) => JSON.parse(text) as TradingStateChange,
    );
  }

  watch(listener: (key: string, record: TradingStateRecord | null) => void): Promise<void> {
    return this.states.watch(listener);
  }

  close(): Promise<void> {
    return this.states.close();
  }
}
