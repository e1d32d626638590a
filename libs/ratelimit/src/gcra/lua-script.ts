import { createHash } from 'node:crypto';

import type { RedisClient } from '@lib/core';

/**
 * A script loaded once with SCRIPT LOAD and called by EVALSHA. Redis forgets scripts on restart,
 * failover or SCRIPT FLUSH; then EVALSHA answers NOSCRIPT and the script is loaded again and retried.
 */
export class LuaScript {
  readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async load(redis: RedisClient): Promise<void> {
    await redis.script('LOAD', this.source);
  }

  /** `keysAndArgs` holds the `numKeys` keys first, then the arguments, as EVALSHA wants them. */
  async run(redis: RedisClient, numKeys: number, keysAndArgs: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, numKeys, ...keysAndArgs);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      await this.load(redis);
      return redis.evalsha(this.sha, numKeys, ...keysAndArgs);
    }
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
