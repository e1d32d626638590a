import { type RedisClient, duplicateRedis, nextRedisEvent } from '@lib/core';
import { Cluster } from 'ioredis';

/** How soon an SSUBSCRIBE refused while the Cluster's per-shard subscribers start is tried again. */
const SHARDS_RETRY_MS = 25;

export interface RelayHandlers {
  frame(channel: string, payload: Buffer): void;
  resync(topic: string): void;
}

/**
 * The pub/sub connection of one instance (a subscribed connection can do nothing else, hence its own).
 * It listens on one channel per wanted topic, plus one channel where relays ask holders for a resync.
 * On a Cluster the topic channels are sharded (SSUBSCRIBE; the holder SPUBLISHes in the topic's slot),
 * so relay traffic stays on the shard of the topic instead of going to every node.
 */
export class RelaySubscriber {
  private connection: RedisClient | undefined;
  private listening: Promise<unknown> | undefined;
  private readonly channels = new Set<string>();
  private readonly sharded: boolean;
  /** The Cluster connection has started its per-shard subscribers (ioredis' 'subscribersReady'). */
  private shardsReady = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly resyncChannel: string,
    private readonly handlers: RelayHandlers,
    private readonly readyTimeoutMs = 2_000,
  ) {
    this.sharded = redis instanceof Cluster;
  }

  /**
   * Opens the pub/sub connection before any topic is wanted and, on a Cluster, waits for its per-shard
   * subscribers: a topic asked of an instance whose pub/sub is not up yet is held by that instance (a second
   * upstream stream beside the holder's). Never rejects, and gives up after `readyTimeoutMs`: a topic's
   * subscribe tries again on its own.
   */
  async start(): Promise<void> {
    const deadline = performance.now() + this.readyTimeoutMs;
    try {
      const connection = await this.connect();
      if (this.sharded && !this.shardsReady)
        await nextRedisEvent(connection, 'subscribersReady', Math.max(0, deadline - performance.now()));
    } catch {
      // Redis is not reachable yet: the first topic's subscribe connects (or holds it locally).
    }
  }

  async subscribe(channel: string): Promise<void> {
    if (this.channels.has(channel)) return;
    // Tracked before the reply, so an unsubscribe racing with it is not lost.
    this.channels.add(channel);
    try {
      const connection = await this.connect();
      if (!this.channels.has(channel)) return;
      if (this.sharded) await this.ssubscribe(connection, channel);
      else await bounded(connection.subscribe(channel), this.readyTimeoutMs);
    } catch (error) {
      this.channels.delete(channel);
      throw error;
    }
  }

  /**
   * A Cluster connection is `ready` before it has a subscriber per shard (ioredis starts them once it has
   * read the slots, and a second slots refresh at start is deferred behind the first): an SSUBSCRIBE in
   * that window fails with "No sharded subscriber for slot". It is tried again until the shards' subscribers
   * exist, within the same bound as the rest of the subscribe.
   */
  private async ssubscribe(connection: RedisClient, channel: string): Promise<void> {
    const deadline = performance.now() + this.readyTimeoutMs;
    for (;;) {
      try {
        return void (await bounded(connection.ssubscribe(channel), this.readyTimeoutMs));
      } catch (error) {
        const starting = error instanceof Error && error.message.startsWith('No sharded subscriber');
        if (!starting || performance.now() >= deadline || !this.channels.has(channel)) throw error;
        await new Promise((resolve) => setTimeout(resolve, SHARDS_RETRY_MS));
      }
    }
  }

  async unsubscribe(channel: string): Promise<void> {
    if (!this.channels.delete(channel) || !this.connection) return;
    await (this.sharded ? this.connection.sunsubscribe(channel) : this.connection.unsubscribe(channel)).catch(
      () => undefined,
    );
  }

  async requestResync(topic: string): Promise<void> {
    await this.redis.publish(this.resyncChannel, topic);
  }

  async close(): Promise<void> {
    this.channels.clear();
    const connection = this.connection;
    this.connection = undefined;
    this.listening = undefined;
    if (connection) await connection.quit().catch(() => connection.disconnect());
  }

  private async connect(): Promise<RedisClient> {
    const connection = (this.connection ??= this.create());
    if (connection.status !== 'ready') await waitReady(connection, this.readyTimeoutMs);
    this.listening ??= bounded(connection.subscribe(this.resyncChannel), this.readyTimeoutMs).catch(
      (error: unknown) => {
        this.listening = undefined;
        throw error;
      },
    );
    await this.listening;
    return connection;
  }

  private create(): RedisClient {
    const connection = duplicateRedis(this.redis);
    const onMessage = (channel: Buffer, message: Buffer) => {
      const name = channel.toString();
      if (name === this.resyncChannel) this.handlers.resync(message.toString());
      else this.handlers.frame(name, message);
    };
    connection.on('messageBuffer', onMessage);
    connection.on('smessageBuffer', onMessage);
    this.shardsReady = false;
    if (this.sharded) connection.once('subscribersReady', () => (this.shardsReady = connection === this.connection));
    return connection;
  }
}

/** Bounded: while Redis is down ioredis retries for ever, and a subscriber must not wait that long. */
async function waitReady(connection: RedisClient, timeoutMs: number): Promise<void> {
  if (!(await nextRedisEvent(connection, 'ready', timeoutMs)))
    throw new Error(`the Redis pub/sub connection was not ready within ${timeoutMs} ms`);
}

/** The connection has no command timeout (see duplicateRedis): a subscribe that Redis does not answer fails here. */
function bounded<T>(command: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer a subscribe within ${timeoutMs} ms`)), timeoutMs);
  });
  command.catch(() => undefined); // its late failure, if any, is no longer anyone's concern
  return Promise.race([command, timeout]).finally(() => clearTimeout(timer));
}
