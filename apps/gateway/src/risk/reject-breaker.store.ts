import { randomUUID } from 'node:crypto';

import { LuaScript, type RedisClient } from '@lib/core';

import type { LatchedSource } from './latched/latched-source.js';
import { RedisLatchedHash } from './latched/redis-latched-hash.js';

/** A tripped breaker: the client, the limit it met, what was seen and until when its new orders are refused. */
export interface BreakerRecord {
  client: string;
  /** Rejects within the window that trip it. */
  limit: number;
  windowSeconds: number;
  /** Rejects counted within the window when it tripped. */
  observed: number;
  /** When it tripped and until when it holds (ms since the epoch, wall clock: every instance compares them). */
  since: number;
  until: number;
}

export interface BreakerFigures {
  rejects: number;
  windowSeconds: number;
  coolOffSeconds: number;
}

/**
 * KEYS[1]: the client's rejects (sorted set, score = ms), KEYS[2]: the open breakers (hash by client).
 * ARGV: now, window ms, rejects that trip, cool-off ms, a unique member, the client, how many rejects.
 * Counts the rejects, drops the ones older than the window and, when the count reaches the limit and
 * no breaker of the client is open, opens one (the count starts afresh). Answers {count, tripped, record}.
 */
const COUNT_REJECTS = new LuaScript(`
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
for i = 1, tonumber(ARGV[7]) do redis.call('ZADD', KEYS[1], now, ARGV[5] .. ':' .. i) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('PEXPIRE', KEYS[1], window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then return {count, 0, false} end
local open = redis.call('HGET', KEYS[2], ARGV[6])
if open and tonumber(cjson.decode(open)['until']) > now then return {count, 0, open} end
local record = cjson.encode({client = ARGV[6], limit = limit, windowSeconds = window / 1000, observed = count, since = now, ['until'] = now + tonumber(ARGV[4])})
redis.call('HSET', KEYS[2], ARGV[6], record)
redis.call('DEL', KEYS[1])
return {count, 1, record}
`);

/**
 * Where rejects are counted and open breakers kept (keyed by client, read by the shared latched-state
 * loop): Redis when the gateway has one (every instance shares them), else this process.
 */
export interface BreakerStore extends LatchedSource<BreakerRecord> {
  /** Counts `rejects` rejects of `client` at `now` (wall clock); answers the record when this call tripped the breaker. */
  count(client: string, rejects: number, figures: BreakerFigures, now: number): Promise<BreakerRecord | undefined>;
  /** Closes the client's breaker; answers whether one was open. */
  reset(client: string): Promise<boolean>;
}

export class MemoryBreakerStore implements BreakerStore {
  private readonly rejects = new Map<string, number[]>();
  private readonly open = new Map<string, BreakerRecord>();

  async count(
    client: string,
    rejects: number,
    figures: BreakerFigures,
    now: number,
  ): Promise<BreakerRecord | undefined> {
    const windowMs = figures.windowSeconds * 1_000;
    const times = (this.rejects.get(client) ?? []).filter((at) => at > now - windowMs);
    for (let i = 0; i < rejects; i++) times.push(now);
    this.rejects.set(client, times);
    if (times.length < figures.rejects) return undefined;
    const current = this.open.get(client);
    if (current && current.until > now) return undefined;
    const record: BreakerRecord = {
      client,
      limit: figures.rejects,
      windowSeconds: figures.windowSeconds,
      observed: times.length,
      since: now,
      until: now + figures.coolOffSeconds * 1_000,
    };
    this.open.set(client, record);
    this.rejects.delete(client);
    return record;
  }

  /** The client's breaker tripped here (open or expired), read with no wait. */
  get(client: string): BreakerRecord | undefined {
    return this.open.get(client);
  }

  records(): BreakerRecord[] {
    return [...this.open.values()];
  }

  async read(): Promise<Map<string, BreakerRecord>> {
    return new Map(this.open);
  }

  async reset(client: string): Promise<boolean> {
    this.rejects.delete(client);
    return this.open.delete(client);
  }

  async watch(): Promise<void> {
    // One process: the service applies its own changes.
  }

  async close(): Promise<void> {}
}

export class RedisBreakerStore implements BreakerStore {
  private readonly open: RedisLatchedHash<BreakerRecord>;
  private readonly rejectsPrefix: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    // One hash tag for the counts, the open set and its generation: one script touches both in one cluster slot.
    this.open = new RedisLatchedHash(redis, `${prefix}{risk}:breaker:open`, `${prefix}risk:breaker`, 'RejectBreaker');
    this.rejectsPrefix = `${prefix}{risk}:breaker:rejects:`;
  }

  async count(
    client: string,
    rejects: number,
    figures: BreakerFigures,
    now: number,
  ): Promise<BreakerRecord | undefined> {
    const keys = [this.rejectsPrefix + client, this.open.hashKey];
    const args = [
      now,
      figures.windowSeconds * 1_000,
      figures.rejects,
      figures.coolOffSeconds * 1_000,
      randomUUID(),
      client,
      rejects,
    ];
    const answer = (await COUNT_REJECTS.run(this.redis, keys, args)) as [number, number, string | null];
    if (Number(answer[1]) !== 1 || typeof answer[2] !== 'string') return undefined;
    const record = JSON.parse(answer[2]) as BreakerRecord;
    await this.open.publish(client, record);
    return record;
  }

  read(held: ReadonlyMap<string, BreakerRecord>): Promise<Map<string, BreakerRecord>> {
    return this.open.read(held);
  }

  async reset(client: string): Promise<boolean> {
    const [[, removed]] = ((await this.redis
      .multi()
      .hdel(this.open.hashKey, client)
      .del(this.rejectsPrefix + client)
      .exec()) ?? [[null, 0]]) as [unknown, number][];
    await this.open.publish(client, null);
    return Number(removed) > 0;
  }

  watch(listener: (client: string, record: BreakerRecord | null) => void): Promise<void> {
    return this.open.watch(listener);
  }

  close(): Promise<void> {
    return this.open.close();
  }
}
