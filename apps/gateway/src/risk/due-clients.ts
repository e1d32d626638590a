import { LuaScript, luaNowMs, type RedisClient } from '@lib/core';

/** How long an instance that took a due client may run its cancels before another instance takes the client again. */
const FIRING_LEASE_MS = 15_000;
/** Due clients taken per poll. */
const TAKE_MAX = 20;

/** KEYS[1] the due set; ARGV[1] a client, ARGV[2] ms from now: due at that instant of Redis's clock, returned. */
const SCHEDULE = new LuaScript(
  `${luaNowMs('now')}
local at = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], at, ARGV[1])
return at`,
);

/**
 * KEYS[1] the due set (client → instant), KEYS[2] the firing set (client → lease end), KEYS[3] optional:
 * live claims (`<client>\n<instance>` → claim end). ARGV[1] how many, ARGV[2] the lease, ARGV[3] a claim
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
if KEYS[3] then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  local claims = redis.call('ZRANGEBYSCORE', KEYS[3], now, '+inf', 'WITHSCORES')
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
    stood[#stood + 1] = client
  elseif ends then
    redis.call('ZADD', KEYS[1], ends + 1, client)
  else
    redis.call('ZREM', KEYS[1], client)
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

/**
 * Clients due for a brake (the dead-man's switch, cancel-on-disconnect) at an instant of Redis's clock,
 * shared by every instance: whichever instance polls first takes a lapsed client under a lease, runs its
 * cancels and then lets it go (`done`). A lease that runs out (the instance died mid-way, or its `done`
 * was lost) is taken again by another instance: a client's cancel-all run twice finds nothing open the
 * second time. Every key shares the `{risk}` slot.
 */
export class DueClients {
  private readonly firing: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly due: string,
  ) {
    this.firing = `${due}:firing`;
  }

  /** Due `inMs` from now on Redis's clock (an earlier or later instant is replaced); the instant, ms since the epoch. */
  async schedule(clientId: string, inMs: number): Promise<number> {
    return Number(await SCHEDULE.run(this.redis, [this.due], [clientId, inMs]));
  }

  async unschedule(clientId: string): Promise<void> {
    await this.redis.zrem(this.due, clientId);
  }

  /** The clients to fire now, and (with live claims) those that stood down. */
  async take(live?: LiveClaims): Promise<{ taken: string[]; stood: string[] }> {
    const keys = live ? [this.due, this.firing, live.key] : [this.due, this.firing];
    const [taken, stood] = (await TAKE.run(this.redis, keys, [
      TAKE_MAX,
      FIRING_LEASE_MS,
      live?.renewedEndsAfterMs ?? 0,
    ])) as [string[], string[]];
    return { taken, stood };
  }

  /** The client's cancels ran: its lease ends (a failed `done` only lets another instance run them again). */
  async done(clientId: string): Promise<void> {
    await this.redis.zrem(this.firing, clientId).catch(() => undefined);
  }
}
