import { randomUUID } from 'node:crypto';

import { Logger } from '@nestjs/common';
import { LuaScript, type RedisClient, duplicateRedis } from '@lib/core';

/** How long a starting instance waits for its subscription before serving (it re-reads the set anyway). */
const SUBSCRIBE_WAIT_MS = 2_000;

/**
 * KEYS[1]: the hash of latched records, KEYS[2]: its generation. ARGV[1]: the generation the caller
 * holds ('' for none yet), ARGV[2]: a new one, ARGV[3..]: field, record pairs the caller holds.
 * A missing generation (Redis lost its data: restarted empty, FLUSHALL, an empty replica promoted, the
 * key evicted) is created; a missing or changed one, for a caller that held one, is a loss: the pairs
 * sent are latched again where no newer write took their field (HSETNX). Answers {generation, lost, hash}.
 */
const READ = new LuaScript(`
local generation = redis.call('GET', KEYS[2])
local lost = 0
if not generation then
  generation = ARGV[2]
  redis.call('SET', KEYS[2], generation)
  if ARGV[1] ~= '' then lost = 1 end
elseif ARGV[1] ~= '' and ARGV[1] ~= generation then
  lost = 1
end
if lost == 1 then
  for i = 3, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return {generation, lost, redis.call('HGETALL', KEYS[1])}
`);

/**
 * One Redis hash of JSON records latched for the whole fleet, with a generation key beside it (same
 * hash tag) so that a Redis that lost its data is told from one that never had any, and a pub/sub
 * channel that pushes each change to every instance. Shared by the trading states and the reject breaker.
 */
export class RedisLatchedHash<R> {
  private readonly logger: Logger;
  private readonly generationKey: string;
  private generation = '';
  private subscriber?: RedisClient;

  constructor(
    private readonly redis: RedisClient,
    readonly hashKey: string,
    private readonly channel: string,
    name: string,
  ) {
    this.generationKey = `${hashKey}:generation`;
    this.logger = new Logger(name);
  }

  /** The whole hash; when Redis lost it since this instance last read, `held` is latched again first. */
  async read(held: ReadonlyMap<string, R>): Promise<Map<string, R>> {
    let answer = await this.run([]);
    if (answer.lost) {
      const pairs = [...held].flatMap(([key, record]) => [key, JSON.stringify(record)]);
      answer = await this.run(pairs);
      this.logger.warn(
        `Redis lost the latched set ${this.hashKey} (restarted empty, flushed or failed over): the ${held.size} records this instance held are latched again`,
      );
    }
    this.generation = answer.generation;
    const records = new Map<string, R>();
    for (let i = 0; i + 1 < answer.hash.length; i += 2)
      records.set(answer.hash[i]!, JSON.parse(answer.hash[i + 1]!) as R);
    return records;
  }

  /**
   * Tells every instance (this one included) that `key` now holds `record` (null: removed). Best effort,
   * never throws: the record is written before this, and a push that is lost heals at each instance's
   * next re-read (LatchedSet). A failure here must not report a latched change as not made.
   */
  async publish(key: string, record: R | null): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify({ key, record })).catch(() => undefined);
  }

  /**
   * Subscribes once the connection is ready (no offline queue: a command before that fails) and again
   * whenever it becomes ready after a failed first try; ioredis itself re-subscribes after a reconnect.
   * Resolves when subscribed, or after `SUBSCRIBE_WAIT_MS` (Redis down at start: the re-reads cover).
   */
  async watch(listener: (key: string, record: R | null) => void): Promise<void> {
    const subscriber = duplicateRedis(this.redis);
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      const { key, record } = JSON.parse(text) as { key: string; record: R | null };
      listener(key, record);
    });
    let subscribed = false;
    const subscribe = async () => {
      if (subscribed || subscriber.status !== 'ready') return;
      await subscriber.subscribe(this.channel).then(
        () => (subscribed = true),
        () => undefined,
      );
    };
    const ready = new Promise<void>((resolve) => {
      subscriber.on('ready', () => void subscribe().then(resolve));
      void subscribe().then(() => subscribed && resolve());
    });
    if (this.redis.status === 'ready')
      await Promise.race([ready, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  private async run(pairs: readonly string[]): Promise<{ generation: string; lost: boolean; hash: string[] }> {
    const [generation, lost, hash] = (await READ.run(
      this.redis,
      [this.hashKey, this.generationKey],
      [this.generation, randomUUID(), ...pairs],
    )) as [string, number, string[]];
    return { generation, lost: Number(lost) === 1, hash };
  }
}
