import { createHash } from 'node:crypto';

import type { RedisClient } from '@lib/core';
import { Cluster } from 'ioredis';

/**
 * A script called by EVALSHA, one round trip per call. Redis forgets scripts on restart, failover or
 * SCRIPT FLUSH, and on a Cluster each master has its own cache (SCRIPT LOAD reaches one node): a
 * NOSCRIPT answer is retried once as EVAL on the node that owns the keys, which also caches it there.
 */
export class LuaScript {
  readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Loads the script on every master (every node of a Cluster), so the first calls need no fallback. */
  async load(redis: RedisClient): Promise<void> {
    const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
    await Promise.all(nodes.map((node) => node.script('LOAD', this.source)));
  }

  /** `keysAndArgs` holds the `numKeys` keys first, then the arguments, as EVALSHA wants them. */
  async run(redis: RedisClient, numKeys: number, keysAndArgs: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, numKeys, ...keysAndArgs);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return redis.eval(this.source, numKeys, ...keysAndArgs);
    }
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
