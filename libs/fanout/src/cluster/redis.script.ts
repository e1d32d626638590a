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
