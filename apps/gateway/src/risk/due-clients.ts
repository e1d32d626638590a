import { LuaScript, luaNowMs, type RedisClient } from '@lib/core';

import { type DueListing, DueMirror } from './due-mirror.js';

/** How long an instance that took a due client may run its cancels before another instance takes the client again. */
const FIRING_LEASE_MS = 15_000;
/** Due clients taken per poll. */
const TAKE_MAX = 20;
/** How often the whole due set is read into the mirror: a disarm made elsewhere this long before an outage may be missed. */
const MIRROR_READ_MS = 1_000;

/** KEYS[1] the due set, KEYS[2] the periods; ARGV[1] a client, ARGV[2] ms from now: due at that instant of Redis's clock, returned. */
const SCHEDULE = new LuaScript(
  `${luaNowMs('now')}
local at = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], at, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return at`,
);

/** KEYS[1] the due set, KEYS[2] the periods; ARGV[1] a client: no longer due. */
const UNSCHEDULE = new LuaScript(
  `redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 0`,
);

/** KEYS[1] the due set, KEYS[2] the periods: {Redis's clock, then client, instant, period (0 unknown) for each}. */
const LIST = new LuaScript(
  `${luaNowMs('now')}
local out = {now}
local due = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #due, 2 do
  out[#out + 1] = due[i]
  out[#out + 1] = due[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], due[i]) or '0'
end
return out`,
);

/**
 * KEYS[1] the due set, KEYS[2] the periods; ARGV pairs of client and the instant it was fired for from a
 * mirror while Redis was out: off the set unless re-armed since (a later instant), so it does not fire twice.
 */
const SETTLE = new LuaScript(
  `for i = 1, #ARGV, 2 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) <= tonumber(ARGV[i + 1]) then
    redis.call('ZREM', KEYS[1], ARGV[i])
    redis.call('HDEL', KEYS[2], ARGV[i])
  end
end
return 0`,
);

/**
 * KEYS[1] the due set (client → instant), KEYS[2] the firing set (client → lease end), KEYS[3] the
 * periods (client → ms, for the mirrors), KEYS[4] optional: live claims (`<client>\n<instance>` → claim end). ARGV[1] how many, ARGV[2] the lease, ARGV[3] a claim
 * ending at least this many ms from now was renewed lately (its instance is alive).
 * Returns {taken, stood}: the clients this caller must fire now (lapsed, or left by a firer that died
 * mid-way), and those that stood down because a live claim says they are still connected. A client whose
 * only claim missed its renewal (its instance may have died) is looked at again when that claim ends.
 */
const TAKE = new LuaScript(
  `${luaNowMs('now')}
local max, lease = tonumber(ARGV[1]), tonumber(ARGV[2])
local taken, stood, standing = {}, {}, {}
for _, client in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, max)) do
  redis.call('ZADD', KEYS[2], now + lease, client)
  taken[#taken + 1] = client
end
if KEYS[4] then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  local claims = redis.call('ZRANGEBYSCORE', KEYS[4], now, '+inf', 'WITHSCORES')
  for i = 1, #claims, 2 do
    local client = string.match(claims[i], '^(.*)\\n')
    local ends = tonumber(claims[i + 1])
    if client and (standing[client] == nil or ends > standing[client]) then standing[client] = ends end
  end
end
for _, client in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, max)) do
  local ends = standing[client]
  if ends and ends >= now + tonumber(ARGV[3]) then
    redis.call('ZREM', KEYS[1], client)
    redis.call('HDEL', KEYS[3], client)
    stood[#stood + 1] = client
  elseif ends then
    redis.call('ZADD', KEYS[1], ends + 1, client)
  else
    redis.call('ZREM', KEYS[1], client)
    redis.call('HDEL', KEYS[3], client)
    redis.call('ZADD', KEYS[2], now + lease, client)
    taken[#taken + 1] = client
  end
end
return {taken, stood}`,
);

/** Live claims that `DueClients.take` reads: the set's key, and how far ahead a renewed claim ends at least. */
export interface LiveClaims {
  key: string;
  renewedEndsAfterMs: number;
}

/** One poll's answer: the clients to fire now, and whether Redis answered. */
export interface DuePoll {
  /** Taken from Redis under a lease (`done` ends it), or, while Redis is out, lapsed in this instance's mirror. */
  fire: string[];
  /** Stood down: a live claim says they are still connected elsewhere. */
  stood: string[];
  /** Redis did not answer: the error, and whether this poll is the outage's first. */
  outage?: { error: unknown; began: boolean };
  /** Redis answered after an outage. */
  resumed: boolean;
}

/**
 * Clients due for a brake (the dead-man's switch, cancel-on-disconnect) at an instant of Redis's clock,
 * shared by every instance: whichever instance polls first takes a lapsed client under a lease, runs its
 * cancels and then lets it go (`done`). A lease that runs out (the instance died mid-way, or its `done`
 * was lost) is taken again by another instance: a client's cancel-all run twice finds nothing open the
 * second time. Every key shares the `{risk}` slot.
 *
 * While Redis does not answer, each instance fires from its own mirror of the set (DueMirror: never
 * earlier than Redis would have), so a brake still fires during an outage; several instances may fire
 * the same client (the second cancel-all finds nothing). When Redis answers again, the clients fired
 * meanwhile are taken off the set unless re-armed since, so they do not fire again there.
 */
export class DueClients {
  private readonly firing: string;
  /** client → the period (ms) its instant was set with, for the mirrors' conservative rule. */
  readonly periods: string;
  private readonly mirror: DueMirror;
  private readAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly redis: RedisClient,
    private readonly due: string,
    private readonly now: () => number,
  ) {
    this.firing = `${due}:firing`;
    this.periods = `${due}:period`;
    this.mirror = new DueMirror(now);
  }

  /** Due `inMs` from now on Redis's clock (an earlier or later instant is replaced); the instant, ms since the epoch. */
  async schedule(clientId: string, inMs: number): Promise<number> {
    try {
      const at = Number(await SCHEDULE.run(this.redis, [this.due, this.periods], [clientId, inMs]));
      this.mirror.scheduled(clientId, inMs, String(at));
      return at;
    } catch (error) {
      // It may have landed: the mirror is never earlier than it.
      this.mirror.scheduled(clientId, inMs, undefined);
      throw error;
    }
  }

  /** Made due here by another script (`at`, Redis's instant, `inMs` from now): mirrored. */
  scheduledElsewhere(clientId: string, inMs: number, at: number): void {
    this.mirror.scheduled(clientId, inMs, String(at));
  }

  /** Off the set. Not answered: still mirrored (the switch may still be armed; the caller says so). */
  async unschedule(clientId: string): Promise<void> {
    await UNSCHEDULE.run(this.redis, [this.due, this.periods], [clientId]);
    this.mirror.forget(clientId);
  }

  /** Off this instance's mirror only (the client is connected here: nothing of it fires here). */
  forget(clientId: string): void {
    this.mirror.forget(clientId);
  }

  /** The clients to fire now: from Redis, or from the mirror while Redis does not answer. Never throws. */
  async poll(live?: LiveClaims): Promise<DuePoll> {
    try {
      const fired = this.mirror.firedMeanwhile();
      if (fired.length > 0) await SETTLE.run(this.redis, [this.due, this.periods], fired.flat());
      const { taken, stood } = await this.take(live);
      const resumed = this.mirror.answered();
      for (const clientId of [...taken, ...stood]) this.mirror.forget(clientId);
      if (this.now() - this.readAt >= MIRROR_READ_MS) await this.read().catch(() => undefined);
      return { fire: taken, stood, resumed };
    } catch (error) {
      const { lapsed, began } = this.mirror.unanswered();
      return { fire: lapsed, stood: [], outage: { error, began }, resumed: false };
    }
  }

  /** The clients to fire now, and (with live claims) those that stood down. */
  private async take(live?: LiveClaims): Promise<{ taken: string[]; stood: string[] }> {
    const keys = [this.due, this.firing, this.periods, ...(live ? [live.key] : [])];
    const [taken, stood] = (await TAKE.run(this.redis, keys, [
      TAKE_MAX,
      FIRING_LEASE_MS,
      live?.renewedEndsAfterMs ?? 0,
    ])) as [string[], string[]];
    return { taken, stood };
  }

  /** The whole set into the mirror (one entry per client). */
  private async read(): Promise<void> {
    const askedAt = this.now();
    const [redisNow, ...flat] = (await LIST.run(this.redis, [this.due, this.periods])) as [number, ...string[]];
    const listing: DueListing = { redisNow: Number(redisNow), entries: [] };
    for (let i = 0; i + 2 < flat.length; i += 3)
      listing.entries.push({ clientId: flat[i], score: flat[i + 1], periodMs: Number(flat[i + 2]) || 0 });
    this.readAt = this.now();
    this.mirror.replace(listing, this.readAt, askedAt);
  }

  /** The client's cancels ran: its lease ends (a failed `done` only lets another instance run them again). */
  async done(clientId: string): Promise<void> {
    await this.redis.zrem(this.firing, clientId).catch(() => undefined);
  }

  /** A firing from the mirror failed (Redis out): tried again from the mirror in a second. */
  retryAlone(clientId: string): void {
    this.mirror.retry(clientId, 1_000);
  }
}
