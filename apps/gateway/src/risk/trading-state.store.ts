import { EventEmitter } from 'node:events';

import { LuaScript, type RedisClient } from '@lib/core';

import type { LatchedSource } from './latched/latched-source.js';
import { RedisLatchedHash } from './latched/redis-latched-hash.js';
import type { TradingState, TradingStateChange, TradingStateRecord } from './trading-state.js';

/** How many recorded changes are kept (newest first). */
export const CHANGE_HISTORY = 1_000;

/**
 * What a write did: the change made, its `from` the state it replaced where it was latched (never what
 * the writing instance last saw), or, when the caller named the state it expected and another was
 * latched, that state (`current`) and nothing written.
 */
export type StateWrite = { change: TradingStateChange } | { current: TradingState };

/**
 * Where trading states are latched and how a change reaches every instance: Redis (hash + generation +
 * change list + pub/sub) when the gateway has one, memory of this process otherwise (single-instance
 * mode). Read by the shared latched-state loop (LatchedSet), keyed by scope; `active` is no record.
 */
export interface TradingStateStore extends LatchedSource<TradingStateRecord> {
  /**
   * Latches `record` (an `active` record removes the scope), records the change and tells every
   * instance, in one step with reading the state it replaces: two operators setting one scope at once
   * make a chain (the second's `from` is the first's state). `expected`: refused unless it is latched.
   */
  write(record: TradingStateRecord, expected?: TradingState): Promise<StateWrite>;
  changes(count: number): Promise<TradingStateChange[]>;
}

export class MemoryTradingStateStore implements TradingStateStore {
  private readonly states = new Map<string, TradingStateRecord>();
  private readonly history: TradingStateChange[] = [];
  private readonly events = new EventEmitter();

  async read(): Promise<Map<string, TradingStateRecord>> {
    return new Map(this.states);
  }

  async write(record: TradingStateRecord, expected?: TradingState): Promise<StateWrite> {
    // No await before the map is written: the state replaced is read and replaced in one step.
    const from = this.states.get(record.scope)?.state ?? 'active';
    if (expected !== undefined && expected !== from) return { current: from };
    if (record.state === 'active') this.states.delete(record.scope);
    else this.states.set(record.scope, record);
    const change: TradingStateChange = { ...record, from };
    this.history.unshift(change);
    this.history.length = Math.min(this.history.length, CHANGE_HISTORY);
    this.events.emit('record', record);
    return { change };
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

/**
 * Sets one scope's state and records the change, reading the state it replaces in the same step (a
 * plain HSET took `from` from the writer's memory: two operators at once both recorded `active → x`,
 * and the second silently replaced the first's halt). KEYS[1]: the states hash, KEYS[2]: the change
 * list. ARGV[1]: the scope, ARGV[2]: its record (JSON), ARGV[3]: 1 to remove it (`active`), ARGV[4]: the
 * state the caller expects ('' for any), ARGV[5]: how many changes are kept. The change recorded is the
 * record with `from` appended, as `{ ...record, from }` writes it. Answers {1, from}, or {0, the state
 * latched} when it is not the one expected (nothing written).
 */
const WRITE = new LuaScript(`
local held = redis.call('HGET', KEYS[1], ARGV[1])
local from = 'active'
if held then from = cjson.decode(held).state end
if ARGV[4] ~= '' and ARGV[4] ~= from then return {0, from} end
if ARGV[3] == '1' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('LPUSH', KEYS[2], string.sub(ARGV[2], 1, -2) .. ',"from":' .. cjson.encode(from) .. '}')
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]) - 1)
return {1, from}
`);

export class RedisTradingStateStore implements TradingStateStore {
  private readonly states: RedisLatchedHash<TradingStateRecord>;
  private readonly changesKey: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    // One hash tag: the state, its generation and its change list sit in one cluster slot, so one script writes both.
    this.states = new RedisLatchedHash(redis, `${prefix}{risk}:states`, `${prefix}risk:states`, 'TradingStates');
    this.changesKey = `${prefix}{risk}:changes`;
  }

  read(held: ReadonlyMap<string, TradingStateRecord>): Promise<Map<string, TradingStateRecord>> {
    return this.states.read(held);
  }

  async write(record: TradingStateRecord, expected?: TradingState): Promise<StateWrite> {
    const [written, from] = (await WRITE.run(
      this.redis,
      [this.states.hashKey, this.changesKey],
      [record.scope, JSON.stringify(record), record.state === 'active' ? 1 : 0, expected ?? '', CHANGE_HISTORY],
    )) as [number, TradingState];
    if (Number(written) !== 1) return { current: from };
    await this.states.publish(record.scope, record.state === 'active' ? null : record);
    return { change: { ...record, from } };
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
