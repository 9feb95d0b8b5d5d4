/**
 * PostgreSQL counters (the seed's HINCRBY): `numeric` values, so arbitrary-precision
 * integers add exactly (a 200-digit collation key included), in one atomic
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING` per add: concurrent adds from any number of
 * processes serialize on the row and none is lost.
 */
import { counterKey, counterKeyText, counterName } from '../../counter-key.js';
import type { CounterRef } from '../../records.js';
import type { CounterAdd } from '../../store.js';
import { type Db, sql } from './context.js';

const ADD = sql(
  'counter_add',
  `INSERT INTO weft_counters AS c (job, activity, dimension, field, value)
   VALUES ($1, $2, $3, $4, COALESCE($6::numeric, 0) + $5::numeric)
   ON CONFLICT (job, activity, dimension, field) DO UPDATE SET value = c.value + $5::numeric
   RETURNING value::text AS value`,
);
const GET = sql(
  'counter_get',
  `SELECT value::text AS value FROM weft_counters
   WHERE job = $1 AND activity = $2 AND dimension = $3 AND field = $4`,
);
const LIST = sql(
  'counter_list',
  `SELECT activity, dimension, field, value::text AS value FROM weft_counters
   WHERE job = $1 ORDER BY activity, dimension, field`,
);

const LIST_JOBS = sql(
  'counter_list_jobs',
  `SELECT job, activity, dimension, field, value::text AS value FROM weft_counters
   WHERE job = ANY($1::text[])`,
);

// Its own statement, not `$2 IS NULL OR dimension = ANY($2)`: a cached generic plan of
// that form cannot use the (job, dimension) index and reads every counter of the job.
const LIST_JOBS_THREADS = sql(
  'counter_list_jobs_threads',
  `SELECT job, activity, dimension, field, value::text AS value FROM weft_counters
   WHERE job = ANY($1::text[]) AND dimension = ANY($2::text[])`,
);

// Set-based forms: the refs as parallel arrays, numbered so results come back in order.
const GET_MANY = sql(
  'counter_get_many',
  `SELECT u.n, c.value::text AS value
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY
     AS u(job, activity, dimension, field, n)
   JOIN weft_counters c USING (job, activity, dimension, field)`,
);
// Absent counters are created at their initial value (or 0) first; the add is then one
// UPDATE of rows that all exist, which serializes with any other add on each row.
const CREATE_MANY = sql(
  'counter_create_many',
  `INSERT INTO weft_counters (job, activity, dimension, field, value)
   SELECT job, activity, dimension, field, COALESCE(initial::numeric, 0)
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
     AS u(job, activity, dimension, field, initial)
   ON CONFLICT (job, activity, dimension, field) DO NOTHING`,
);
const ADD_MANY = sql(
  'counter_add_many',
  `UPDATE weft_counters c SET value = c.value + u.delta::numeric
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY
     AS u(job, activity, dimension, field, delta, n)
   WHERE (c.job, c.activity, c.dimension, c.field) = (u.job, u.activity, u.dimension, u.field)
   RETURNING u.n, c.value::text AS value`,
);

// Adds with no `initial` (a counter absent is created at 0): one upsert, the add itself
// applied by ON CONFLICT DO UPDATE, which serializes with any other add on the row as the
// UPDATE does. Each counter appears once in a call (the contract), so no row is hit twice.
const UPSERT_MANY = sql(
  'counter_upsert_many',
  `INSERT INTO weft_counters AS c (job, activity, dimension, field, value)
   SELECT job, activity, dimension, field, delta::numeric
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
     AS u(job, activity, dimension, field, delta)
   ON CONFLICT (job, activity, dimension, field) DO UPDATE SET value = c.value + EXCLUDED.value
   RETURNING job, activity, dimension, field, value::text AS value`,
);

function columns(refs: CounterRef[]): [string[], string[], string[], string[]] {
  const out: [string[], string[], string[], string[]] = [[], [], [], []];
  for (const ref of refs) {
    const key = counterKey(ref);
    for (let i = 0; i < 4; i++) out[i]?.push(key[i] as string);
  }
  return out;
}

function inOrder(count: number, rows: { n: string; value: string }[]): (bigint | undefined)[] {
  const out: (bigint | undefined)[] = new Array(count).fill(undefined);
  for (const row of rows) out[Number(row.n) - 1] = BigInt(row.value);
  return out;
}

/** Counter operations. */

/** A counter row as PostgreSQL returns it (its value as text: a bigint). */
type CounterRow = {
  job: string;
  activity: string;
  dimension: string;
  field: string;
  value: string;
};

export const counters = {
  /** Adds `delta` (starting from `initial`, or 0, when absent) and returns the new value. */
  async addCounter(db: Db, ref: CounterRef, delta: bigint, initial?: bigint): Promise<bigint> {
    const values = [
      ...counterKey(ref),
      delta.toString(),
      initial === undefined ? null : `${initial}`,
    ];
    const [row] = await db.rows<{ value: string }>(ADD, values);
    return BigInt(row?.value ?? '0');
  },

  /** Every counter of these jobs (of these dimensions, when given), in one statement. */
  async countersOfJobs(
    db: Db,
    jobs: string[],
    dimensions?: string[],
  ): Promise<{ ref: CounterRef; value: bigint }[]> {
    if (jobs.length === 0) return [];
    const rows = await db.rows<CounterRow>(
      dimensions ? LIST_JOBS_THREADS : LIST_JOBS,
      dimensions ? [[...new Set(jobs)], [...new Set(dimensions)]] : [[...new Set(jobs)]],
    );
    return rows.map((r) => ({
      ref: { job: r.job, activity: r.activity, dimension: r.dimension, field: r.field },
      value: BigInt(r.value),
    }));
  },

  /** Reads several counters in one statement. */
  async getCounters(db: Db, refs: CounterRef[]): Promise<(bigint | undefined)[]> {
    if (refs.length === 0) return [];
    return inOrder(refs.length, await db.rows(GET_MANY, columns(refs)));
  },

  /**
   * Applies several adds: in one upsert when none has an `initial` (a step's adds: the
   * counters it read, or new ones at 0), else in two statements (create the absent at
   * their initial values, then add to all).
   */
  async addCounters(db: Db, adds: CounterAdd[]): Promise<bigint[]> {
    if (adds.length === 0) return [];
    const keys = columns(adds.map((a) => a.ref));
    if (adds.every((a) => a.initial === undefined)) {
      const rows = await db.rows<CounterRow>(UPSERT_MANY, [
        ...keys,
        adds.map((a) => a.delta.toString()),
      ]);
      const byKey = new Map<string, bigint>();
      for (const r of rows) {
        byKey.set(counterKeyText(r), BigInt(r.value));
      }
      return adds.map((a) => byKey.get(counterKeyText(a.ref)) ?? 0n);
    }
    await db.count(CREATE_MANY, [...keys, adds.map((a) => a.initial?.toString() ?? null)]);
    const rows = await db.rows<{ n: string; value: string }>(ADD_MANY, [
      ...keys,
      adds.map((a) => a.delta.toString()),
    ]);
    return inOrder(adds.length, rows).map((v) => v ?? 0n);
  },

  /** Reads a counter. */
  async getCounter(db: Db, ref: CounterRef): Promise<bigint | undefined> {
    const [row] = await db.rows<{ value: string }>(GET, counterKey(ref));
    return row ? BigInt(row.value) : undefined;
  },

  /** A job's counters: `field` for job counters, `activity/dimension/field` for activity ones. */
  async listCounters(db: Db, job: string): Promise<Map<string, bigint>> {
    const rows = await db.rows<{
      activity: string;
      dimension: string;
      field: string;
      value: string;
    }>(LIST, [job]);
    const out = new Map<string, bigint>();
    for (const row of rows) out.set(counterName(row), BigInt(row.value));
    return out;
  },
};
