/**
 * SQLite counters (the seed's HINCRBY): arbitrary-precision integers stored as decimal
 * text and added with `bigint` inside the transaction, which SQLite's single writer
 * makes atomic. A 200-digit collation key adds exactly.
 */
import { counterKey, counterName } from '../../counter-key.js';
import type { CounterRef } from '../../records.js';
import type { OpsContext, Statement } from './context.js';

/** Counter operations on one connection. */
export class SqliteCounters {
  private readonly select: Statement;
  private readonly upsert: Statement;
  private readonly selectJob: Statement;
  private readonly selectJobDimensions: Statement;

  constructor(ctx: OpsContext) {
    const { db } = ctx;
    this.select = db
      .prepare(
        'SELECT value FROM weft_counters WHERE job = ? AND activity = ? AND dimension = ? AND field = ?',
      )
      .pluck();
    this.upsert = db.prepare(`INSERT INTO weft_counters (job, activity, dimension, field, value)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (job, activity, dimension, field) DO UPDATE SET value = excluded.value`);
    this.selectJob = db.prepare(
      'SELECT activity, dimension, field, value FROM weft_counters WHERE job = ? ORDER BY activity, dimension, field',
    );
    // The threads drive the search, one lookup of the thread index each: left to itself
    // (no statistics) the planner reads every counter of the job by its primary key and
    // filters, which grows with the job's threads.
    this.selectJobDimensions = db.prepare(
      `SELECT c.activity, c.dimension, c.field, c.value FROM json_each(?) d
         CROSS JOIN weft_counters c INDEXED BY weft_counters_thread
         WHERE c.job = ? AND c.dimension = d.value`,
    );
  }

  /** Adds `delta` (starting from `initial`, or 0, when absent) and returns the new value. */
  addCounter(ref: CounterRef, delta: bigint, initial?: bigint): bigint {
    const key = counterKey(ref);
    const stored = this.select.get(...key) as string | undefined;
    const value = (stored === undefined ? (initial ?? 0n) : BigInt(stored)) + delta;
    this.upsert.run(...key, value.toString());
    return value;
  }

  /** Reads a counter. */
  getCounter(ref: CounterRef): bigint | undefined {
    const stored = this.select.get(...counterKey(ref)) as string | undefined;
    return stored === undefined ? undefined : BigInt(stored);
  }

  /** Every counter of these jobs (of these dimensions, when given), with its reference. */
  countersOfJobs(jobs: string[], dimensions?: string[]): { ref: CounterRef; value: bigint }[] {
    const out: { ref: CounterRef; value: bigint }[] = [];
    const dims = dimensions ? JSON.stringify([...new Set(dimensions)]) : undefined;
    for (const job of new Set(jobs)) {
      const rows = (
        dims === undefined ? this.selectJob.all(job) : this.selectJobDimensions.all(dims, job)
      ) as {
        activity: string;
        dimension: string;
        field: string;
        value: string;
      }[];
      for (const row of rows) {
        out.push({
          ref: { job, activity: row.activity, dimension: row.dimension, field: row.field },
          value: BigInt(row.value),
        });
      }
    }
    return out;
  }

  /** A job's counters: `field` for job counters, `activity/dimension/field` for activity ones. */
  listCounters(job: string): Map<string, bigint> {
    const out = new Map<string, bigint>();
    const rows = this.selectJob.all(job) as {
      activity: string;
      dimension: string;
      field: string;
      value: string;
    }[];
    for (const row of rows) out.set(counterName(row), BigInt(row.value));
    return out;
  }
}
