import { LuaScript, luaNowMs } from '@lib/core';

/**
 * The Lua scripts of the shared open-order counts (RedisOpenOrderStore). A count of orders is a sorted
 * set of reservation tokens (scored by the time taken); an exposure count (open notional, or same-side
 * open quantity for a net position) is a hash: token → "side qty micros ms", plus the running sums
 * `#notional` (micro-dollars) and `#buy` / `#sell` (contracts), all integers so that no rounding drifts.
 */

/** Gives one token's share of one count back (whatever its kind; a key that is gone is nothing to do). */
const DROP = `
local function drop(key, token)
  local kind = redis.call('TYPE', key).ok
  if kind == 'zset' then
    redis.call('ZREM', key, token)
  elseif kind == 'hash' then
    local held = redis.call('HGET', key, token)
    if held then
      local side, qty, micros = string.match(held, '^(%a+) (%-?%d+) (%-?%d+)')
      -- 0 - x, not -x: a negated zero prints as -0, which HINCRBY refuses.
      redis.call('HINCRBY', key, '#notional', 0 - tonumber(micros))
      redis.call('HINCRBY', key, '#' .. side, 0 - tonumber(qty))
      redis.call('HDEL', key, token)
    end
  end
end
`;

/** Takes one owner's share of one count unless it holds one already (an order slot, or its exposure in a hash). */
const TAKE = `
local function take_share(key, kind, owner, side, qty, micros, ms)
  if kind == 'orders' then
    redis.call('ZADD', key, 'NX', ms, owner)
  elseif redis.call('HEXISTS', key, owner) == 0 then
    redis.call('HSET', key, owner, side .. ' ' .. qty .. ' ' .. micros .. ' ' .. ms)
    redis.call('HINCRBY', key, '#notional', micros)
    redis.call('HINCRBY', key, '#' .. side, qty)
  end
end
`;

/**
 * KEYS: the counts, then the counts' generation (RESERVE: then the reservations in flight). ARGV[1] token, [2] side, [3] qty, [4] micros, then
 * per count: kind (orders, notional, position), max, position (signed contracts; 0 unless a position
 * count), then last the generation the caller holds. All or none: returns {0} when taken, {-1} when the
 * generation is gone or another (Redis lost the counts: nothing judged, nothing taken), else {index of
 * the count that refused, the value it would have reached}.
 */
const check = (tail: number) => `
local n = #KEYS - ${tail}
if redis.call('GET', KEYS[n + 1]) ~= ARGV[#ARGV] then return {-1, '0'} end
local token, side, qty, micros = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local sign = side == 'buy' and 1 or -1
for i = 1, n do
  local kind, max, position = ARGV[3 * i + 2], tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  if kind == 'orders' then
    local held = redis.call('ZCARD', KEYS[i])
    if held + 1 > max then return {i, tostring(held + 1)} end
  elseif kind == 'notional' then
    local held = tonumber(redis.call('HGET', KEYS[i], '#notional') or '0')
    if held + micros > max then return {i, tostring(held + micros)} end
  else
    -- |position + same-side open + this order| over the limit refuses only an order that grows the exposure.
    local before = position + sign * tonumber(redis.call('HGET', KEYS[i], '#' .. side) or '0')
    local after = before + sign * qty
    if math.abs(after) > max and math.abs(after) > math.abs(before) then return {i, tostring(after)} end
  end
end
`;

/** RESERVE's judgement only (the what-if route): the same answer, nothing taken. */
export const JUDGE = new LuaScript(check(1) + `return {0, '0'}`);

/**
 * Takes the order's share of every count when the check found room (all or none), and notes the token
 * in flight (until the answer: a rebuild after a limits change waits for those, see OpenOrders).
 */
export const RESERVE = new LuaScript(
  check(2) +
    `
${luaNowMs('ms')}
redis.call('ZADD', KEYS[n + 2], ms, token)
for i = 1, n do
  if ARGV[3 * i + 2] == 'orders' then
    redis.call('ZADD', KEYS[i], ms, token)
  else
    redis.call('HSET', KEYS[i], token, side .. ' ' .. qty .. ' ' .. micros .. ' ' .. ms)
    redis.call('HINCRBY', KEYS[i], '#notional', micros)
    redis.call('HINCRBY', KEYS[i], '#' .. side, qty)
  end
end
return {0, '0'}
`,
);

/** KEYS: the counts. ARGV[1]: the token. */
export const RELEASE = new LuaScript(
  DROP +
    `
for i = 1, #KEYS do drop(KEYS[i], ARGV[1]) end
return 0
`,
);

/** KEYS[1]: the bound orders (hash), KEYS[2]: the bound tokens (set). ARGV[1]: the order id, ARGV[2]: the key prefix of the counts. */
export const RELEASE_ORDER = new LuaScript(
  DROP +
    `
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return 0 end
local order = cjson.decode(text)
for _, key in ipairs(order.keys) do drop(ARGV[2] .. key, order.token) end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], order.token)
return 1
`,
);

/**
 * A bound order partly filled: its open quantity in every exposure count becomes at most ARGV[3] (the
 * exchange's leaves quantity), its notional shrinking in proportion; what filled is the position's now.
 * KEYS[1]: the bound orders. ARGV[1]: the order id, ARGV[2]: the key prefix of the counts, ARGV[3]: leaves.
 */
export const LEAVES = new LuaScript(`
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return 0 end
local order = cjson.decode(text)
local leaves = tonumber(ARGV[3])
for _, key in ipairs(order.keys) do
  local full = ARGV[2] .. key
  if redis.call('TYPE', full).ok == 'hash' then
    local held = redis.call('HGET', full, order.token)
    if held then
      local side, qty, micros, ms = string.match(held, '^(%a+) (%-?%d+) (%-?%d+) (%d+)')
      qty, micros = tonumber(qty), tonumber(micros)
      if leaves < qty then
        local left = qty > 0 and math.floor(micros * leaves / qty) or micros
        redis.call('HINCRBY', full, '#notional', left - micros)
        redis.call('HINCRBY', full, '#' .. side, leaves - qty)
        redis.call('HSET', full, order.token, side .. ' ' .. leaves .. ' ' .. left .. ' ' .. ms)
      end
    end
  end
end
return 1
`);

/** KEYS: the counts. ARGV[1]: the bound-tokens set, ARGV[2]: the age in ms past which an unbound reservation is dropped. */
export const SWEEP = new LuaScript(
  DROP +
    `
${luaNowMs('ms')}
local limit = ms - tonumber(ARGV[2])
for i = 1, #KEYS do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind == 'zset' then
    for _, token in ipairs(redis.call('ZRANGEBYSCORE', KEYS[i], '-inf', limit)) do
      if redis.call('SISMEMBER', ARGV[1], token) == 0 then redis.call('ZREM', KEYS[i], token) end
    end
  elseif kind == 'hash' then
    local all = redis.call('HGETALL', KEYS[i])
    for j = 1, #all, 2 do
      local token = all[j]
      if string.sub(token, 1, 1) ~= '#' then
        local ms = tonumber(string.match(all[j + 1], '(%d+)$'))
        if ms <= limit and redis.call('SISMEMBER', ARGV[1], token) == 0 then drop(KEYS[i], token) end
      end
    end
  end
end
return 0
`,
);

/**
 * An order the exchange named, counted and bound: its share of each count is taken where missing (the
 * counts were lost since its reservation, or it is an open order counted again after such a loss), and
 * it is bound to its order id; an order already bound under another token (counted again by a rebuild)
 * keeps that one, and this token's shares are given back, save that counts it does not hold yet (a limit
 * added since) take its share under its own token. No limit is judged: the order is open.
 * KEYS: the counts, then the bound orders (hash) and the bound tokens (set). ARGV[1] order id, [2] token,
 * [3] side, [4] qty, [5] micros, [6] the bound order (JSON), then the kind of each count.
 */
export const BIND = new LuaScript(
  DROP +
    TAKE +
    `
local n = #KEYS - 2
local id, token, side, qty, micros = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
${luaNowMs('ms')}
local function take(i, owner) take_share(KEYS[i], ARGV[6 + i], owner, side, qty, micros, ms) end
local held = redis.call('HGET', KEYS[n + 1], id)
if held and cjson.decode(held).token ~= token then
  for i = 1, n do drop(KEYS[i], token) end
  -- Counts it does not hold yet (a limit added since it was bound: a rebuild counts it again) take its share under its own token.
  local order = cjson.decode(held)
  local known = {}
  for _, key in ipairs(order.keys) do known[key] = true end
  local keys = cjson.decode(ARGV[6]).keys
  local added = false
  for i = 1, n do
    if not known[keys[i]] then
      take(i, order.token)
      table.insert(order.keys, keys[i])
      added = true
    end
  end
  if added then redis.call('HSET', KEYS[n + 1], id, cjson.encode(order)) end
  return 0
end
for i = 1, n do take(i, token) end
redis.call('HSET', KEYS[n + 1], id, ARGV[6])
redis.call('SADD', KEYS[n + 2], token)
return 1
`,
);

/**
 * A reservation still in flight on this instance (sent, not answered) when the counts' generation
 * changed (Redis lost its data, or a limits change started a new one): its share is taken again in the
 * generation in force, unjudged (the order is on its way whatever the counts say), and noted in flight, so
 * a rebuild waits for its answer before it reads the exchange's open orders. A share already there is not
 * taken twice. KEYS: the counts, the counts' generation, the reservations in flight. ARGV[1] token, [2]
 * side, [3] qty, [4] micros, [5] the generation to announce into, then the kind of each count. Answers 1,
 * or 0 when that generation is no longer in force.
 */
export const ANNOUNCE = new LuaScript(
  TAKE +
    `
local n = #KEYS - 2
local token, side, qty, micros = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('GET', KEYS[n + 1]) ~= ARGV[5] then return 0 end
${luaNowMs('ms')}
redis.call('ZADD', KEYS[n + 2], 'NX', ms, token)
for i = 1, n do take_share(KEYS[i], ARGV[5 + i], token, side, qty, micros, ms) end
return 1
`,
);

/**
 * KEYS[1]: the counts' generation, KEYS[2]: the generation whose counts are complete. ARGV[1]: a new
 * generation. A missing generation (Redis lost its data: restarted empty, FLUSHALL, an empty replica
 * promoted) is created; answers {generation, 1 when its counts were rebuilt, else 0}.
 */
export const ADOPT = new LuaScript(`
local generation = redis.call('GET', KEYS[1])
if not generation then
  generation = ARGV[1]
  redis.call('SET', KEYS[1], generation)
end
return {generation, redis.call('GET', KEYS[2]) == generation and 1 or 0}
`);

/** KEYS as ADOPT's. ARGV[1]: the generation whose counts were rebuilt; marked complete if still in force (1), else 0. */
export const REBUILT = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
return 1
`);

/**
 * A bound order changed (a retail modify): its share of every exposure count it holds becomes `qty`
 * contracts and `micros`, per count computed from its share now (ARGV[3] -1: the quantity kept; ARGV[4]
 * -1: the notional per contract kept, else the new notional per contract in micro-dollars). Mode
 * `hold` (before the change is sent) takes the larger of old and new in each, judged like a reservation
 * where it grows; `set` (once answered) puts the given exact `qty` and `micros` (ARGV[3], ARGV[4]),
 * unjudged. KEYS: the counts, the counts' generation, the bound orders. ARGV[1] order id, [2] mode,
 * [3], [4] as above, then per count: kind, max, position, then last the generation. Answers {0, '0',
 * old qty, old micros, new qty, new micros} (no share held: old and new -1), {-1, '0'} when the
 * generation is not the caller's, or {index of the count that refused, the value it would reach}.
 */
export const AMEND = new LuaScript(`
local n = #KEYS - 2
if redis.call('GET', KEYS[n + 1]) ~= ARGV[#ARGV] then return {-1, '0'} end
local text = redis.call('HGET', KEYS[n + 2], ARGV[1])
if not text then return {0, '0', -1, -1, -1, -1} end
local token, mode = cjson.decode(text).token, ARGV[2]
local newQty, newMicros = tonumber(ARGV[3]), tonumber(ARGV[4])
local shares, old = {}, nil
for i = 1, n do
  local kind, max, position = ARGV[3 * i + 2], tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local held = kind ~= 'orders' and redis.call('TYPE', KEYS[i]).ok == 'hash' and redis.call('HGET', KEYS[i], token)
  if held then
    local side, qty, micros, ms = string.match(held, '^(%a+) (%-?%d+) (%-?%d+) (%d+)')
    qty, micros = tonumber(qty), tonumber(micros)
    local q, m = newQty, newMicros
    if mode == 'hold' then
      q = newQty >= 0 and newQty or qty
      local per = newMicros >= 0 and newMicros or (qty > 0 and micros / qty or 0)
      m = math.floor(per * q + 0.5)
      q, m = math.max(q, qty), math.max(m, micros)
      if kind == 'notional' then
        local total = tonumber(redis.call('HGET', KEYS[i], '#notional') or '0') - micros + m
        if m > micros and total > max then return {i, tostring(total)} end
      else
        local sign = side == 'buy' and 1 or -1
        local was = position + sign * tonumber(redis.call('HGET', KEYS[i], '#' .. side) or '0')
        local after = was + sign * (q - qty)
        if q > qty and math.abs(after) > max and math.abs(after) > math.abs(was) then return {i, tostring(after)} end
      end
    end
    old = old or {qty, micros, q, m}
    shares[#shares + 1] = {i, side, qty, micros, ms, q, m}
  end
end
for _, s in ipairs(shares) do
  local i, side, qty, micros, ms, q, m = s[1], s[2], s[3], s[4], s[5], s[6], s[7]
  redis.call('HINCRBY', KEYS[i], '#notional', m - micros)
  redis.call('HINCRBY', KEYS[i], '#' .. side, q - qty)
  redis.call('HSET', KEYS[i], token, side .. ' ' .. q .. ' ' .. m .. ' ' .. ms)
end
if not old then return {0, '0', -1, -1, -1, -1} end
return {0, '0', old[1], old[2], old[3], old[4]}
`);

/** A replace answered with a new order id: the bound order moves to it. KEYS[1]: the bound orders. ARGV[1] the old id, [2] the new. */
export const REBIND = new LuaScript(`
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], text)
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
`);
