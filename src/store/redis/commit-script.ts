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
 * its own). Writes: `hset k n f v…`, `hdel k n f…`, `hincr k f d`
 * (the seed's HINCRBY), `zadd k score member`, `zrem k member`, `bump k f` (a job's
 * revision), `unlock k token`, `del k`, `hist k ids tail` (a history line numbered here: its id from the partition's
 * counter, its seq from the list's length), `pub channel`.
 *
 * It answers `{'ok'}`, `{'conflict', key, field}` (a read changed: nothing was written,
 * the transaction runs again) or `{'exists', key, field}` (a journal entry written twice).
 */
export const COMMIT_SCRIPT = `
local a = ARGV
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
  elseif op == 'unlock' then
    local k = nextKey(); local token = nextArg()
    if redis.call('GET', k) == token then redis.call('DEL', k) end
  elseif op == 'del' then
    redis.call('DEL', nextKey())
  elseif op == 'pub' then
    redis.call('PUBLISH', nextArg(), '1')
  else
    return redis.error_reply('weft commit: unknown write ' .. tostring(op))
  end
end
return {'ok'}
`;

/** The most field/value pairs one `hset` (or fields one `hdel`) carries: Lua's unpack has a limit. */
export const HASH_CHUNK = 500;

/**
 * A commit being encoded: keys are numbered as they are first used, checks and writes
 * kept apart until {@link CommitPlan.args} joins them with `|`.
 */
export class CommitPlan {
  readonly keys: string[] = [];
  private readonly index = new Map<string, string>();
  private readonly checks: string[] = [];
  private readonly writes: string[] = [];

  private key(key: string): string {
    let n = this.index.get(key);
    if (n === undefined) {
      this.keys.push(key);
      n = String(this.keys.length);
      this.index.set(key, n);
    }
    return n;
  }

  /** The hash field still holds `value` (`undefined`: is still absent). */
  checkField(key: string, field: string, value: string | undefined): void {
    this.checks.push('eq', this.key(key), field, value === undefined ? '0' : '1', value ?? '');
  }

  /** The revision in `key`'s `field` is still `value`. */
  checkRevision(key: string, field: string, value: string): void {
    this.checks.push('rev', this.key(key), field, value);
  }

  /** The hash field does not exist yet. */
  checkNew(key: string, field: string): void {
    this.checks.push('new', this.key(key), field);
  }

  /** The lock at `key` is still held with `token`. */
  checkLock(key: string, token: string): void {
    this.checks.push('own', this.key(key), token);
  }

  /** Releases the lock at `key` when it is still held with `token`. */
  unlock(key: string, token: string): void {
    this.writes.push('unlock', this.key(key), token);
  }

  hset(key: string, pairs: [string, string][]): void {
    for (let start = 0; start < pairs.length; start += HASH_CHUNK) {
      const chunk = pairs.slice(start, start + HASH_CHUNK);
      this.writes.push('hset', this.key(key), String(chunk.length));
      for (const [field, value] of chunk) this.writes.push(field, value);
    }
  }

  hdel(key: string, fields: string[]): void {
    for (let start = 0; start < fields.length; start += HASH_CHUNK) {
      const chunk = fields.slice(start, start + HASH_CHUNK);
      this.writes.push('hdel', this.key(key), String(chunk.length), ...chunk);
    }
  }

  hincr(key: string, field: string, delta: bigint): void {
    this.writes.push('hincr', this.key(key), field, delta.toString());
  }

  zadd(key: string, score: number, member: string): void {
    this.writes.push('zadd', this.key(key), String(score), member);
  }

  zrem(key: string, member: string): void {
    this.writes.push('zrem', this.key(key), member);
  }

  bump(key: string, field: string): void {
    this.writes.push('bump', this.key(key), field);
  }

  /** A history line: `tail` is its JSON object without the opening brace. */
  history(key: string, idsKey: string, tail: string): void {
    this.writes.push('hist', this.key(key), this.key(idsKey), tail);
  }

  del(key: string): void {
    this.writes.push('del', this.key(key));
  }

  publish(channel: string): void {
    this.writes.push('pub', channel);
  }

  /** Whether the commit neither checks nor writes anything. */
  get empty(): boolean {
    return this.writes.length === 0 && this.checks.length === 0;
  }

  /** ARGV: the checks, `|`, the writes. */
  args(): string[] {
    return [...this.checks, '|', ...this.writes];
  }
}
