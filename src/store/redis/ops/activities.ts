/**
 * Redis activity data: one hash per job, `weft:{p}:act:<job>`, field
 * `activity␟dimension␟attribute`, value the attribute as JSON text. A write sets only the
 * attributes it gives (and `updatedAt`), so the contract's "absent fields keep their
 * stored values" is a blind `HSET`, and a new record reads the defaults of
 * activity-write.ts for the attributes never written.
 */
import type { ActivityState } from '../../../core/states.js';
import { activityRow, DEFAULT_ACTIVITY_STATUS } from '../../activity-write.js';
import type { ActivityRecord, ActivityWrite, ErrorRecord, Json } from '../../records.js';
import type { ActivityKey } from '../../store.js';
import { partitionKeys as K, SEP } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

const ATTRIBUTES = [
  'status',
  'input',
  'output',
  'error',
  'attempt',
  'startedAt',
  'finishedAt',
  'updatedAt',
] as const;

async function keyOf(tx: RedisTx, job: string): Promise<string> {
  return K.activities(await tx.partitionOf(job), job);
}

/** Upserts activities, stamped with one time. */
export async function putActivities(tx: RedisTx, writes: ActivityWrite[]): Promise<void> {
  const now = tx.now();
  for (const write of writes) {
    const row = activityRow(write);
    const prefix = `${row.activity}${SEP}${row.dimension}${SEP}`;
    const fields: [string, string][] = [[`${prefix}updatedAt`, String(now)]];
    for (const name of ATTRIBUTES) {
      if (name === 'updatedAt' || !row.sets[name]) continue;
      fields.push([`${prefix}${name}`, JSON.stringify(row[name])]);
    }
    const p = await tx.partitionOf(row.job);
    tx.hset(K.activities(p, row.job), fields);
    tx.touch(K.revisions(p), row.job);
  }
}

/** The record of one (activity, dimension)'s attributes; undefined when never written. */
function toRecord(
  job: string,
  activity: string,
  dimension: string,
  read: (name: string) => string | undefined,
): ActivityRecord | undefined {
  const updatedAt = read('updatedAt');
  if (updatedAt === undefined) return undefined;
  const value = (name: string, fallback: Json): Json => {
    const text = read(name);
    return text === undefined ? fallback : (JSON.parse(text) as Json);
  };
  return {
    job,
    activity,
    dimension,
    status: value('status', DEFAULT_ACTIVITY_STATUS) as ActivityState,
    input: value('input', null),
    output: value('output', null),
    error: value('error', null) as ErrorRecord | null,
    attempt: value('attempt', 0) as number,
    startedAt: value('startedAt', null) as number | null,
    finishedAt: value('finishedAt', null) as number | null,
    updatedAt: Number(updatedAt),
  };
}

/** Reads several activities, in order. */
export async function getActivities(
  tx: RedisTx,
  keys: ActivityKey[],
): Promise<(ActivityRecord | undefined)[]> {
  return Promise.all(
    keys.map(async (k) => {
      const dimension = k.dimension ?? '';
      const prefix = `${k.activity}${SEP}${dimension}${SEP}`;
      const values = await tx.hmget(
        await keyOf(tx, k.job),
        ATTRIBUTES.map((name) => `${prefix}${name}`),
      );
      return toRecord(
        k.job,
        k.activity,
        dimension,
        (name) => values[ATTRIBUTES.indexOf(name as never)],
      );
    }),
  );
}

/** Every record of a job, by activity then dimension. */
export async function listActivities(tx: RedisTx, job: string): Promise<ActivityRecord[]> {
  const stored = await tx.hgetall(await keyOf(tx, job));
  const groups = new Map<string, Map<string, string>>();
  for (const [field, value] of stored) {
    const cut = field.lastIndexOf(SEP);
    const record = field.slice(0, cut);
    const group = groups.get(record) ?? new Map<string, string>();
    group.set(field.slice(cut + 1), value);
    groups.set(record, group);
  }
  const out: ActivityRecord[] = [];
  for (const [record, attributes] of groups) {
    const [activity = '', dimension = ''] = record.split(SEP);
    const found = toRecord(job, activity, dimension, (name) => attributes.get(name));
    if (found) out.push(found);
  }
  return out.sort((x, y) =>
    x.activity !== y.activity
      ? x.activity < y.activity
        ? -1
        : 1
      : x.dimension < y.dimension
        ? -1
        : x.dimension > y.dimension
          ? 1
          : 0,
  );
}

/** Every record of these jobs (of these dimensions, when given). */
export async function activitiesOfJobs(
  tx: RedisTx,
  jobs: string[],
  dimensions?: string[],
): Promise<ActivityRecord[]> {
  const dims = dimensions ? new Set(dimensions) : undefined;
  const perJob = await Promise.all([...new Set(jobs)].map((job) => listActivities(tx, job)));
  return perJob.flat().filter((r) => !dims || dims.has(r.dimension));
}

/** Each activity's newest record(s) of a job (of `activities`, when given). */
export async function newestActivities(
  tx: RedisTx,
  job: string,
  activities?: string[],
): Promise<ActivityRecord[]> {
  const wanted = activities ? new Set(activities) : undefined;
  const newest = new Map<string, ActivityRecord[]>();
  for (const record of await listActivities(tx, job)) {
    if (wanted && !wanted.has(record.activity)) continue;
    if (record.updatedAt < 0) continue;
    const best = newest.get(record.activity);
    const bestAt = best?.[0]?.updatedAt;
    if (bestAt === undefined || record.updatedAt > bestAt) newest.set(record.activity, [record]);
    else if (record.updatedAt === bestAt) best?.push(record);
  }
  return [...newest.values()].flat();
}
