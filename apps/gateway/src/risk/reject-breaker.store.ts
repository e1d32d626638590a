import { randomUUID } from 'node:crypto';

import { type RedisClient, duplicateRedis } from '@lib/core';

/** A tripped breaker: the client, the limit it met, what was seen and until when its new orders are refused. */
export interface BreakerRecord {
  client: string;
  /** Rejects within the window that trip it. */
  limit: number;
  windowSeconds: number;
  /** Rejects counted within the window when it tripped. */
  observed: number;
  /** When it tripped and until when it holds (ms since the epoch, the tripping instance's clock). */
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
const COUNT_REJECTS = `
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
`;

/** Where rejects are counted and open breakers kept: Redis when the gateway has one (every instance shares them), else this process. */
export interface BreakerStore {
  /** Counts `rejects` rejects of `client` at `now`; answers the record when this call tripped the breaker. */
  count(client: string, rejects: number, figures: BreakerFigures, now: number): Promise<BreakerRecord | undefined>;
  /** Every open breaker (expired ones may be among them: the reader compares `until`). */
  all(): Promise<BreakerRecord[]>;
  /** Closes the client's breaker; answers whether one was open. */
  reset(client: string): Promise<boolean>;
  /** Calls `listener` with each breaker tripped or reset (null) on any instance. */
  watch(listener: (client: string, record: BreakerRecord | null) => void): Promise<void>;
  close(): Promise<void>;
}

export class MemoryBreakerStore implements BreakerStore {
  private readonly rejects = new Map<string, number[]>();
  private readonly open = new Map<string, BreakerRecord>();

  async count(client: string, rejects: number, figures: BreakerFigures, now: number): Promise<BreakerRecord | undefined> {
    const windowMs = figures.windowSeconds * 1_000;
    const times = (this.rejects.get(client) ?? []).filter((at) => at > now - windowMs);
    for (let i = 0; i < rejects; i++) times.push(now);
    this.rejects.set(client, times);
    if (times.length < figures.rejects) return undefined;
    const current = this.open.get(client);
    if (current && current.until > now) return undefined;
    const record: BreakerRecord = { client, limit: figures.rejects, windowSeconds: figures.windowSeconds, observed: times.length, since: now, until: now + figures.coolOffSeconds * 1_000 };
    this.open.set(client, record);
    this.rejects.delete(client);
    return record;
  }

  async all(): Promise<BreakerRecord[]> {
    return [...this.open.values()];
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
  private readonly openKey: string;
  private readonly rejectsPrefix: string;
  private readonly channel: string;
  private subscriber?: RedisClient;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    // One hash tag for the counts and the open set: one script touches both in one cluster slot.
    this.openKey = `${prefix}{risk}:breaker:open`;
    this.rejectsPrefix = `${prefix}{risk}:breaker:rejects:`;
    this.channel = `${prefix}risk:breaker`;
  }

  async count(client: string, rejects: number, figures: BreakerFigures, now: number): Promise<BreakerRecord | undefined> {
    const answer = (await this.redis.eval(
      COUNT_REJECTS,
      2,
      this.rejectsPrefix + client,
      this.openKey,
      now,
      figures.windowSeconds * 1_000,
      figures.rejects,
      figures.coolOffSeconds * 1_000,
      randomUUID(),
      client,
      rejects,
    )) as [number, number, string | null];
    if (Number(answer[1]) !== 1 || typeof answer[2] !== 'string') return undefined;
    const record = JSON.parse(answer[2]) as BreakerRecord;
    await this.redis.publish(this.channel, JSON.stringify({ client, record })).catch(() => undefined);
    return record;
  }

  async all(): Promise<BreakerRecord[]> {
    return Object.values(await this.redis.hgetall(this.openKey)).map((text) => JSON.parse(text) as BreakerRecord);
  }

  async reset(client: string): Promise<boolean> {
    const [[, removed]] = ((await this.redis.multi().hdel(this.openKey, client).del(this.rejectsPrefix + client).exec()) ?? [[null, 0]]) as [unknown, number][];
    await this.redis.publish(this.channel, JSON.stringify({ client, record: null }));
    return Number(removed) > 0;
  }

  /** As the trading states: subscribed once the connection is ready; the re-reads cover a lost push or a late subscription. */
  async watch(listener: (client: string, record: BreakerRecord | null) => void): Promise<void> {
    const subscriber = duplicateRedis(this.redis);
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      const { client, record } = JSON.parse(text) as { client: string; record: BreakerRecord | null };
      listener(client, record);
    });
    const subscribe = () => {
      if (subscriber.status === 'ready') void subscriber.subscribe(this.channel).catch(() => undefined);
    };
    subscriber.on('ready', subscribe);
    subscribe();
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}
