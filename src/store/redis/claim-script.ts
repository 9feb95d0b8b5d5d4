import { STREAM_ENTRY_LUA } from './commit-script.js';
import { STREAM_GROUP } from './keys.js';

/**
 * The claim scripts (ops/streams.ts): a claim runs at once, alone, so two claims never
 * pick the same message; its undo gives the messages back exactly as they were.
 */

/**
 * Claims up to `max` messages of a stream claimable at `now` (KEYS: due, held, ids, dead,
 * the partition's commit fence — while a commit over several slots has its fence on
 * the partition, nothing is claimed there, as what that commit checked must not change —
 * and the stream's Redis Stream, whose pending-entries list the claim moves to the
 * consumer with the new delivery count, `XCLAIM … FORCE`;
 * ARGV: now, max, consumer, lease end, maxHeld or '', message key prefix, maxDeliveries
 * or '', dead-letter key prefix, job-messages key prefix): with maxDeliveries, every
 * claimable message delivered that many times or more is first moved to the dead letters
 * (as the SQL stores' claim does); then each claimed message gets one more delivery, the
 * consumer and the lease. Answers id, previous holder, previous lease end and previous
 * availableAt for each claimed one (what an undo restores; a burial is not undone).
 */
export const CLAIM_SCRIPT = `${STREAM_ENTRY_LUA}
if KEYS[5] and redis.call('EXISTS', KEYS[5]) == 1 then return {} end
local now = ARGV[1]
local max = tonumber(ARGV[2])
if ARGV[5] ~= '' then
  local held = redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf')
  max = math.min(max, math.max(0, tonumber(ARGV[5]) - held))
end
if max <= 0 then return {} end
if ARGV[7] ~= '' then
  local limit = tonumber(ARGV[7])
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
    local id = string.match(m, '^0*(%d+)$')
    local k = ARGV[6] .. id
    local d = tonumber(redis.call('HGET', k, 'deliveries') or '0')
    if d > 0 and d >= limit then
      local dk = ARGV[8] .. id
      redis.call('HSET', dk, unpack(redis.call('HGETALL', k)))
      redis.call('HSET', dk, 'reason', 'delivered ' .. d .. ' times; maxDeliveries is ' .. limit, 'deadAt', now)
      redis.call('HDEL', dk, 'consumer', 'leaseUntil')
      redis.call('ZADD', KEYS[4], tonumber(id), m)
      local job = redis.call('HGET', k, 'job')
      if job then redis.call('ZREM', ARGV[9] .. job, m) end
      local xid = redis.call('HGET', k, 'xid')
      if xid then
        redis.call('HDEL', dk, 'xid')
        redis.call('XACK', KEYS[6], '${STREAM_GROUP}', xid)
        redis.call('XDEL', KEYS[6], xid)
      end
      redis.call('DEL', k)
      redis.call('ZREM', KEYS[1], m)
      redis.call('ZREM', KEYS[2], m)
      redis.call('ZREM', KEYS[3], m)
    end
  end
end
local picked = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, max)
local out = {}
for _, m in ipairs(picked) do
  local id = string.match(m, '^0*(%d+)$')
  local k = ARGV[6] .. id
  local before = redis.call('HMGET', k, 'consumer', 'leaseUntil', 'availableAt')
  redis.call('HINCRBY', k, 'deliveries', 1)
  redis.call('HSET', k, 'consumer', ARGV[3], 'leaseUntil', ARGV[4], 'availableAt', ARGV[4])
  redis.call('ZADD', KEYS[1], ARGV[4], m)
  redis.call('ZADD', KEYS[2], ARGV[4], m)
  syncEntry(KEYS[6], k, now)
  table.insert(out, id)
  table.insert(out, before[1] or '')
  table.insert(out, before[2] or '')
  table.insert(out, before[3] or '')
end
return out
`;

/**
 * Gives claimed messages back as they were (KEYS: due, held, the Redis Stream, whose
 * pending entry goes back to the previous holder or out of the list; ARGV: consumer,
 * lease end,
 * message key prefix, then id, previous holder, previous lease end, previous
 * availableAt for each) — only those the claim still holds, untouched since.
 */
export const UNCLAIM_SCRIPT = `${STREAM_ENTRY_LUA}
for j = 4, #ARGV, 4 do
  local id = ARGV[j]
  local k = ARGV[3] .. id
  local m = string.rep('0', 20 - string.len(id)) .. id
  if redis.call('HGET', k, 'consumer') == ARGV[1] and redis.call('HGET', k, 'leaseUntil') == ARGV[2] then
    redis.call('HINCRBY', k, 'deliveries', -1)
    if ARGV[j + 1] == '' then
      redis.call('HDEL', k, 'consumer', 'leaseUntil')
      redis.call('ZREM', KEYS[2], m)
    else
      redis.call('HSET', k, 'consumer', ARGV[j + 1], 'leaseUntil', ARGV[j + 2])
      redis.call('ZADD', KEYS[2], ARGV[j + 2], m)
    end
    redis.call('HSET', k, 'availableAt', ARGV[j + 3])
    redis.call('ZADD', KEYS[1], ARGV[j + 3], m)
    syncEntry(KEYS[3], k, ARGV[j + 2])
  end
end
return 1
`;
