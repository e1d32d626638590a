import { createHash } from 'node:crypto';

import type { RedisClient } from '@lib/core';

/** A Lua script run by its SHA. */
export class Script {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** The script's number reply. */
  async run(redis: RedisClient, keys: string[], args: (string | number)[]): Promise<number> {
    return Number(await this.reply(redis, keys, args));
  }

  /**
   * EVAL every time, for calls whose order matters (a topic's frames): after Redis lost its script cache
   * (a restart, a failover), an EVALSHA refused with NOSCRIPT and retried as EVAL would run after the
   * calls sent meanwhile, which the first EVAL had made succeed: frames published out of order.
   */
  async runInOrder(redis: RedisClient, keys: string[], args: (string | number)[]): Promise<number> {
    return Number(await redis.eval(this.source, keys.length, ...keys, ...args));
  }

  /** EVALSHA, falling back to EVAL on the node that lacks it (a restart, a promoted replica, a fresh Cluster master). */
  async reply(redis: RedisClient, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
