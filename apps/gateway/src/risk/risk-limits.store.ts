import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';

import { LuaScript, type RedisClient } from '@lib/core';

import type { LatchedSource } from './latched/latched-source.js';
import { RedisLatchedHash } from './latched/redis-latched-hash.js';
import type { LimitsChange, LimitsSetRecord } from './risk-limits-set.js';

/** The one field of the latched hash that holds the set. */
export const SET_FIELD = 'set';
/** How many recorded changes are kept (newest first). */
const CHANGE_HISTORY = 1_000;

/** A write found another version in force than the one it was judged against: nothing written. */
export interface VersionMoved {
  moved: number;
}

/**
 * Where the limits in force are latched: Redis (the trading states' latched-hash machinery: hash +
 * generation + pub/sub, plus a change list) when the gateway has one, else this process's memory.
 */
export interface LimitsStore extends LatchedSource<LimitsSetRecord> {
  /**
   * Writes `record` when `expected` is the version in force (else answers it), records the change and,
   * when `recount`, starts a new open-order counts generation (every instance rebuilds its counts
   * before judging one more order); then tells every instance.
   */
  write(
    record: LimitsSetRecord,
    change: LimitsChange,
    expected: number,
    recount: boolean,
  ): Promise<VersionMoved | undefined>;
  changes(count: number): Promise<LimitsChange[]>;
}

export class MemoryLimitsStore implements LimitsStore {
  private record?: LimitsSetRecord;
  private readonly history: LimitsChange[] = [];
  private readonly events = new EventEmitter();

  async read(): Promise<Map<string, LimitsSetRecord>> {
    return new Map(this.record ? [[SET_FIELD, this.record]] : []);
  }

  async write(record: LimitsSetRecord, change: LimitsChange, expected: number): Promise<VersionMoved | undefined> {
    const current = this.record?.version ?? 0;
    if (current !== expected) return { moved: current };
    this.record = record;
    this.history.unshift(change);
    this.history.length = Math.min(this.history.length, CHANGE_HISTORY);
    this.events.emit('record', record);
    return undefined;
  }

  async changes(count: number): Promise<LimitsChange[]> {
    return this.history.slice(0, count);
  }

  async watch(listener: (key: string, record: LimitsSetRecord | null) => void): Promise<void> {
    this.events.on('record', (record: LimitsSetRecord) => listener(SET_FIELD, record));
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}

/**
 * KEYS[1]: the latched hash, KEYS[2]: the change list, KEYS[3]: the open-order counts' generation.
 * ARGV[1]: the version the write was judged against, ARGV[2]: the record, ARGV[3]: the change,
 * ARGV[4]: a new counts generation ('' keeps it). Answers {0} when written, else {1, version in force}.
 */
const WRITE = new LuaScript(`
local held = redis.call('HGET', KEYS[1], '${SET_FIELD}')
local current = 0
if held then current = tonumber(cjson.decode(held).version) end
if current ~= tonumber(ARGV[1]) then return {1, current} end
redis.call('HSET', KEYS[1], '${SET_FIELD}', ARGV[2])
redis.call('LPUSH', KEYS[2], ARGV[3])
redis.call('LTRIM', KEYS[2], 0, ${CHANGE_HISTORY - 1})
if ARGV[4] ~= '' then redis.call('SET', KEYS[3], ARGV[4]) end
return {0, current}
`);

export class RedisLimitsStore implements LimitsStore {
  private readonly set: RedisLatchedHash<LimitsSetRecord>;
  private readonly changesKey: string;
  private readonly countsGenerationKey: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    // One hash tag with the open-order counts: one script writes the set and starts a counts generation.
    this.set = new RedisLatchedHash(redis, `${prefix}{risk}:limits`, `${prefix}risk:limits`, 'RiskLimitsSource');
    this.changesKey = `${prefix}{risk}:limit-changes`;
    this.countsGenerationKey = `${prefix}{risk}:open-generation`;
  }

  read(held: ReadonlyMap<string, LimitsSetRecord>): Promise<Map<string, LimitsSetRecord>> {
    return this.set.read(held);
  }

  async write(
    record: LimitsSetRecord,
    change: LimitsChange,
    expected: number,
    recount: boolean,
  ): Promise<VersionMoved | undefined> {
    // A counts generation named by the limits version it counts: an instance that holds older limits reads them again before it rebuilds.
    const generation = recount ? `${record.version}:${randomUUID()}` : '';
    const [moved, current] = (await WRITE.run(
      this.redis,
      [this.set.hashKey, this.changesKey, this.countsGenerationKey],
      [expected, JSON.stringify(record), JSON.stringify(change), generation],
    )) as [number, number];
    if (Number(moved) === 1) return { moved: Number(current) };
    await this.set.publish(SET_FIELD, record);
    return undefined;
  }

  async changes(count: number): Promise<LimitsChange[]> {
    return (await this.redis.lrange(this.changesKey, 0, count - 1)).map((text) => JSON.parse(text) as LimitsChange);
  }

  watch(listener: (key: string, record: LimitsSetRecord | null) => void): Promise<void> {
    return this.set.watch(listener);
  }

  close(): Promise<void> {
    return this.set.close();
  }
}
