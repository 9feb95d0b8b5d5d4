/**
 * Redis activity data: one hash per (job, dimensional thread),
 * `weft:{p}:act:<job>␟<dimension>`, field `activity␟attribute`, value the attribute as
 * JSON text. A write sets only the attributes it gives (and `updatedAt`), so the
 * contract's "absent fields keep their stored values" is a blind `HSET`, and a new record
 * reads the defaults of activity-write.ts for the attributes never written.
 *
 * Three indexes, written in the same commit as the records: the job's threads
 * (`dims:<job>`), its activities (`acts:<job>`) and, per activity, its threads by the
 * `updatedAt` of their record (`newest:<job>␟<activity>`). A batch reads only the threads
 * it runs in, and an expression's "newest record of an activity" is the top of one sorted
 * set, so a job that cycled a thousand times or spread ten thousand items costs a step no
 * more than a job with one thread.
 */
import type { ActivityState } from '../../../core/states.js';
import { activityRow, DEFAULT_ACTIVITY_STATUS } from '../../activity-write.js';
import type { ActivityRecord, ActivityWrite, ErrorRecord, Json } from '../../records.js';
import type { ActivityKey } from '../../store.js';
import { partitionKeys as K, SEP } from '../keys.js';
import { byBytes, type RedisTx } from '../redis-tx.js';

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

async function keyOf(tx: RedisTx, job: string, dimension: string): Promise<string> {
  return K.activities(await tx.partitionOf(job), job, dimension);
}

/** The dimensional threads a job has records or counters in, as this transaction sees them. */
export async function jobDimensions(tx: RedisTx, job: string): Promise<string[]> {
  return tx.zmembers(K.dimensions(await tx.partitionOf(job), job));
}

/** Upserts activities, stamped with one time. */
export async function putActivities(tx: RedisTx, writes: ActivityWrite[]): Promise<void> {
  const now = tx.now();
  for (const write of writes) {
    const row = activityRow(write);
    const prefix = `${row.activity}${SEP}`;
    const fields: [string, string][] = [[`${prefix}updatedAt`, String(now)]];
    for (const name of ATTRIBUTES) {
      if (name === 'updatedAt' || !row.sets[name]) continue;
      fields.push([`${prefix}${name}`, JSON.stringify(row[name])]);
    }
    const p = await tx.partitionOf(row.job);
    tx.hset(K.activities(p, row.job, row.dimension), fields);
    tx.member(K.dimensions(p, row.job), row.dimension, 0);
    tx.member(K.activityNames(p, row.job), row.activity, 0);
    tx.member(K.newest(p, row.job, row.activity), row.dimension, now);
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
      const prefix = `${k.activity}${SEP}`;
      const values = await tx.hmget(
        await keyOf(tx, k.job, dimension),
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

/** Every record of one thread of a job. */
async function threadRecords(
  tx: RedisTx,
  job: string,
  dimension: string,
): Promise<ActivityRecord[]> {
  const stored = await tx.hgetall(await keyOf(tx, job, dimension));
  const groups = new Map<string, Map<string, string>>();
  for (const [field, value] of stored) {
    const cut = field.lastIndexOf(SEP);
    const activity = field.slice(0, cut);
    const group = groups.get(activity) ?? new Map<string, string>();
    group.set(field.slice(cut + 1), value);
    groups.set(activity, group);
  }
  const out: ActivityRecord[] = [];
  for (const [activity, attributes] of groups) {
    const found = toRecord(job, activity, dimension, (name) => attributes.get(name));
    if (found) out.push(found);
  }
  return out;
}

const byActivityThenDimension = (x: ActivityRecord, y: ActivityRecord) =>
  byBytes(x.activity, y.activity) || byBytes(x.dimension, y.dimension);

/** Every record of a job, by activity then dimension. */
export async function listActivities(tx: RedisTx, job: string): Promise<ActivityRecord[]> {
  const dimensions = await jobDimensions(tx, job);
  const perThread = await Promise.all(dimensions.map((d) => threadRecords(tx, job, d)));
  return perThread.flat().sort(byActivityThenDimension);
}

/** Every record of these jobs (of these dimensions, when given). */
export async function activitiesOfJobs(
  tx: RedisTx,
  jobs: string[],
  dimensions?: string[],
): Promise<ActivityRecord[]> {
  const perJob = await Promise.all(
    [...new Set(jobs)].map(async (job) => {
      const threads = dimensions ? [...new Set(dimensions)] : await jobDimensions(tx, job);
      return (await Promise.all(threads.map((d) => threadRecords(tx, job, d)))).flat();
    }),
  );
  return perJob.flat();
}

/** How many members of a `newest` set one read takes. */
const NEWEST_PAGE = 32;

/**
 * The threads holding an activity's newest record (greatest `updatedAt`, 0 or more; every
 * thread sharing it): the top of its `newest` set, with this transaction's own writes.
 */
async function newestThreads(
  tx: RedisTx,
  key: string,
): Promise<{ at: number; threads: string[] } | undefined> {
  const own = tx.ownMembers(key);
  let best = -1;
  let threads: string[] = [];
  const consider = (thread: string, at: number) => {
    if (at < 0) return;
    if (at > best) {
      best = at;
      threads = [thread];
    } else if (at === best) threads.push(thread);
  };
  for (const [thread, at] of own) if (at !== null) consider(thread, at);
  for (let offset = 0; ; offset += NEWEST_PAGE) {
    const page = await tx.redis.zrevrangebyscore(
      key,
      '+inf',
      '0',
      'WITHSCORES',
      'LIMIT',
      offset,
      NEWEST_PAGE,
    );
    let below = false;
    for (let i = 0; i < page.length; i += 2) {
      const thread = page[i] as string;
      const at = Number(page[i + 1]);
      if (own.has(thread)) continue;
      if (at < best) {
        below = true;
        break;
      }
      consider(thread, at);
    }
    if (below || page.length < 2 * NEWEST_PAGE) break;
  }
  return best < 0 ? undefined : { at: best, threads };
}

/** Each activity's newest record(s) of a job (of `activities`, when given). */
export async function newestActivities(
  tx: RedisTx,
  job: string,
  activities?: string[],
): Promise<ActivityRecord[]> {
  const p = await tx.partitionOf(job);
  const names = activities ? [...new Set(activities)] : await tx.zmembers(K.activityNames(p, job));
  const perActivity = await Promise.all(
    names.map(async (activity) => {
      const top = await newestThreads(tx, K.newest(p, job, activity));
      if (!top) return [];
      const records = await getActivities(
        tx,
        top.threads.map((dimension) => ({ job, activity, dimension })),
      );
      return records.filter((r): r is ActivityRecord => r !== undefined && r.updatedAt === top.at);
    }),
  );
  return perActivity.flat();
}
