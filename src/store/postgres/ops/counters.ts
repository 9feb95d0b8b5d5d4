/**
 * PostgreSQL counters (the seed's HINCRBY): `numeric` values, so arbitrary-precision
 * integers add exactly (a 200-digit collation key included), in one atomic
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING` per add: concurrent adds from any number of
 * processes serialize on the row and none is lost.
 */
import type { CounterRef } from '../../records.js';
import { type Db, sql } from './context.js';

function keyOf(ref: CounterRef): [string, string, string, string] {
  return [ref.job, ref.activity ?? '', ref.dimension ?? '', ref.field];
}

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

/** Counter operations. */
export const counters = {
  /** Adds `delta` (starting from `initial`, or 0, when absent) and returns the new value. */
  async addCounter(db: Db, ref: CounterRef, delta: bigint, initial?: bigint): Promise<bigint> {
    const values = [...keyOf(ref), delta.toString(), initial === undefined ? null : `${initial}`];
    const [row] = await db.rows<{ value: string }>(ADD, values);
    return BigInt(row?.value ?? '0');
  },

  /** Reads a counter. */
  async getCounter(db: Db, ref: CounterRef): Promise<bigint | undefined> {
    const [row] = await db.rows<{ value: string }>(GET, keyOf(ref));
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
    for (const row of rows) {
      const name =
        row.activity === '' ? row.field : `${row.activity}/${row.dimension}/${row.field}`;
      out.set(name, BigInt(row.value));
    }
    return out;
  },
};
