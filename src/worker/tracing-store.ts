/**
 * A view of a store whose transactions leave OpenTelemetry spans (the model is in
 * tracing.ts and docs/tracing.md). The engines stay as they are: this view watches what a
 * transaction does through the `Store` contract and, once it has committed, records the
 * spans of what it did —
 *
 * - a job it creates gets a start span under the caller's active context (a child job's,
 *   under its parent job's anchor), whose W3C context is stored with the job;
 * - a task message it appends for a traced job carries the job's context and workflow,
 *   so the attempt's span needs no read (task-attempt-span.ts);
 * - a job it moves into a final state gets its job span, from its creation to its end;
 * - an activity record it finishes (graph) gets its activity span, a code-first work
 *   status it completes or fails gets its step span.
 *
 * With no SDK registered, `transaction` is the store's own and nothing else runs.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import { isFinalFlowState } from '../core/states.js';
import { overriding } from '../store/overriding.js';
import type {
  ActivityRecord,
  ActivityWrite,
  JobRecord,
  JournalEntry,
  Json,
  NewHistoryEntry,
  NewJob,
  NewMessage,
} from '../store/records.js';
import type { ActivityKey, Store, StoreTx } from '../store/store.js';
import {
  ATTR,
  activeContext,
  contextFrom,
  recordEnded,
  startSpan,
  traceContextOf,
  tracingOn,
  trackSpanWork,
} from './tracing.js';

type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a job span needs of the job it ends (its input is not read: it may be large). */
type EndedJob = Pick<
  JobRecord,
  'id' | 'workflow' | 'model' | 'state' | 'error' | 'createdAt' | 'finishedAt' | 'trace'
>;

/** What one run of a transaction's callback did that has spans. */
class TransactionTrace {
  /** The jobs it read, locked or created, by id (the trace context of each). */
  private readonly jobs = new Map<string, JobRecord>();
  /** Start spans of the jobs it created: ended at commit. */
  private readonly starts: Span[] = [];
  /** The jobs it moved into a final state, as they were written. */
  private readonly ended: EndedJob[] = [];
  private readonly finished: ActivityKey[] = [];
  private readonly steps: { job: string; status: JsonObject }[] = [];
  /** The last collation key a history line gave, by job. */
  private readonly collation = new Map<string, string>();

  /** The transaction as its callback sees it. */
  readonly view: StoreTx;

  constructor(private readonly tx: StoreTx) {
    this.view = overriding(tx, this.overrides);
  }

  private note(job: JobRecord | undefined): JobRecord | undefined {
    if (job) this.jobs.set(job.id, job);
    return job;
  }

  private readonly overrides: Partial<StoreTx> = {
    createJob: async (job: NewJob) => {
      if (job.trace) {
        const result = await this.tx.createJob(job);
        this.note(result.job);
        return result;
      }
      const parentTrace = job.parentId ? this.jobs.get(job.parentId)?.trace : undefined;
      const span = startSpan(
        {
          job: job.id,
          workflow: job.workflow,
          parentJob: job.parentId,
          parentActivity: job.parentActivity,
        },
        parentTrace ? contextFrom(parentTrace) : activeContext(),
      );
      const trace = traceContextOf(span);
      const result = await this.tx.createJob(trace ? { ...job, trace } : job);
      this.note(result.job);
      // A duplicate start (the id exists) made no job: its span is dropped, never ended.
      if (result.created && trace) this.starts.push(span);
      return result;
    },
    getJob: async (id: string) => this.note(await this.tx.getJob(id)),
    lockJob: async (id: string) => this.note(await this.tx.lockJob(id)),
    lockJobs: async (ids: string[]) => {
      const jobs = await this.tx.lockJobs(ids);
      for (const job of jobs) this.note(job);
      return jobs;
    },
    setJobState: async (id, from, to, patch) => {
      const moved = await this.tx.setJobState(id, from, to, patch);
      if (moved && isFinalFlowState(to)) {
        // The job as written: what this transaction read of it and the move's patch (the
        // store stamps finishedAt when the patch has none: the commit's time will do).
        const job = this.jobs.get(id) ?? (await this.tx.getJob(id));
        if (job?.trace) {
          this.ended.push({
            id: job.id,
            workflow: job.workflow,
            model: job.model,
            state: to,
            error: patch?.error !== undefined ? patch.error : job.error,
            createdAt: job.createdAt,
            finishedAt: patch?.finishedAt ?? null,
            trace: job.trace,
          });
        }
      }
      return moved;
    },
    append: (messages: NewMessage[]) => {
      for (const message of messages) this.carry(message);
      return this.tx.append(messages);
    },
    putActivity: (write: ActivityWrite) => {
      this.noteFinished(write);
      return this.tx.putActivity(write);
    },
    putActivities: (writes: ActivityWrite[]) => {
      for (const write of writes) this.noteFinished(write);
      return this.tx.putActivities(writes);
    },
    appendJournal: (entries: JournalEntry[]) => {
      for (const entry of entries) this.noteStep(entry);
      return this.tx.appendJournal(entries);
    },
    appendHistory: (entries: NewHistoryEntry[]) => {
      for (const entry of entries) {
        const collation = isObject(entry.change) ? entry.change.collation : undefined;
        if (typeof collation === 'string') this.collation.set(entry.job, collation);
      }
      return this.tx.appendHistory(entries);
    },
  };

  /** Puts the job's trace on a task message (in place: a follow-up claim shares the payload). */
  private carry(message: NewMessage): void {
    if (!message.job || !message.stream.startsWith('task:') || !isObject(message.payload)) return;
    if (message.payload.trace !== undefined) return;
    const job = this.jobs.get(message.job);
    if (!job?.trace) return;
    message.payload.trace = { ...job.trace, workflow: job.workflow };
  }

  private noteFinished(write: ActivityWrite): void {
    if (typeof write.finishedAt === 'number') {
      this.finished.push({
        job: write.job,
        activity: write.activity,
        dimension: write.dimension ?? '',
      });
    }
  }

  private noteStep(entry: JournalEntry): void {
    if (entry.kind !== 'status' || !isObject(entry.data)) return;
    const status = entry.data;
    // A completed or failed work; its later entries (a revert's) are not a step's end.
    if (typeof status.finished_at !== 'number' || status.revert_state !== undefined) return;
    this.steps.push({ job: entry.job, status });
  }

  /** Records the spans, once the transaction has committed. */
  committed(store: Store, now: number): void {
    for (const span of this.starts) span.end();
    for (const job of this.ended) this.jobSpan(job, now);
    for (const { job, status } of this.steps) this.stepSpan(job, status);
    const keys = this.finished.filter((key) => this.jobs.get(key.job)?.trace);
    if (keys.length > 0) {
      // Read after the commit, off the caller's path: only the records have the start times.
      // Tracked, so a worker that stops waits for it (tracing.ts, spanWorkDone).
      trackSpanWork(
        store
          .getActivities(keys)
          .then((records) => {
            for (const record of records) if (record) this.activitySpan(record);
          })
          .catch(() => {}),
      );
    }
  }

  private base(job: EndedJob): Attributes {
    const attributes: Attributes = {
      [ATTR.job]: job.id,
      [ATTR.workflow]: job.workflow,
      [ATTR.model]: job.model,
    };
    const collation = this.collation.get(job.id);
    if (collation !== undefined) attributes[ATTR.collation] = collation;
    return attributes;
  }

  private jobSpan(job: EndedJob, now: number): void {
    if (!job.trace) return;
    recordEnded({
      name: `weft.job ${job.workflow}`,
      parent: job.trace,
      startTime: job.createdAt,
      endTime: job.finishedAt ?? now,
      attributes: { ...this.base(job), [ATTR.state]: job.state },
      failed: job.state !== 'SUCCESS',
      error: job.error ?? `job ended ${job.state}`,
    });
  }

  private stepSpan(jobId: string, status: JsonObject): void {
    const job = this.jobs.get(jobId);
    if (!job?.trace) return;
    const end = status.finished_at as number;
    const start = [status.started_at, status.scheduled_at].find((t) => typeof t === 'number');
    const name = typeof status.name === 'string' ? status.name : String(status.uuid);
    recordEnded({
      name: `weft.step ${name}`,
      parent: job.trace,
      startTime: (start as number | undefined) ?? end,
      endTime: end,
      attributes: {
        ...this.base(job),
        [ATTR.activity]: String(status.uuid),
        [ATTR.step]: name,
        [ATTR.status]: String(status.status),
        [ATTR.attempt]: typeof status.attempt === 'number' ? status.attempt : 1,
      },
      failed: status.status === 'failed',
      error: status.error,
    });
  }

  private activitySpan(record: ActivityRecord): void {
    const job = this.jobs.get(record.job);
    if (!job?.trace || record.finishedAt === null) return;
    const attributes: Attributes = {
      ...this.base(job),
      [ATTR.activity]: record.activity,
      [ATTR.status]: record.status,
      [ATTR.attempt]: record.attempt,
    };
    if (record.dimension !== '') attributes[ATTR.dimension] = record.dimension;
    recordEnded({
      name: `weft.activity ${record.activity}`,
      parent: job.trace,
      startTime: record.startedAt ?? record.finishedAt,
      endTime: record.finishedAt,
      attributes,
      failed: record.status === 'FAILURE' || record.status === 'REVERT_FAILURE',
      error: record.error,
    });
  }
}

/**
 * `store` with transactions that record weft's spans (see above) while an SDK is
 * registered; the store itself otherwise. `now` stamps a job span whose job has no end
 * time.
 */
export function tracingStore(store: Store, now: () => number = Date.now): Store {
  const traced: Store['transaction'] = async (fn) => {
    let run: TransactionTrace | undefined;
    const result = await store.transaction((tx) => {
      run = new TransactionTrace(tx);
      return fn(run.view);
    });
    run?.committed(store, now());
    return result;
  };
  const transaction: Store['transaction'] = (fn) =>
    tracingOn() ? traced(fn) : store.transaction(fn);
  return overriding(store, { transaction });
}
