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
 * Lua defining `generation(key, held, candidate, window, now)`, for a count kept in Redis that Redis may
 * lose (restarted empty, flushed, failed over to an empty replica) while instances go on trusting it.
 * The generation key (no expiry) holds `<candidate>:<created ms>:<loss>`. An instance that held one
 * (`held`, '' before its first) and finds none creates the next one marked as a loss; one that held one
 * and finds another, unmarked (made by an instance that held none: a fresh start, or the first to look
 * after a loss), marks it, keeping its creation time. So every instance that saw the old count sees the
 * loss, and the generation changes only when the key was lost. `candidate` must differ from every earlier
 * generation's (an instance id and a counter). Returns the generation and the ms left of `window` after a
 * marked loss's creation: 0 when none, or when Redis's clock has stepped back further than `window`.
 */
export const LUA_GENERATION = `
local function generation(key, held, candidate, window, now)
  local current = redis.call('GET', key)
  if not current then
    local loss = '0'
    if held ~= '' then loss = '1' end
    current = candidate .. ':' .. string.format('%d', now) .. ':' .. loss
    redis.call('SET', key, current)
  end
  local created, loss = string.match(current, ':(%d+):(%d)$')
  if loss == '0' and held ~= '' and held ~= current then
    current = string.sub(current, 1, -2) .. '1'
    loss = '1'
    redis.call('SET', key, current)
  end
  if loss ~= '1' then return current, 0 end
  local age = now - tonumber(created)
  if age >= window or age <= -window then return current, 0 end
  return current, math.min(window - age, window)
end
`;

/** Per-instance candidates for LUA_GENERATION: unique across instances and calls, without a random id per call. */
export function generationCandidates(instance: string): () => string {
  let next = 0;
  return () => `${instance}.${(next++).toString(36)}`;
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
