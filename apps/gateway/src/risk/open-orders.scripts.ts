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

/**
 * KEYS: the counts. ARGV[1] token, [2] side, [3] qty, [4] micros, then per key: kind (orders, notional,
 * position), max, position (signed contracts; 0 unless a position count). All or none: returns {0} when
 * taken, else {index of the count that refused, the value it would have reached}.
 */
const CHECK = `
local token, side, qty, micros = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local sign = side == 'buy' and 1 or -1
for i = 1, #KEYS do
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
export const JUDGE = CHECK + `return {0, '0'}`;

/** Takes the order's share of every count when CHECK found room (all or none). */
export const RESERVE =
  CHECK +
  `
local now = redis.call('TIME')
local ms = now[1] * 1000 + math.floor(now[2] / 1000)
for i = 1, #KEYS do
  if ARGV[3 * i + 2] == 'orders' then
    redis.call('ZADD', KEYS[i], ms, token)
  else
    redis.call('HSET', KEYS[i], token, side .. ' ' .. qty .. ' ' .. micros .. ' ' .. ms)
    redis.call('HINCRBY', KEYS[i], '#notional', micros)
    redis.call('HINCRBY', KEYS[i], '#' .. side, qty)
  end
end
return {0, '0'}
`;

/** KEYS: the counts. ARGV[1]: the token. */
export const RELEASE =
  DROP +
  `
for i = 1, #KEYS do drop(KEYS[i], ARGV[1]) end
return 0
`;

/** KEYS[1]: the bound orders (hash), KEYS[2]: the bound tokens (set). ARGV[1]: the order id, ARGV[2]: the key prefix of the counts. */
export const RELEASE_ORDER =
  DROP +
  `
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return 0 end
local order = cjson.decode(text)
for _, key in ipairs(order.keys) do drop(ARGV[2] .. key, order.token) end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], order.token)
return 1
`;

/**
 * A bound order partly filled: its open quantity in every exposure count becomes at most ARGV[3] (the
 * exchange's leaves quantity), its notional shrinking in proportion; what filled is the position's now.
 * KEYS[1]: the bound orders. ARGV[1]: the order id, ARGV[2]: the key prefix of the counts, ARGV[3]: leaves.
 */
export const LEAVES = `
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
`;

/** KEYS: the counts. ARGV[1]: the bound-tokens set, ARGV[2]: the age in ms past which an unbound reservation is dropped. */
export const SWEEP =
  DROP +
  `
local now = redis.call('TIME')
local limit = now[1] * 1000 + math.floor(now[2] / 1000) - tonumber(ARGV[2])
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
`;
