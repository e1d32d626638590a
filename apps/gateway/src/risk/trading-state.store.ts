import { EventEmitter } from 'node:events';

import { type RedisClient, duplicateRedis } from '@lib/core';

import type { TradingStateChange, TradingStateRecord } from './trading-state.js';

/** How long a starting instance waits for its subscription before serving (it re-reads the states anyway). */
const SUBSCRIBE_WAIT_MS = 2_000;

/** How many recorded changes are kept (newest first). */
export const CHANGE_HISTORY = 1_000;

/**
 * Where trading states are latched and how a change reaches every instance: Redis (hash + change list +
 * pub/sub) when the gateway has one, memory of this process otherwise (single-instance mode).
 */
export interface TradingStateStore {
  /** Every latched state that is not `active`. */
  all(): Promise<TradingStateRecord[]>;
  /** Latches `record` (an `active` record removes the scope), records the change and tells every instance. */
  write(record: TradingStateRecord, change: TradingStateChange): Promise<void>;
  changes(count: number): Promise<TradingStateChange[]>;
  /** Calls `listener` with every record written by any instance (this one included). */
  watch(listener: (record: TradingStateRecord) => void): Promise<void>;
  close(): Promise<void>;
}

export class MemoryTradingStateStore implements TradingStateStore {
  private readonly states = new Map<string, TradingStateRecord>();
  private readonly history: TradingStateChange[] = [];
  private readonly events = new EventEmitter();

  async all(): Promise<TradingStateRecord[]> {
    return [...this.states.values()];
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

  async watch(listener: (record: TradingStateRecord) => void): Promise<void> {
    this.events.on('record', listener);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}

export class RedisTradingStateStore implements TradingStateStore {
  private readonly statesKey: string;
  private readonly changesKey: string;
  private readonly channel: string;
  private subscriber?: RedisClient;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    // One hash tag: the state and its change list sit in one cluster slot, so one MULTI writes both.
    this.statesKey = `${prefix}{risk}:states`;
    this.changesKey = `${prefix}{risk}:changes`;
    this.channel = `${prefix}risk:states`;
  }

  async all(): Promise<TradingStateRecord[]> {
    const fields = await this.redis.hgetall(this.statesKey);
    return Object.values(fields).map((text) => JSON.parse(text) as TradingStateRecord);
  }

  async write(record: TradingStateRecord, change: TradingStateChange): Promise<void> {
    const multi = this.redis.multi();
    if (record.state === 'active') multi.hdel(this.statesKey, record.scope);
    else multi.hset(this.statesKey, record.scope, JSON.stringify(record));
    multi.lpush(this.changesKey, JSON.stringify(change)).ltrim(this.changesKey, 0, CHANGE_HISTORY - 1);
    await multi.exec();
    await this.redis.publish(this.channel, JSON.stringify(record));
  }

  async changes(count: number): Promise<TradingStateChange[]> {
    return (await this.redis.lrange(this.changesKey, 0, count - 1)).map((text) => JSON.parse(text) as TradingStateChange);
  }

  /**
   * Subscribes once the connection is ready (no offline queue: a command before that fails) and again
   * whenever it becomes ready after a failed first try; ioredis itself re-subscribes after a reconnect.
   * Resolves when subscribed, or after `SUBSCRIBE_WAIT_MS` (Redis down at start: the re-reads cover).
   */
  async watch(listener: (record: TradingStateRecord) => void): Promise<void> {
    const subscriber = duplicateRedis(this.redis);
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) listener(JSON.parse(text) as TradingStateRecord);
    });
    let subscribed = false;
    const subscribe = async () => {
      if (subscribed || subscriber.status !== 'ready') return;
      await subscriber.subscribe(this.channel).then(() => (subscribed = true), () => undefined);
    };
    const ready = new Promise<void>((resolve) => {
      subscriber.on('ready', () => void subscribe().then(resolve));
      void subscribe().then(() => subscribed && resolve());
    });
    // Redis not reachable now: start without waiting (the re-reads cover until the subscription lands).
    if (this.redis.status === 'ready') await Promise.race([ready, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}
