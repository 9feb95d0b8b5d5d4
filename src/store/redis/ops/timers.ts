/**
 * Redis timers: `weft:{p}:timer` (key → the timer as JSON) and `weft:{p}:timers` (keys by
 * due time, ties by key). Firing reads the due timers, appends each one's message and
 * deletes it in the transaction's commit, which checks each timer is still the one read:
 * two processes firing one timer conflict, and the one that runs again finds it gone, so
 * a timer fires once.
 */
import type { FiredTimer, NewTimer } from '../../records.js';
import { countOption, DEFAULT_PAGE } from '../../stream-options.js';
import { partitionKeys as K, SINGLE_PARTITION } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { noteOwner } from './owned.js';
import { append } from './streams.js';

const P = SINGLE_PARTITION;

/** Schedules a timer, replacing one with the same key. */
export async function scheduleTimer(tx: RedisTx, timer: NewTimer): Promise<void> {
  const text = JSON.stringify({ key: timer.key, at: timer.at, message: timer.message });
  tx.hset(K.timer(P), [[timer.key, text]]);
  tx.member(K.timers(P), timer.key, timer.at);
  await noteOwner(tx, timer.message.job, 'timer', timer.key);
}

/** Cancels a pending timer; false when none was. */
export async function cancelTimer(tx: RedisTx, key: string): Promise<boolean> {
  if ((await tx.hgetChecked(K.timer(P), key)) === undefined) return false;
  tx.hset(K.timer(P), [[key, null]]);
  tx.member(K.timers(P), key, null);
  return true;
}

/** The keys due at `now`, as this transaction sees them, oldest first. */
async function dueKeys(tx: RedisTx, now: number, limit: number): Promise<string[]> {
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
  return [...due]
    .sort(([k1, a1], [k2, a2]) => a1 - a2 || (k1 < k2 ? -1 : k1 > k2 ? 1 : 0))
    .slice(0, limit)
    .map(([key]) => key);
}

/** Fires up to `max` timers due at `now`: each one's message appended, the timer deleted. */
export async function fireDueTimers(tx: RedisTx, now: number, max?: number): Promise<FiredTimer[]> {
  const batch = countOption(max, DEFAULT_PAGE);
  if (batch === 0) return [];
  const fired: FiredTimer[] = [];
  for (const key of await dueKeys(tx, Math.round(now), batch)) {
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

/** When the next timer is due. */
export async function nextTimerAt(tx: RedisTx): Promise<number | undefined> {
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
