/**
 * Redis schedules: one hash, `weft:{g}:schedules`, name → the schedule record as JSON,
 * written whole. `lockSchedule` takes the schedule's lock and reads it, so two
 * transactions handling one tick run one after the other. The due ones and the
 * next tick are found by reading the hash (a schedule count, not a job count).
 */
import type { ScheduleRecord } from '../../records.js';
import { globalKeys as G } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

const byName = (a: ScheduleRecord, b: ScheduleRecord) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** Writes a schedule whole. */
export function putSchedule(tx: RedisTx, schedule: ScheduleRecord): void {
  tx.hset(G.schedules, [[schedule.name, JSON.stringify(schedule)]]);
}

/** Reads a schedule (unlocked). */
export async function getSchedule(tx: RedisTx, name: string): Promise<ScheduleRecord | undefined> {
  const text = await tx.hget(G.schedules, name);
  return text === undefined ? undefined : (JSON.parse(text) as ScheduleRecord);
}

/**
 * Reads a schedule and holds it to the end of the transaction: a second locker waits
 * (a lock key, keys.ts `lock`), and the commit checks the record is unchanged.
 */
export async function lockSchedule(tx: RedisTx, name: string): Promise<ScheduleRecord | undefined> {
  await tx.lock(G.lock(`schedule:${name}`));
  const text = await tx.hgetChecked(G.schedules, name);
  return text === undefined ? undefined : (JSON.parse(text) as ScheduleRecord);
}

/** Every schedule, by name. */
export async function listSchedules(tx: RedisTx): Promise<ScheduleRecord[]> {
  const all = [...(await tx.hgetall(G.schedules)).values()];
  return all.map((t) => JSON.parse(t) as ScheduleRecord).sort(byName);
}

/** Deletes a schedule; false when there was none. */
export async function deleteSchedule(tx: RedisTx, name: string): Promise<boolean> {
  if ((await tx.hgetChecked(G.schedules, name)) === undefined) return false;
  tx.hset(G.schedules, [[name, null]]);
  return true;
}

/** Names of the schedules not paused with a tick due by `now`, or one held back. */
export async function dueSchedules(tx: RedisTx, now: number, limit: number): Promise<string[]> {
  return (await listSchedules(tx))
    .filter((s) => !s.paused && ((s.nextAt !== null && s.nextAt <= now) || s.bufferedAt !== null))
    .slice(0, Math.max(0, Math.floor(limit)))
    .map((s) => s.name);
}

/** The earliest `nextAt` of the schedules not paused. */
export async function nextScheduleAt(tx: RedisTx): Promise<number | undefined> {
  let next: number | undefined;
  for (const s of await listSchedules(tx)) {
    if (s.paused || s.nextAt === null) continue;
    next = next === undefined ? s.nextAt : Math.min(next, s.nextAt);
  }
  return next;
}
