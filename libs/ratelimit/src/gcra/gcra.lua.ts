/**
 * Decides a batch of requests in one round trip; each request takes all its cells or none, in
 * batch order, so later requests see what earlier ones took (the twin of gcra.ts). Time comes
 * from Redis `TIME`, once per batch, so the clocks of gateway instances do not matter. TAT keys
 * carry no expiry: there is one per bucket (and team share) in config, and a TAT in the past reads
 * as a full cell; without PX the write is one plain SET per touched key per batch.
 *
 * KEYS   every distinct key of the batch: TATs of cells, cool-down keys of upstream buckets; last,
 *        the budget's generation key (see ADOPT_SCRIPT)
 * ARGV   plan count, then per plan (a request shape, sent once per batch): class letter, cell
 *        count, cool-down count, per cell its KEYS index, emission interval ms and usable span ms
 *        (tokens its class may use × interval), per cool-down key its KEYS index; then per
 *        request: plan number, cost; last, the generation this instance holds. A cool-down value lists
 *        the classes it blocks.
 * Reply  {-1} when the generation key is missing or another (Redis lost the budget: nothing taken),
 *        else per request: allowed, wait ms, limiting cell (1-based, 0 none), reason (0 ok, 1 bucket,
 *        2 cool-down), then per cell its debt after the decision, TAT − now in µs (0 = full)
 */
export const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local vals = redis.call('MGET', unpack(KEYS))
if vals[#KEYS] ~= ARGV[#ARGV] then return { -1 } end
local plans, touched, out, tats, nexts = {}, {}, {}, {}, {}
local a = 1
for p = 1, tonumber(ARGV[1]) do
  plans[p] = a
  a = a + 3 + 3 * ARGV[a + 2] + ARGV[a + 3]
end
while a < #ARGV - 1 do
  local o, cost = plans[tonumber(ARGV[a + 1])], tonumber(ARGV[a + 2])
  a = a + 2
  local class, cells, cools = ARGV[o + 1], tonumber(ARGV[o + 2]), tonumber(ARGV[o + 3])
  local wait, limiting, reason = 0, 0, 0
  for j = 1, cools do
    local k = tonumber(ARGV[o + 3 + 3 * cells + j])
    local v = vals[k]
    if v and string.find(v, class, 1, true) then
      local pttl = redis.call('PTTL', KEYS[k])
      if pttl > 0 and (reason == 0 or pttl > wait) then wait = pttl; limiting = j; reason = 2 end
    end
  end
  for i = 1, cells do
    local c = o + 3 * i
    local tat = tonumber(vals[tonumber(ARGV[c + 1])]) or now
    if tat < now then tat = now end
    local nextTat = tat + cost * ARGV[c + 2]
    local late = nextTat - ARGV[c + 3] - now
    if late > 1e-6 and (reason == 0 or late > wait) then wait = late; limiting = i; reason = 1 end
    tats[i] = tat
    nexts[i] = nextTat
  end
  local base = #out
  out[base + 1], out[base + 2], out[base + 3], out[base + 4] = 0, math.ceil(wait), limiting, reason
  if reason == 0 then
    out[base + 1] = 1
    for i = 1, cells do
      local k = tonumber(ARGV[o + 3 * i + 1])
      vals[k] = nexts[i]
      touched[k] = true
      tats[i] = nexts[i]
    end
  end
  for i = 1, cells do out[base + 4 + i] = math.floor((tats[i] - now) * 1000) end
end
for k in pairs(touched) do redis.call('SET', KEYS[k], vals[k]) end
return out
`;

/**
 * Gives back what an allowed decision took when its request was never sent (its answer was read too
 * late): each TAT moves back by the cost's span, never below now (a TAT in the past already reads as
 * full). Later takes stay counted: GCRA spends add up, so this is the state had it never been taken.
 *
 * A refund for a budget Redis has lost since (its generation gone or another) gives nothing back:
 * the cells it would credit were reseeded spent, and never held the take.
 *
 * KEYS   TAT keys of the decision's cells; last, the generation key
 * ARGV   per key the span given back in ms (cost × emission interval; at most what the take added);
 *        last, the generation held
 */
export const REFUND_SCRIPT = `
if redis.call('GET', KEYS[#KEYS]) ~= ARGV[#ARGV] then return 0 end
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
for i = 1, #KEYS - 1 do
  local tat = tonumber(redis.call('GET', KEYS[i]))
  if tat and tat > now then redis.call('SET', KEYS[i], math.max(now, tat - tonumber(ARGV[i]))) end
end
return #KEYS - 1
`;

/** Blocks the listed classes on each bucket for at least ARGV[2] ms; never shortens nor narrows a running cool-down. */
export const COOL_DOWN_SCRIPT = `
local ms = tonumber(ARGV[2])
for _, key in ipairs(KEYS) do
  local classes = ARGV[1]
  local keep = ms
  local current = redis.call('GET', key)
  if current then
    for c in string.gmatch(current, '.') do
      if not string.find(classes, c, 1, true) then classes = classes .. c end
    end
    local pttl = redis.call('PTTL', key)
    if pttl > keep then keep = pttl end
  end
  redis.call('SET', key, classes, 'PX', keep)
end
return #KEYS
`;

/**
 * Announces this instance (sorted set scored by Redis time), forgets instances silent longer than the
 * reserve horizon, publishes its usage. Replies {known, fresh}: instances within the horizon, and
 * those heard from within the staleness limit; the difference are presumed local (cut off from Redis).
 *
 * An instance deciding locally (its Redis path failing, its probes getting through now and then)
 * announces itself as such: scored just past the staleness limit, so it stays known and reserved
 * however late its probes land, and is never counted fresh while it spends its local share.
 *
 * After Redis lost its data, the instances known before it are reserved (the floor ADOPT_SCRIPT
 * writes) until as many have announced themselves again: known is never below the floor meanwhile.
 *
 * KEYS   instances set, usage key, generation key, floor key
 * ARGV   instance id, reserve horizon ms, usage document, staleness limit ms, '1' when deciding locally,
 *        the generation this instance holds
 * Reply  {known, fresh}; {-1, -1} when the generation key is missing or another (nothing written)
 */
export const HEARTBEAT_SCRIPT = `
if redis.call('GET', KEYS[3]) ~= ARGV[6] then return { -1, -1 } end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local horizon = tonumber(ARGV[2])
local score = now
if ARGV[5] == '1' then score = now - tonumber(ARGV[4]) - 1 end
redis.call('ZADD', KEYS[1], score, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - horizon)
redis.call('PEXPIRE', KEYS[1], horizon)
redis.call('SET', KEYS[2], ARGV[3], 'PX', horizon)
local known = redis.call('ZCARD', KEYS[1])
local floor = tonumber(redis.call('GET', KEYS[4]) or '0')
if floor > 0 then
  if known >= floor then redis.call('DEL', KEYS[4]) else known = floor end
end
return { known, redis.call('ZCOUNT', KEYS[1], now - tonumber(ARGV[4]), '+inf') }
`;

/**
 * The budget's generation: a random token every instance holds and every take and heartbeat checks.
 * Redis restarted empty, flushed or evicted loses it with the cells and the heartbeats, so no instance
 * spends on a budget that forgot what the fleet spent. An instance that finds it missing writes a new
 * one (the first to do so wins; the others adopt it). One that held an older generation also raises
 * the floor of known instances to the count it knew, for `floor ttl` ms at most: the peers still deciding
 * from their local shares stay reserved until they have announced themselves again.
 *
 * KEYS   generation key, floor key
 * ARGV   generation held ('' at start), a new random one, instances known before, floor ttl ms
 * Reply  the generation now in force
 */
export const ADOPT_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then
  redis.call('SET', KEYS[1], ARGV[2])
  current = ARGV[2]
end
if ARGV[1] ~= '' and current ~= ARGV[1] then
  local floor = tonumber(redis.call('GET', KEYS[2]) or '0')
  local before = tonumber(ARGV[3])
  if before > floor then floor = before end
  if floor > 1 then redis.call('SET', KEYS[2], floor, 'PX', ARGV[4]) end
end
return current
`;

/** Reads bucket state for the admin view: Redis time in ms, each TAT ('' when absent), then each cool-down's PTTL. */
export const READ_SCRIPT = `
local n = tonumber(ARGV[1])
local t = redis.call('TIME')
local out = { t[1] .. string.format('%06d', tonumber(t[2])) }
for i = 1, #KEYS do
  if i <= n then out[#out + 1] = redis.call('GET', KEYS[i]) or '' else out[#out + 1] = tostring(redis.call('PTTL', KEYS[i])) end
end
return out
`;

/**
 * Run when an instance gets Redis back after an outage. A missing TAT may mean Redis lost its
 * state (a restart); reading it as full would hand out a second burst on top of what the local
 * buckets spent meanwhile, and the retail buckets have no slack for that (burst + refill = the
 * published window). So a missing key is created spent (TAT = now + capacity span); an existing
 * one is left alone (SET NX), which makes a mere network blip change nothing.
 *
 * KEYS   TAT keys of the cells this instance uses
 * ARGV   per key its capacity span in ms (capacity × emission interval)
 * Reply  how many keys were created
 */
export const RESEED_SCRIPT = `
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local created = 0
for i = 1, #KEYS do
  if redis.call('SET', KEYS[i], now + tonumber(ARGV[i]), 'NX') then created = created + 1 end
end
return created
`;
