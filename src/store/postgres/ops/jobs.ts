/**
 * PostgreSQL job operations: create (idempotent by id), read, lock (`FOR UPDATE`),
 * compare-and-set of the state (checked against the flow machine), patch, and filtered
 * keyset listing. A move into a final state sends `j:<id>` on channel `weft` in the same
 * statement, so other processes hear it only after the commit.
 */
import { NotFoundError } from '../../../core/errors.js';
import type { FlowState } from '../../../core/states.js';
import { jobMove } from '../../job-move.js';
import { jobQuery } from '../../job-query.js';
import { jobPatchRow, newJobRecord, traceOf } from '../../job-record.js';
import { QUEUED_STREAM } from '../../queue-rules.js';
import type { ErrorRecord, JobFilter, JobPatch, JobRecord, Json, NewJob } from '../../records.js';
import { type Db, ms, type Statement, sql, toJson } from './context.js';

interface JobRow {
  id: string;
  workflow: string;
  version: number;
  model: JobRecord['model'];
  state: FlowState;
  input: Json;
  output: Json;
  error: ErrorRecord | null;
  context: Json;
  parent_id: string | null;
  parent_activity: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  traceparent: string | null;
  tracestate: string | null;
}

function toJob(row: JobRow): JobRecord {
  const trace = traceOf(row.traceparent, row.tracestate);
  return {
    id: row.id,
    workflow: row.workflow,
    version: row.version,
    model: row.model,
    state: row.state,
    input: row.input,
    output: row.output,
    error: row.error,
    context: row.context,
    parentId: row.parent_id,
    parentActivity: row.parent_activity,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    ...(trace && { trace }),
  };
}

const COLUMNS = `id, workflow, version, model, state, input, output, error, context, parent_id,
  parent_activity, created_at, updated_at, finished_at, traceparent, tracestate`;

const INSERT = sql(
  'job_insert',
  `INSERT INTO weft_jobs (id, workflow, version, model, state, input, output, error, context,
     parent_id, parent_activity, created_at, updated_at, finished_at, traceparent, tracestate)
   VALUES ($1, $2, $3, $4, $5, $6, 'null', NULL, $7, $8, $9, $10, $10, NULL, $11, $12)
   ON CONFLICT (id) DO NOTHING`,
);
const SELECT = sql('job_get', `SELECT ${COLUMNS} FROM weft_jobs WHERE id = $1`);
const LOCK = sql('job_lock', `SELECT ${COLUMNS} FROM weft_jobs WHERE id = $1 FOR UPDATE`);
const LOCK_MANY = sql(
  'job_lock_many',
  `SELECT ${COLUMNS} FROM weft_jobs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
);

// $1 id, $2..$9 the patch (flag, value pairs), $10 now.
const PATCH_SET = `
  output = CASE WHEN $2 THEN $3::json ELSE output END,
  error = CASE WHEN $4 THEN $5::json ELSE error END,
  context = CASE WHEN $6 THEN $7::json ELSE context END,
  updated_at = $10`;
// A move that ends the job also deletes its queue item, freeing its slot (and, for a job
// that never got one, the messages parked for its admission): in the same statement.
const MOVE = sql(
  'job_move',
  `WITH moved AS (
     UPDATE weft_jobs SET state = $12, ${PATCH_SET},
       finished_at = CASE WHEN $8 THEN $9::bigint WHEN $13 THEN $10 ELSE NULL END
     WHERE id = $1 AND state = $11
     RETURNING id, CASE WHEN $13 THEN pg_notify('weft', 'j:' || id) IS NULL END AS notified
   ), ended AS (
     DELETE FROM weft_queue_items q USING moved WHERE $13 AND q.job = moved.id
     RETURNING q.job, q.state
   ), unparked AS (
     DELETE FROM weft_messages m USING ended
     WHERE ended.state = 'waiting' AND m.stream = '${QUEUED_STREAM}' AND m.job = ended.job
     RETURNING 1
   )
   SELECT notified,
     (SELECT pg_notify('weft', 's:${QUEUED_STREAM}') IS NULL FROM ended) AS freed
   FROM moved`,
);
const PATCH = sql(
  'job_patch',
  `UPDATE weft_jobs SET ${PATCH_SET},
     finished_at = CASE WHEN $8 THEN $9::bigint ELSE finished_at END
   WHERE id = $1`,
);

const PATCH_MANY = sql(
  'job_patch_many',
  `UPDATE weft_jobs j SET
     output = CASE WHEN u.has_output THEN u.output::json ELSE j.output END,
     error = CASE WHEN u.has_error THEN u.error::json ELSE j.error END,
     context = CASE WHEN u.has_context THEN u.context::json ELSE j.context END,
     updated_at = $10,
     finished_at = CASE WHEN u.has_finished THEN u.finished_at ELSE j.finished_at END
   FROM unnest($1::text[], $2::bool[], $3::text[], $4::bool[], $5::text[], $6::bool[],
     $7::text[], $8::bool[], $9::bigint[])
     AS u(id, has_output, output, has_error, error, has_context, context, has_finished,
       finished_at)
   WHERE j.id = u.id
   RETURNING j.id`,
);

function patchValues(id: string, patch: JobPatch, now: number): unknown[] {
  const row = jobPatchRow(patch);
  return [
    id,
    row.sets.output,
    toJson(row.output),
    row.sets.error,
    row.error ? JSON.stringify(row.error) : null,
    row.sets.context,
    toJson(row.context),
    row.sets.finishedAt,
    row.finishedAt === null ? null : ms(row.finishedAt),
    now,
  ];
}

const SET_INPUT = sql(
  'job_set_input',
  'UPDATE weft_jobs SET input = $2::jsonb, updated_at = $3 WHERE id = $1',
);

/** One listing statement per filter shape, named by its shape. */
const listings = new Map<string, Statement>();

/** Job operations. */
export const jobs = {
  /** Creates a job unless one with its id exists. */
  async createJob(db: Db, job: NewJob): Promise<{ job: JobRecord; created: boolean }> {
    const createdAt = ms(job.createdAt ?? db.clock.now());
    const record = newJobRecord(job, createdAt);
    const inserted = await db.count(INSERT, [
      record.id,
      record.workflow,
      record.version,
      record.model,
      record.state,
      toJson(record.input),
      toJson(record.context),
      record.parentId,
      record.parentActivity,
      createdAt,
      record.trace?.traceparent ?? null,
      record.trace?.tracestate ?? null,
    ]);
    if (inserted === 1) return { job: record, created: true };
    const existing = await jobs.getJob(db, job.id);
    if (!existing) throw new NotFoundError('job', job.id);
    return { job: existing, created: false };
  },

  /** Reads a job. */
  async getJob(db: Db, id: string): Promise<JobRecord | undefined> {
    const [row] = await db.rows<JobRow>(SELECT, [id]);
    return row ? toJob(row) : undefined;
  },

  /** Reads a job and locks its row to the end of the transaction. */
  async lockJob(db: Db, id: string): Promise<JobRecord | undefined> {
    const [row] = await db.rows<JobRow>(LOCK, [id]);
    return row ? toJob(row) : undefined;
  },

  /** Locks several jobs, in id order. */
  async lockJobs(db: Db, ids: string[]): Promise<JobRecord[]> {
    return (await db.rows<JobRow>(LOCK_MANY, [[...new Set(ids)]])).map(toJob);
  },

  /** Compare-and-set of the state: only a legal `move` writes. */
  async setJobState(
    db: Db,
    id: string,
    from: FlowState,
    to: FlowState,
    patch: JobPatch = {},
  ): Promise<boolean> {
    const move = jobMove(id, from, to);
    if (!move) return false;
    const values = patchValues(id, patch, db.clock.now());
    const [moved] = await db.rows<{ freed: boolean | null }>(MOVE, [
      ...values,
      from,
      to,
      move.final,
    ]);
    if (!moved) return false;
    if (move.notice) db.notify(move.notice);
    if (moved.freed) db.notify(`stream:${QUEUED_STREAM}`);
    return true;
  },

  /** Patches a job; NotFoundError when there is none. */
  async updateJob(db: Db, id: string, patch: JobPatch): Promise<void> {
    const changed = await db.count(PATCH, patchValues(id, patch, db.clock.now()));
    if (changed !== 1) throw new NotFoundError('job', id);
  },

  /** Patches several jobs in one statement; NotFoundError naming a missing one. */
  async updateJobs(db: Db, patches: { id: string; patch: JobPatch }[]): Promise<void> {
    if (patches.length === 0) return;
    const rows = patches.map(({ id, patch }) => patchValues(id, patch, 0));
    const column = (i: number) => rows.map((row) => row[i]);
    const found = await db.rows<{ id: string }>(PATCH_MANY, [
      ...Array.from({ length: 9 }, (_, i) => column(i)),
      db.clock.now(),
    ]);
    if (found.length !== patches.length) {
      const patched = new Set(found.map((r) => r.id));
      const missing = patches.find((p) => !patched.has(p.id)) as { id: string };
      throw new NotFoundError('job', missing.id);
    }
  },

  /** Replaces a job's input. */
  async setJobInput(db: Db, id: string, input: Json): Promise<void> {
    const changed = await db.count(SET_INPUT, [id, toJson(input), db.clock.now()]);
    if (changed !== 1) throw new NotFoundError('job', id);
  },

  /** Lists jobs by filter in id order (newest first with `descending`). */
  async listJobs(db: Db, filter: JobFilter = {}): Promise<JobRecord[]> {
    const query = jobQuery(filter);
    if (!query) return [];
    const where: string[] = [];
    const values: unknown[] = [];
    const param = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    if (query.states) where.push(`state = ANY(${param(query.states)}::text[])`);
    if (query.workflow !== undefined) where.push(`workflow = ${param(query.workflow)}`);
    if (query.parentId !== undefined) where.push(`parent_id = ${param(query.parentId)}`);
    if (query.createdFrom !== undefined) {
      where.push(`created_at >= ${param(query.createdFrom)}::bigint`);
    }
    if (query.createdBefore !== undefined) {
      where.push(`created_at < ${param(query.createdBefore)}::bigint`);
    }
    if (query.after !== undefined) {
      where.push(`id ${query.descending ? '<' : '>'} ${param(query.after)}`);
    }
    const limit = param(query.limit);
    const text = `SELECT ${COLUMNS} FROM weft_jobs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY id ${query.descending ? 'DESC' : 'ASC'} LIMIT ${limit}`;
    let statement = listings.get(text);
    if (!statement) {
      statement = sql(`job_list_${listings.size}`, text);
      listings.set(text, statement);
    }
    return (await db.rows<JobRow>(statement, values)).map(toJob);
  },
};
