import { STREAM_GROUP } from './keys.js';

/**
 * Lua shared by the commit and claim scripts: `syncEntry(k, m, now)` makes message hash
 * `m`'s entry in Redis Stream `k` agree with the hash — in the consumer group's
 * pending-entries list, named for its holder with its delivery count (`XCLAIM … FORCE`,
 * idle from `now`, the store clock's time) while the hash names a consumer; out of it
 * (`XACK`, the entry kept) while nobody holds it. A message with no entry (written before
 * the store kept them) is left alone.
 */
export const STREAM_ENTRY_LUA = `
local function syncEntry(k, m, now)
  local f = redis.call('HMGET', m, 'xid', 'consumer', 'deliveries')
  if not f[1] then return end
  if f[2] then
    redis.call('XCLAIM', k, '${STREAM_GROUP}', f[2], 0, f[1], 'TIME', now, 'RETRYCOUNT', f[3] or '0', 'FORCE', 'JUSTID')
  else
    redis.call('XACK', k, '${STREAM_GROUP}', f[1])
  end
end
`;

/**
 * The commit script: what makes a Redis transaction atomic (docs/store-redis.md,
 * section 1). It receives every key the transaction touches in KEYS and, in ARGV, first
 * the checks of what the transaction read, then `|`, then its writes, each as an opcode
 * and its arguments (keys as 1-based indexes into KEYS). Redis runs a script alone, so
 * the checks and the writes are one step. A script is not rolled back when it fails half
 * way: every check runs before the first write, and the writes are ones that cannot
 * fail on keys of the right types.
 *
 * Checks: `eq k f present value` (hash field holds value, or is absent when present is
 * 0), `rev k f value` (a revision, absent counting as 0), `new k f` (a field that must
 * not exist yet: a journal entry), `own k token` (a lock this transaction took is still
 * its own), `fence k token` (no other commit's fence is on the slot: absent, or this
 * token; a cluster's commit over several checked slots, docs/store-redis.md section 6).
 * Writes: `hset k n f v…`, `hdel k n f…`, `hincr k f d`
 * (the seed's HINCRBY), `zadd k score member`, `zrem k member`, `bump k f` (a job's
 * revision), `unlock k token`, `del k`, `hist k ids tail` (a history line numbered here: its id from the partition's
 * counter, its seq from the list's length; `histn k id tail` with an id taken before,
 * on a store of several partitions), `pub channel`, `spub channel` (sharded, on a
 * cluster), `fset k token` (puts the fence; no lease: a dead client's fence is resolved by
 * split-commit.ts), `fdel k token` (takes this token's fence away), `xadd s m id job now` (a message's Redis Stream entry, its id kept in
 * the message's `xid`), `xsync s m now` (its pending entry in step with its holder),
 * `xdone s m` (`XACK` and `XDEL` of its entry; before the message's `del`).
 *
 * It answers `{'ok'}`, `{'conflict', key, field}` (a read changed: nothing was written,
 * the transaction runs again) or `{'exists', key, field}` (a journal entry written twice).
 */
export const COMMIT_SCRIPT = `
local a = ARGV
${STREAM_ENTRY_LUA}
local i = 1
local function nextArg() local v = a[i]; i = i + 1; return v end
local function nextKey() local k = KEYS[tonumber(a[i])]; i = i + 1; return k end
while a[i] ~= '|' do
  local op = nextArg()
  if op == 'eq' then
    local k = nextKey(); local f = nextArg(); local present = nextArg(); local want = nextArg()
    local have = redis.call('HGET', k, f)
    if present == '1' then
      if have ~= want then return {'conflict', k, f} end
    elseif have then
      return {'conflict', k, f}
    end
  elseif op == 'rev' then
    local k = nextKey(); local f = nextArg(); local want = nextArg()
    local have = redis.call('HGET', k, f) or '0'
    if have ~= want then return {'conflict', k, f} end
  elseif op == 'own' then
    local k = nextKey(); local token = nextArg()
    if redis.call('GET', k) ~= token then return {'conflict', k, 'lock'} end
  elseif op == 'fence' then
    local k = nextKey(); local token = nextArg()
    local have = redis.call('GET', k)
    if have and have ~= token then return {'conflict', k, 'fence'} end
  elseif op == 'held' then
    local k = nextKey(); local token = nextArg()
    if redis.call('GET', k) ~= token then return {'conflict', k, 'fence'} end
  elseif op == 'nokey' then
    local k = nextKey()
    if redis.call('EXISTS', k) == 1 then return {'conflict', k, 'aborted'} end
  elseif op == 'new' then
    local k = nextKey(); local f = nextArg()
    if redis.call('HEXISTS', k, f) == 1 then return {'exists', k, f} end
  else
    return redis.error_reply('weft commit: unknown check ' .. tostring(op))
  end
end
i = i + 1
while i <= #a do
  local op = nextArg()
  if op == 'hset' or op == 'hdel' then
    local k = nextKey(); local n = tonumber(nextArg())
    local width = 1
    if op == 'hset' then width = 2 end
    local args = {}
    for j = 1, n * width do args[j] = a[i + j - 1] end
    i = i + n * width
    if op == 'hset' then redis.call('HSET', k, unpack(args)) else redis.call('HDEL', k, unpack(args)) end
  elseif op == 'hincr' then
    local k = nextKey(); local f = nextArg(); local d = nextArg()
    redis.call('HINCRBY', k, f, d)
  elseif op == 'zadd' then
    local k = nextKey(); local s = nextArg(); local m = nextArg()
    redis.call('ZADD', k, s, m)
  elseif op == 'zrem' then
    local k = nextKey(); local m = nextArg()
    redis.call('ZREM', k, m)
  elseif op == 'bump' then
    local k = nextKey(); local f = nextArg()
    redis.call('HINCRBY', k, f, 1)
  elseif op == 'hist' then
    local k = nextKey(); local ids = nextKey(); local tail = nextArg()
    local id = redis.call('INCR', ids)
    local seq = redis.call('LLEN', k) + 1
    redis.call('RPUSH', k, '{"id":"' .. id .. '","seq":' .. seq .. ',' .. tail)
  elseif op == 'histn' then
    local k = nextKey(); local id = nextArg(); local tail = nextArg()
    local seq = redis.call('LLEN', k) + 1
    redis.call('RPUSH', k, '{"id":"' .. id .. '","seq":' .. seq .. ',' .. tail)
  elseif op == 'unlock' then
    local k = nextKey(); local token = nextArg()
    if redis.call('GET', k) == token then redis.call('DEL', k) end
  elseif op == 'del' then
    redis.call('DEL', nextKey())
  elseif op == 'fset' then
    local k = nextKey(); local token = nextArg()
    redis.call('SET', k, token)
  elseif op == 'fdel' then
    local k = nextKey(); local token = nextArg()
    if redis.call('GET', k) == token then redis.call('DEL', k) end
  elseif op == 'xadd' then
    local k = nextKey(); local m = nextKey(); local id = nextArg(); local job = nextArg(); local now = nextArg()
    if redis.call('EXISTS', k) == 0 then redis.call('XGROUP', 'CREATE', k, '${STREAM_GROUP}', '0', 'MKSTREAM') end
    local xid
    if job == '' then xid = redis.call('XADD', k, '*', 'id', id)
    else xid = redis.call('XADD', k, '*', 'id', id, 'job', job) end
    redis.call('HSET', m, 'xid', xid)
    syncEntry(k, m, now)
  elseif op == 'xsync' then
    local k = nextKey(); local m = nextKey(); local now = nextArg()
    syncEntry(k, m, now)
  elseif op == 'xdone' then
    local k = nextKey(); local m = nextKey()
    local xid = redis.call('HGET', m, 'xid')
    if xid then
      redis.call('XACK', k, '${STREAM_GROUP}', xid)
      redis.call('XDEL', k, xid)
    end
  elseif op == 'pub' then
    redis.call('PUBLISH', nextArg(), '1')
  elseif op == 'spub' then
    redis.call('SPUBLISH', nextKey(), '1')
  else
    return redis.error_reply('weft commit: unknown write ' .. tostring(op))
  end
end
return {'ok'}
`;

/** The most field/value pairs one `hset` (or fields one `hdel`) carries: Lua's unpack has a limit. */
export const HASH_CHUNK = 500;

/** One check or write of a commit: its words, keys marked to be numbered into KEYS. */
interface PlannedOp {
  check: boolean;
  /** The hash tag (the cluster slot) the op's keys are in. */
  tag: string;
  words: (string | { key: string })[];
}

/** A key's hash tag as Redis Cluster reads it: the text inside its first `{…}`, else the key. */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return key.slice(open + 1, close);
  }
  return key;
}

/**
 * A commit being encoded: keys are numbered as they are first used, checks and writes
 * kept apart until {@link CommitPlan.args} joins them with `|`. {@link CommitPlan.bySlot}
 * splits it into one plan per hash tag, for a Redis Cluster, where one script touches one
 * slot (docs/store-redis.md, section 6).
 */
export class CommitPlan {
  private readonly ops: PlannedOp[] = [];

  private op(check: boolean, ...words: (string | { key: string })[]): void {
    const first = words.find((w): w is { key: string } => typeof w !== 'string');
    this.ops.push({ check, tag: first ? hashTag(first.key) : '', words });
  }

  /** The hash field still holds `value` (`undefined`: is still absent). */
  checkField(key: string, field: string, value: string | undefined): void {
    this.op(true, 'eq', { key }, field, value === undefined ? '0' : '1', value ?? '');
  }

  /** The revision in `key`'s `field` is still `value`. */
  checkRevision(key: string, field: string, value: string): void {
    this.op(true, 'rev', { key }, field, value);
  }

  /** The hash field does not exist yet. */
  checkNew(key: string, field: string): void {
    this.op(true, 'new', { key }, field);
  }

  /** The lock at `key` is still held with `token`. */
  checkLock(key: string, token: string): void {
    this.op(true, 'own', { key }, token);
  }

  /** Releases the lock at `key` when it is still held with `token`. */
  unlock(key: string, token: string): void {
    this.op(false, 'unlock', { key }, token);
  }

  hset(key: string, pairs: [string, string][]): void {
    for (let start = 0; start < pairs.length; start += HASH_CHUNK) {
      const chunk = pairs.slice(start, start + HASH_CHUNK);
      this.op(false, 'hset', { key }, String(chunk.length), ...chunk.flat());
    }
  }

  hdel(key: string, fields: string[]): void {
    for (let start = 0; start < fields.length; start += HASH_CHUNK) {
      const chunk = fields.slice(start, start + HASH_CHUNK);
      this.op(false, 'hdel', { key }, String(chunk.length), ...chunk);
    }
  }

  hincr(key: string, field: string, delta: bigint): void {
    this.op(false, 'hincr', { key }, field, delta.toString());
  }

  zadd(key: string, score: number, member: string): void {
    this.op(false, 'zadd', { key }, String(score), member);
  }

  zrem(key: string, member: string): void {
    this.op(false, 'zrem', { key }, member);
  }

  bump(key: string, field: string): void {
    this.op(false, 'bump', { key }, field);
  }

  /** A history line: `tail` is its JSON object without the opening brace. */
  history(key: string, idsKey: string, tail: string): void {
    this.op(false, 'hist', { key }, { key: idsKey }, tail);
  }

  /**
   * A history line whose id was taken before the commit (several partitions: ids come
   * from one `{g}` counter, so they grow across the store); its seq is still numbered here.
   */
  historyWithId(key: string, id: string, tail: string): void {
    this.op(false, 'histn', { key }, id, tail);
  }

  del(key: string): void {
    this.op(false, 'del', { key });
  }

  /**
   * Adds message `messageKey`'s entry to Redis Stream `streamKey` (creating the stream and
   * its group when absent), keeps the entry id in the message's `xid`, and puts it in the
   * group's pending list when the message is held ({@link STREAM_ENTRY_LUA}).
   */
  streamAdd(streamKey: string, messageKey: string, id: string, job: string, now: number): void {
    this.op(false, 'xadd', { key: streamKey }, { key: messageKey }, id, job, String(now));
  }

  /** Brings the pending list in step with the message's holder and deliveries. */
  streamSync(streamKey: string, messageKey: string, now: number): void {
    this.op(false, 'xsync', { key: streamKey }, { key: messageKey }, String(now));
  }

  /** The message is done: its entry is acked (`XACK`) and deleted (`XDEL`). Before the message's `del`. */
  streamDone(streamKey: string, messageKey: string): void {
    this.op(false, 'xdone', { key: streamKey }, { key: messageKey });
  }

  /** A notice on a pub/sub channel (any node's clients hear it). */
  publish(channel: string): void {
    this.op(false, 'pub', channel);
  }

  /**
   * A notice on a sharded channel (`SPUBLISH`), heard by the clients of the node serving
   * the channel's slot: the channel carries the hash tag of the partition it is about.
   */
  publishSharded(channel: string): void {
    // The channel goes in KEYS: it routes the script to its slot's node.
    this.op(false, 'spub', { key: channel });
  }

  /** Whether the commit neither checks nor writes anything. */
  get empty(): boolean {
    return this.ops.length === 0;
  }

  /** Whether the commit checks anything. */
  get checks(): boolean {
    return this.ops.some((op) => op.check);
  }

  /** The keys (KEYS) and then ARGV (the checks, `|`, the writes), in one array. */
  encode(): { keys: string[]; args: string[] } {
    const keys: string[] = [];
    const index = new Map<string, string>();
    const word = (w: string | { key: string }): string => {
      if (typeof w === 'string') return w;
      let n = index.get(w.key);
      if (n === undefined) {
        keys.push(w.key);
        n = String(keys.length);
        index.set(w.key, n);
      }
      return n;
    };
    const checks: string[] = [];
    const writes: string[] = [];
    for (const op of this.ops) (op.check ? checks : writes).push(...op.words.map(word));
    return { keys, args: [...checks, '|', ...writes] };
  }

  /**
   * The first phase of a split commit, for a part other than its primary: the part's
   * checks, and that no other commit's fence is on the slot; then it puts this commit's
   * fence (`fenceKey`, `token`). It writes nothing else. Until the part is written or the
   * commit given up, nobody else commits a check or claims in the slot.
   */
  prepare(fenceKey: string, token: string): CommitPlan {
    const plan = new CommitPlan();
    plan.op(true, 'fence', { key: fenceKey }, token);
    // A loop, not a spread: a big step has more ops than a call takes arguments.
    for (const op of this.ops) if (op.check) plan.ops.push(op);
    plan.op(false, 'fset', { key: fenceKey }, token);
    return plan;
  }

  /**
   * The part written alone (the only part of its commit): its checks, and that no other
   * commit's fence is on its slot, then its writes.
   */
  fenced(fenceKey: string, token: string): CommitPlan {
    const plan = new CommitPlan();
    plan.op(true, 'fence', { key: fenceKey }, token);
    for (const op of this.ops) plan.ops.push(op);
    return plan;
  }

  /**
   * The commit point of a split commit, its primary part: its checks, that no other
   * commit's fence is on its slot and that nobody gave this commit up (`abortKey`
   * absent); then its writes and the record of the parts still to write (`record`,
   * field `token` of hash `recordKey`), in the one script.
   */
  primary(
    fenceKey: string,
    abortKey: string,
    recordKey: string,
    token: string,
    record: string,
  ): CommitPlan {
    const plan = this.fenced(fenceKey, token);
    plan.op(true, 'nokey', { key: abortKey });
    plan.op(false, 'hset', { key: recordKey }, '1', token, record);
    return plan;
  }

  /**
   * A prepared part's second phase: written only while this commit's fence is still on
   * its slot (so at most once: the script takes the fence away). Its checks are not run
   * again: nobody could change what they read while the fence was there.
   */
  held(fenceKey: string, token: string): CommitPlan {
    const plan = new CommitPlan();
    plan.op(true, 'held', { key: fenceKey }, token);
    for (const op of this.ops) if (!op.check) plan.ops.push(op);
    plan.op(false, 'fdel', { key: fenceKey }, token);
    return plan;
  }

  /** Takes a fence away (a commit whose other part was refused). */
  static release(fenceKey: string, token: string): CommitPlan {
    const plan = new CommitPlan();
    plan.op(false, 'fdel', { key: fenceKey }, token);
    return plan;
  }

  /**
   * One plan per hash tag (a notice goes with the slot of its channel; an unsharded one
   * with the first plan), in the order of first use.
   */
  bySlot(): Map<string, CommitPlan> {
    const plans = new Map<string, CommitPlan>();
    for (const op of this.ops) {
      let plan = plans.get(op.tag);
      if (!plan) {
        plan = new CommitPlan();
        plans.set(op.tag, plan);
      }
      plan.ops.push(op);
    }
    const untagged = plans.get('');
    if (untagged) {
      plans.delete('');
      const first = plans.values().next().value;
      if (first) for (const op of untagged.ops) first.ops.push(op);
      else plans.set('', untagged);
    }
    return plans;
  }
}

/**
 * Decides a split commit a client may have left half done, in the slot of its primary
 * part (split-commit.ts; KEYS: the record hash, the abort mark; ARGV: the token, the
 * mark's lifetime in ms). Committed when the primary part wrote its record: answers
 * `{'committed', record}`. Otherwise the commit is given up for good: the mark makes its
 * primary part refuse to write later, and it answers `{'aborted'}`.
 */
export const DECIDE_SCRIPT = `
local record = redis.call('HGET', KEYS[1], ARGV[1])
if record then return {'committed', record} end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return {'aborted'}
`;
