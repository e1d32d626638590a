import { LuaScript } from './lua-script.js';
import type { RedisClient } from './redis.factory.js';

/**
 * The one lock kept in Redis (a catalog key's fill, a holder's reducing orders in one market): `key`
 * holds its owner's token for `ms` at most (SET NX PX), so a stopped owner's lock lapses; only its owner
 * frees it. A lock may carry a mark (a key in the same slot: one hash tag) that each release stamps with
 * the releasing token, so a later owner can tell whether the lock changed hands since it last looked.
 */

/**
 * KEYS: the lock[, its mark]. ARGV: the token, ms. Reply {1, the mark ('' when none)} taken, {0, ''} held by another.
 * Lua reads a missing key as false, hence the `or ''`.
 */
const TAKE = new LuaScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {0, ''} end
if KEYS[2] then return {1, redis.call('GET', KEYS[2]) or ''} end
return {1, ''}
`);

/** KEYS: the lock[, its mark]. ARGV: the token[, the mark's ms]. Frees the lock if the token holds it; stamps the mark either way. */
const RELEASE = new LuaScript(`
local freed = 0
if redis.call('GET', KEYS[1]) == ARGV[1] then freed = redis.call('DEL', KEYS[1]) end
if KEYS[2] then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2]) end
return freed
`);

/** A lock's mark: where releases are stamped, and how long a stamp is kept. */
export interface LockMark {
  key: string;
  ms: number;
}

/** Takes `key` for `token` for `ms`: `undefined` when another holds it, else the mark as the last release left it ('' when none or unmarked). One round trip. */
export async function takeLock(
  redis: RedisClient,
  key: string,
  token: string,
  ms: number,
  mark?: LockMark,
): Promise<string | undefined> {
  const reply = (await TAKE.run(redis, mark ? [key, mark.key] : [key], [token, Math.max(1, Math.ceil(ms))])) as [
    number,
    string,
  ];
  return reply[0] === 1 ? String(reply[1]) : undefined;
}

/** Frees `key` if `token` still holds it (never a later owner's lock) and stamps the mark with `token`. One round trip. */
export async function releaseLock(redis: RedisClient, key: string, token: string, mark?: LockMark): Promise<void> {
  await RELEASE.run(redis, mark ? [key, mark.key] : [key], mark ? [token, mark.ms] : [token]);
}
