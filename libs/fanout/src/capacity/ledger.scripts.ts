import { LUA_GENERATION, LuaScript, type RedisClient, generationCandidates } from '@lib/core';

import {
  type ClaimOutcome,
  type HeldTopic,
  type PoolLimits,
  type StreamCap,
  clientTopicCap,
} from './stream-capacity.types.js';

/**
 * A pool's keys share one hash tag (one Cluster slot): `wants` (a sorted set of `<instance>\n<topic>`
 * scored by the holding's expiry: the upstream streams), `owners` (topic → `<kind>\n<team>`, the team
 * charged for it), `interest` (`<instance>\n<team>\n<topic>`, scored likewise: which teams' clients
 * hold each topic) and one sorted set per client of `wants`' members. Redis TIME is the clock, so
 * instance clocks do not matter.
 */
const PRELUDE = `${LUA_GENERATION}
local SEP = string.char(10)
local function now_ms()
  local t = redis.call('time')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function topic_of(member) return string.sub(member, string.find(member, SEP, 1, true) + 1) end
-- Drops lapsed holdings (a crashed instance's) and the owners of topics nobody holds any more. A topic
-- stays charged to its team only while a client of that team holds it: once none does, the charge moves
-- to a team whose clients still hold it (the first by name), so no team keeps another's share taken by
-- watching what the other opened (LocalHoldings.recharge). Nobody holding it (the linger): unchanged.
local function live_topics(wants, owners, interest, now)
  redis.call('zremrangebyscore', wants, '-inf', now)
  redis.call('zremrangebyscore', interest, '-inf', now)
  local live, count = {}, 0
  for _, member in ipairs(redis.call('zrange', wants, 0, -1)) do
    local topic = topic_of(member)
    if not live[topic] then live[topic] = true count = count + 1 end
  end
  local holders = {}
  for _, member in ipairs(redis.call('zrange', interest, 0, -1)) do
    local rest = topic_of(member)
    local at = string.find(rest, SEP, 1, true)
    local team, topic = string.sub(rest, 1, at - 1), string.sub(rest, at + 1)
    holders[topic] = holders[topic] or {}
    holders[topic][team] = true
  end
  local flat = redis.call('hgetall', owners)
  local held = {}
  for i = 1, #flat, 2 do
    local topic, owner = flat[i], flat[i + 1]
    if live[topic] then
      local at = string.find(owner, SEP, 1, true)
      local teams = holders[topic]
      if teams and not teams[string.sub(owner, at + 1)] then
        local first
        for team in pairs(teams) do if first == nil or team < first then first = team end end
        owner = string.sub(owner, 1, at) .. first
        redis.call('hset', owners, topic, owner)
      end
      held[topic] = owner
    else
      redis.call('hdel', owners, topic)
    end
  end
  return live, count, held
end
`;

/**
 * decideClaim (stream-capacity.types.ts), on the cluster's holdings; records a granted holding. After
 * Redis lost the count (its generation, LUA_GENERATION) no claim is decided on it until every live
 * holder has written its holdings back: ARGV[11] ms.
 */
const CLAIM = `${PRELUDE}
local instance, topic, kind, team = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local ttl, capacity, share, client_cap = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local now = now_ms()
local gen, settling = generation(KEYS[5], ARGV[9], ARGV[10], tonumber(ARGV[11]), now)
if settling > 0 then return {'settling', settling, gen} end
local live, count, owners = live_topics(KEYS[1], KEYS[2], KEYS[4], now)
redis.call('zremrangebyscore', KEYS[3], '-inf', now)
local mine, mine_count = {}, 0
for _, member in ipairs(redis.call('zrange', KEYS[3], 0, -1)) do
  local t = topic_of(member)
  if not mine[t] then mine[t] = true mine_count = mine_count + 1 end
end
if not mine[topic] and mine_count >= client_cap then return {'client', client_cap, gen} end
if not live[topic] then
  local team_count = 0
  for _, owner in pairs(owners) do
    if string.sub(owner, string.find(owner, SEP, 1, true) + 1) == team then team_count = team_count + 1 end
  end
  if team_count >= share then return {'team', share, gen} end
  if count >= capacity then return {'firm', capacity, gen} end
  redis.call('hset', KEYS[2], topic, kind .. SEP .. team)
end
local member = instance .. SEP .. topic
redis.call('zadd', KEYS[1], now + ttl, member)
redis.call('zadd', KEYS[3], now + ttl, member)
redis.call('zadd', KEYS[4], now + ttl, instance .. SEP .. team .. SEP .. topic)
for i = 1, 4 do redis.call('pexpire', KEYS[i], ttl * 2) end
return {'ok', 0, gen}`;

/** The count's generation, looked at by every instance every renewal (LUA_GENERATION): KEYS[1]; ARGV held, a candidate, settle ms. */
const GENERATION = `${PRELUDE}
local gen = generation(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), now_ms())
return gen`;

/**
 * Extends this instance's holdings; one that lapsed meanwhile (Redis was unreachable) is written back,
 * since the stream is still open: the count must show what is really held.
 */
const RENEW = `${PRELUDE}
local instance, ttl, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
for i = 0, n - 1 do
  redis.call('zadd', KEYS[1], now + ttl, instance .. SEP .. ARGV[4 + 2 * i])
  redis.call('hsetnx', KEYS[2], ARGV[4 + 2 * i], ARGV[5 + 2 * i])
end
local m = tonumber(ARGV[4 + 2 * n])
for j = 1, m do redis.call('zadd', KEYS[3], now + ttl, instance .. SEP .. ARGV[4 + 2 * n + j]) end
for k = 4, #KEYS do
  for topic in string.gmatch(ARGV[4 + 2 * n + m + k - 3], '[^' .. SEP .. ']+') do
    redis.call('zadd', KEYS[k], now + ttl, instance .. SEP .. topic)
  end
  redis.call('pexpire', KEYS[k], ttl * 2)
end
for k = 1, 3 do redis.call('pexpire', KEYS[k], ttl * 2) end
return 1`;

/** This instance let go of a topic; its owner is forgotten once no instance holds it. */
const RELEASE = `${PRELUDE}
redis.call('zrem', KEYS[1], ARGV[1] .. SEP .. ARGV[2])
local live = live_topics(KEYS[1], KEYS[2], KEYS[3], now_ms())
if live[ARGV[2]] then return 0 end
redis.call('hdel', KEYS[2], ARGV[2])
return 1`;

const VIEW = `${PRELUDE}
local _, _, owners = live_topics(KEYS[1], KEYS[2], KEYS[3], now_ms())
local result = {}
for _, owner in pairs(owners) do table.insert(result, owner) end
return result`;

const SEP = '\n';

/** Redis lost the count moments ago: the holders have not all written theirs back yet (ms left). */
export class CountSettlingError extends Error {
  constructor(readonly msLeft: number) {
    super(`the stream count is being rebuilt after Redis lost it (${msLeft} ms left)`);
  }
}

export interface PoolKeys {
  wants: string;
  owners: string;
  interest: string;
  generation: string;
  client(client: string): string;
}

export function poolKeys(prefix: string, pool: string): PoolKeys {
  const tag = `${prefix}{streams:${pool}}`;
  return {
    wants: `${tag}:wants`,
    owners: `${tag}:owners`,
    interest: `${tag}:interest`,
    generation: `${tag}:generation`,
    client: (client) => `${tag}:client:${client}`,
  };
}

/** The ledger's Redis commands for one instance. */
export class LedgerScripts {
  private readonly claimScript = new LuaScript(CLAIM);
  private readonly renewScript = new LuaScript(RENEW);
  private readonly releaseScript = new LuaScript(RELEASE);
  private readonly viewScript = new LuaScript(VIEW);
  private readonly generationScript = new LuaScript(GENERATION);
  /** Each pool's count generation as this instance last saw it ('' before it saw one). */
  private readonly generations = new Map<string, string>();
  private readonly candidate: () => string;

  /**
   * `ttlMs`: a holding's lifetime. It is also how long after a loss the count is not decided on: every
   * live holder renews within it (the config keeps it at least two renewals).
   */
  constructor(
    private readonly redis: RedisClient,
    private readonly instance: string,
    private readonly ttlMs: number,
  ) {
    this.candidate = generationCandidates(instance);
  }

  /** Looks at the pool's count generation (creating it; a loss if this instance held one). */
  async lookAtGeneration(keys: PoolKeys): Promise<void> {
    const held = this.generations.get(keys.generation) ?? '';
    const current = await this.generationScript.run(
      this.redis,
      [keys.generation],
      [held, this.candidate(), this.ttlMs],
    );
    this.generations.set(keys.generation, String(current));
  }

  async claim(
    keys: PoolKeys,
    limits: PoolLimits,
    topic: string,
    held: HeldTopic,
    client: string,
  ): Promise<ClaimOutcome> {
    const args = [
      this.instance,
      topic,
      held.kind,
      held.team,
      this.ttlMs,
      limits.capacity,
      limits.teamShares[held.team] ?? 0,
      clientTopicCap(limits, client),
      this.generations.get(keys.generation) ?? '',
      this.candidate(),
      this.ttlMs,
    ];
    const [verdict, limit, generation] = (await this.claimScript.run(
      this.redis,
      [keys.wants, keys.owners, keys.client(client), keys.interest, keys.generation],
      args,
    )) as [string, number, string];
    this.generations.set(keys.generation, String(generation));
    if (verdict === 'settling') throw new CountSettlingError(Number(limit));
    return verdict === 'ok' ? { granted: true } : { granted: false, cap: verdict as StreamCap, limit: Number(limit) };
  }

  /** `interests`: every (team, topic) a client of the team holds on this instance. */
  async renew(
    keys: PoolKeys,
    topics: [string, HeldTopic][],
    interests: [string, string][],
    clients: [string, string[]][],
  ): Promise<void> {
    if (topics.length === 0 && clients.length === 0) return;
    const args = [
      this.instance,
      this.ttlMs,
      topics.length,
      ...topics.flatMap(([topic, held]) => [topic, ownerOf(held)]),
      interests.length,
      ...interests.map(([team, topic]) => `${team}${SEP}${topic}`),
      ...clients.map(([, list]) => list.join(SEP)),
    ];
    await this.renewScript.run(
      this.redis,
      [keys.wants, keys.owners, keys.interest, ...clients.map(([client]) => keys.client(client))],
      args,
    );
  }

  async release(keys: PoolKeys, topic: string): Promise<void> {
    await this.releaseScript.run(this.redis, [keys.wants, keys.owners, keys.interest], [this.instance, topic]);
  }

  /** The client's last subscription here left the topic; `teamLeft`: so did the last of its team's clients here. */
  async leave(keys: PoolKeys, topic: string, client: string, teamLeft?: string): Promise<void> {
    await this.redis.zrem(keys.client(client), `${this.instance}${SEP}${topic}`);
    if (teamLeft !== undefined) await this.redis.zrem(keys.interest, `${this.instance}${SEP}${teamLeft}${SEP}${topic}`);
  }

  /** The kind and team of every topic the pool holds, cluster-wide. */
  async view(keys: PoolKeys): Promise<HeldTopic[]> {
    const owners = (await this.viewScript.run(this.redis, [keys.wants, keys.owners, keys.interest], [])) as string[];
    return owners.map((owner) => {
      const at = owner.indexOf(SEP);
      return { kind: owner.slice(0, at), team: owner.slice(at + 1) };
    });
  }
}

function ownerOf(held: HeldTopic): string {
  return `${held.kind}${SEP}${held.team}`;
}
