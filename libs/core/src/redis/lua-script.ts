import { createHash } from 'node:crypto';

import { Cluster } from 'ioredis';

import type { RedisClient } from './redis.factory.js';

/**
 * Lua that sets `variable` to Redis's own clock in whole milliseconds (`TIME`), so instances whose
 * clocks differ agree on what a script stores and compares.
 */
export function luaNowMs(variable: string): string {
  return `local ${variable} = (function() local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000) end)()`;
}

/**
 * The one Lua-script helper: a script called by EVALSHA, one round trip per call. Redis forgets scripts
 * on restart, failover or SCRIPT FLUSH, and on a Cluster each master has its own cache (SCRIPT LOAD
 * reaches one node): a NOSCRIPT answer is retried once as EVAL on the node that owns the keys, which
 * also caches it there. `runInOrder` sends EVAL every time, for calls whose order matters.
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

  /** The script's reply: EVALSHA, falling back to EVAL on the node that lacks it. */
  run(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[] = []): Promise<unknown> {
    return this.runFlat(redis, keys.length, [...keys, ...args]);
  }

  /** As `run`, for a caller that built the flat list itself: the `numKeys` keys first, then the arguments, as EVALSHA wants them. */
  async runFlat(redis: RedisClient, numKeys: number, keysAndArgs: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, numKeys, ...keysAndArgs);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return await redis.eval(this.source, numKeys, ...keysAndArgs);
    }
  }

  /**
   * EVAL every time, for calls whose order matters (a topic's frames): after Redis lost its script cache
   * (a restart, a failover), an EVALSHA refused with NOSCRIPT and retried as EVAL would run after the
   * calls sent meanwhile, which the first EVAL had made succeed: frames published out of order.
   */
  runInOrder(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[] = []): Promise<unknown> {
    return redis.eval(this.source, keys.length, ...keys, ...args);
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
