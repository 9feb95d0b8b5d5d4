/**
 * Redis timers: `weft:{p}:timer` (key → the timer as JSON) and `weft:{p}:timers` (keys by
 * due time, ties by key), in the partition of the job the timer's message is for (no job:
 * partition 0), so a step that sets or fires its job's timer writes one slot. Firing reads
 * the due timers of every partition, appends each one's message and deletes it in the
 * transaction's commit, which checks each timer is still the one read: two processes
 * firing one timer conflict, and the one that runs again finds it gone, so a timer fires
 * once.
 */
import type { FiredTimer, NewTimer } from '../../records.js';
import { countOption, DEFAULT_PAGE } from '../../stream-options.js';
import { partitionKeys as K } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { noteOwner } from './owned.js';
import { append } from './streams.js';

/** The partition a timer lives in: its message's job's. */
function partitionOfTimer(tx: RedisTx, timer: NewTimer): Promise<number> {
  return timer.message.job ? tx.partitionOf(timer.message.job) : Promise.resolve(0);
}

/** Schedules a timer, replacing one with the same key. */
export async function scheduleTimer(tx: RedisTx, timer: NewTimer): Promise<void> {
  // A key stays with its job (the engines' timer keys name it), so a replacement is in
  // the same partition.
  const P = await partitionOfTimer(tx, timer);
  const text = JSON.stringify({ key: timer.key, at: timer.at, message: timer.message });
  tx.hset(K.timer(P), [[timer.key, text]]);
  tx.member(K.timers(P), timer.key, timer.at);
  await noteOwner(tx, timer.message.job, 'timer', timer.key);
}

/**
 * The partition holding the timer `key`, as this transaction sees it (unchecked): a cancel
 * names only the key. The engines' timer keys name their job second (`sleep:<job>:…`,
 * `deadline:<job>`), so that job's partition is looked in first, then every partition.
 */
async function findTimer(tx: RedisTx, key: string): Promise<number | undefined> {
  if (tx.partitions.count === 1) {
    return (await tx.hget(K.timer(0), key)) === undefined ? undefined : 0;
  }
  const named = key.split(':')[1];
  const guess = named ? await tx.partitionOf(named) : undefined;
  if (guess !== undefined && (await tx.hget(K.timer(guess), key)) !== undefined) return guess;
  const all = tx.partitions.all().filter((p) => p !== guess);
  const found = await Promise.all(all.map((p) => tx.hget(K.timer(p), key)));
  const at = found.findIndex((text) => text !== undefined);
  return at < 0 ? undefined : all[at];
}

/** Cancels a pending timer; false when none was. */
export async function cancelTimer(tx: RedisTx, key: string): Promise<boolean> {
  const P = await findTimer(tx, key);
  if (P === undefined) return false;
  if ((await tx.hgetChecked(K.timer(P), key)) === undefined) return false;
  tx.hset(K.timer(P), [[key, null]]);
  tx.member(K.timers(P), key, null);
  return true;
}

/** One partition's keys due at `now`, as this transaction sees them, oldest first. */
async function dueIn(
  tx: RedisTx,
  P: number,
  now: number,
  limit: number,
): Promise<{ P: number; key: string; at: number }[]> {
  const stored = await tx.redis.zrangebyscore(
    K.timers(P),
    '-inf',
    now,
    'WITHSCORES',
    'LIMIT',
    0,
    limit,
  );
  const due = new Map<string, number>();
  for (let i = 0; i < stored.length; i += 2) due.set(stored[i] as string, Number(stored[i + 1]));
  for (const [key, at] of tx.ownMembers(K.timers(P))) {
    if (at === null || at > now) due.delete(key);
    else due.set(key, at);
  }
  return [...due].map(([key, at]) => ({ P, key, at }));
}

/** The keys due at `now` in every partition, oldest first (ties by key). */
async function dueKeys(
  tx: RedisTx,
  now: number,
  limit: number,
): Promise<{ P: number; key: string }[]> {
  const perPartition = await Promise.all(tx.partitions.all().map((P) => dueIn(tx, P, now, limit)));
  return perPartition
    .flat()
    .sort((x, y) => x.at - y.at || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
    .slice(0, limit);
}

/** Fires up to `max` timers due at `now`: each one's message appended, the timer deleted. */
export async function fireDueTimers(tx: RedisTx, now: number, max?: number): Promise<FiredTimer[]> {
  const batch = countOption(max, DEFAULT_PAGE);
  if (batch === 0) return [];
  const fired: FiredTimer[] = [];
  for (const { P, key } of await dueKeys(tx, Math.round(now), batch)) {
    const text = await tx.hgetChecked(K.timer(P), key);
    if (text === undefined) continue;
    const timer = JSON.parse(text) as NewTimer;
    const [messageId] = await append(tx, [timer.message]);
    tx.hset(K.timer(P), [[key, null]]);
    tx.member(K.timers(P), key, null);
    fired.push({ key, at: timer.at, messageId: messageId as string });
  }
  return fired;
}

/** When the next timer is due, in one partition. */
async function nextIn(tx: RedisTx, P: number): Promise<number | undefined> {
  const own = tx.ownMembers(K.timers(P));
  const stored = await tx.redis.zrange(K.timers(P), '0', String(own.size), 'WITHSCORES');
  let next: number | undefined;
  for (let i = 0; i < stored.length; i += 2) {
    const key = stored[i] as string;
    if (own.has(key)) continue;
    const at = Number(stored[i + 1]);
    next = next === undefined ? at : Math.min(next, at);
  }
  for (const at of own.values()) {
    if (at !== null) next = next === undefined ? at : Math.min(next, at);
  }
  return next;
}

/** When the next timer is due. */
export async function nextTimerAt(tx: RedisTx): Promise<number | undefined> {
  const all = await Promise.all(tx.partitions.all().map((P) => nextIn(tx, P)));
  const due = all.filter((at): at is number => at !== undefined);
  return due.length === 0 ? undefined : Math.min(...due);
}
