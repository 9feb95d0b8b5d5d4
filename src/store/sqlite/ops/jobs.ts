/**
 * SQLite job operations: create (idempotent by id), read, compare-and-set of the state
 * (checked against the flow machine), patch, and filtered keyset listing.
 */
import { NotFoundError } from '../../../core/errors.js';
import type { FlowState } from '../../../core/states.js';
import { jobMove } from '../../job-move.js';
import { jobQuery } from '../../job-query.js';
import { jobPatchRow, newJobRecord, traceOf } from '../../job-record.js';
import type { ErrorRecord, JobFilter, JobPatch, JobRecord, Json, NewJob } from '../../records.js';
import { fromJson, fromJsonOrNull, type OpsContext, type Statement, toJson } from './context.js';
import type { SqliteQueues } from './queues.js';

interface JobRow {
  id: string;
  workflow: string;
  version: number;
  model: JobRecord['model'];
  state: FlowState;
  input: string;
  output: string;
  error: string | null;
  context: string;
  parent_id: string | null;
  parent_activity: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  traceparent: string | null;
  tracestate: string | null;
}

/**
 * Defines `record.input` as read from `text` on first use (then a plain value): a step
 * locks its job on every batch, and a big job's input (a spread's items) would otherwise
 * be parsed each time whether or not the step reads it.
 */
function lazyInput(record: Omit<JobRecord, 'input'>, text: string): JobRecord {
  const set = (value: Json) =>
    Object.defineProperty(record, 'input', {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  Object.defineProperty(record, 'input', {
    get() {
      const value = fromJson(text);
      set(value);
      return value;
    },
    set,
    enumerable: true,
    configurable: true,
  });
  return record as JobRecord;
}

/** `{ trace }` when the row has a trace context, else nothing. */
function withTrace(traceparent: string | null, tracestate: string | null) {
  const trace = traceOf(traceparent, tracestate);
  return trace ? { trace } : {};
}

function toJob(row: JobRow): JobRecord {
  const record = {
    id: row.id,
    workflow: row.workflow,
    version: row.version,
    model: row.model,
    state: row.state,
    output: fromJson(row.output),
    error: fromJsonOrNull<ErrorRecord>(row.error),
    context: fromJson(row.context),
    parentId: row.parent_id,
    parentActivity: row.parent_activity,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    ...withTrace(row.traceparent, row.tracestate),
  };
  return row.input.length < 1024
    ? { ...record, input: fromJson(row.input) }
    : lazyInput(record, row.input);
}

/** Parameters of the patch columns, shared by setJobState and updateJob. */
function patchParams(patch?: JobPatch) {
  const row = jobPatchRow(patch);
  return {
    has_output: row.sets.output ? 1 : 0,
    output: toJson(row.output),
    has_error: row.sets.error ? 1 : 0,
    error: row.error ? JSON.stringify(row.error) : null,
    has_context: row.sets.context ? 1 : 0,
    context: toJson(row.context),
    has_finished: row.sets.finishedAt ? 1 : 0,
    finished_at: row.finishedAt,
  };
}

const PATCH_SET = `
  output = CASE WHEN @has_output THEN @output ELSE output END,
  error = CASE WHEN @has_error THEN @error ELSE error END,
  context = CASE WHEN @has_context THEN @context ELSE context END,
  updated_at = @now`;

/** Job operations on one connection. */
export class SqliteJobs {
  private readonly insert: Statement;
  private readonly select: Statement;
  private readonly move: Statement;
  private readonly patch: Statement;
  private readonly setInput: Statement;
  private readonly listing = new Map<string, Statement>();

  constructor(
    private readonly ctx: OpsContext,
    /** Told of every job that ends: it frees the job's queue slot. */
    private readonly queues?: SqliteQueues,
  ) {
    const { db } = ctx;
    this.insert = db.prepare(`INSERT INTO weft_jobs (id, workflow, version, model, state, input,
        output, error, context, parent_id, parent_activity, created_at, updated_at, finished_at,
        traceparent, tracestate)
      VALUES (@id, @workflow, @version, @model, @state, @input, 'null', NULL, @context,
        @parent_id, @parent_activity, @created_at, @created_at, NULL, @traceparent, @tracestate)
      ON CONFLICT (id) DO NOTHING`);
    this.select = db.prepare('SELECT * FROM weft_jobs WHERE id = ?');
    this.move = db.prepare(`UPDATE weft_jobs SET state = @to, ${PATCH_SET},
        finished_at = CASE WHEN @has_finished THEN @finished_at
          WHEN @final THEN @now ELSE NULL END
      WHERE id = @id AND state = @from`);
    this.patch = db.prepare(`UPDATE weft_jobs SET ${PATCH_SET},
        finished_at = CASE WHEN @has_finished THEN @finished_at ELSE finished_at END
      WHERE id = @id`);
    this.setInput = db.prepare('UPDATE weft_jobs SET input = ?, updated_at = ? WHERE id = ?');
  }

  /** Creates a job unless one with its id exists. */
  createJob(job: NewJob): { job: JobRecord; created: boolean } {
    const createdAt = job.createdAt ?? this.ctx.clock.now();
    const record = newJobRecord(job, createdAt);
    const result = this.insert.run({
      id: record.id,
      workflow: record.workflow,
      version: record.version,
      model: record.model,
      state: record.state,
      input: toJson(record.input),
      context: toJson(record.context),
      parent_id: record.parentId,
      parent_activity: record.parentActivity,
      created_at: createdAt,
      traceparent: record.trace?.traceparent ?? null,
      tracestate: record.trace?.tracestate ?? null,
    });
    if (result.changes === 1) return { job: record, created: true };
    return { job: this.getJob(job.id) as JobRecord, created: false };
  }

  /** Reads a job. */
  getJob(id: string): JobRecord | undefined {
    const row = this.select.get(id) as JobRow | undefined;
    return row ? toJob(row) : undefined;
  }

  /**
   * Compare-and-set of the state. Only a legal `move` writes; `same` (from === to) and
   * `ignored` (a suspend request on an idle job) write nothing and return false.
   */
  setJobState(id: string, from: FlowState, to: FlowState, patch?: JobPatch): boolean {
    const move = jobMove(id, from, to);
    if (!move) return false;
    const result = this.move.run({
      ...patchParams(patch),
      id,
      from,
      to,
      final: move.final ? 1 : 0,
      now: this.ctx.clock.now(),
    });
    if (result.changes !== 1) return false;
    if (move.notice) this.ctx.notify(move.notice);
    if (move.final) this.queues?.jobEnded(id);
    return true;
  }

  /** Patches a job; NotFoundError when there is none. */
  updateJob(id: string, patch: JobPatch): void {
    const result = this.patch.run({ ...patchParams(patch), id, now: this.ctx.clock.now() });
    if (result.changes !== 1) throw new NotFoundError('job', id);
  }

  /** Patches several jobs; NotFoundError (the caller's transaction rolls back) for a missing one. */
  updateJobs(patches: { id: string; patch: JobPatch }[]): void {
    for (const { id, patch } of patches) this.updateJob(id, patch);
  }

  /** Replaces a job's input. */
  setJobInput(id: string, input: Json): void {
    const result = this.setInput.run(toJson(input), this.ctx.clock.now(), id);
    if (result.changes !== 1) throw new NotFoundError('job', id);
  }

  /** Lists jobs by filter in id order (newest first with `descending`). */
  listJobs(filter: JobFilter = {}): JobRecord[] {
    const query = jobQuery(filter);
    if (!query) return [];
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.states) {
      where.push(`state IN (${query.states.map(() => '?').join(', ')})`);
      params.push(...query.states);
    }
    if (query.workflow !== undefined) {
      where.push('workflow = ?');
      params.push(query.workflow);
    }
    if (query.parentId !== undefined) {
      where.push('parent_id = ?');
      params.push(query.parentId);
    }
    if (query.createdFrom !== undefined) {
      where.push('created_at >= ?');
      params.push(query.createdFrom);
    }
    if (query.createdBefore !== undefined) {
      where.push('created_at < ?');
      params.push(query.createdBefore);
    }
    if (query.after !== undefined) {
      where.push(query.descending ? 'id < ?' : 'id > ?');
      params.push(query.after);
    }
    const sql = `SELECT * FROM weft_jobs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY id ${query.descending ? 'DESC' : 'ASC'} LIMIT ?`;
    params.push(query.limit);
    // Filters combine freely: one prepared statement per shape, kept for reuse.
    let statement = this.listing.get(sql);
    if (!statement) {
      statement = this.ctx.db.prepare(sql);
      this.listing.set(sql, statement);
    }
    const rows = statement.all(...params) as JobRow[];
    return rows.map(toJob);
  }
}
