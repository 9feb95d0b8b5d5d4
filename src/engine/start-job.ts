/**
 * Starting a graph job: the job row, its collation key with every activity pending, the
 * trigger's `enter` message and, when it has an execution timeout, its deadline and the
 * deadline's timer (job-deadline.ts), in one transaction. Idempotent by job id: starting
 * an id that exists returns that job and enqueues nothing.
 */
import { initialCollationKey } from '../core/collation.js';
import type {
  CounterRef,
  JobRecord,
  Json,
  NewHistoryEntry,
  NewJob,
  NewMessage,
} from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import { COLLATION_FIELD } from './collation-field.js';
import { startEntry } from './history.js';
import {
  type DeadlineWrites,
  deadlineWrites,
  scheduleDeadline,
  startAtRef,
} from './job-deadline.js';
import type { LoadedWorkflow } from './loaded-workflow.js';
import { ENGINE_STREAM } from './messages.js';

/** Where a child job reports back to. */
export interface ParentLink {
  job: string;
  activity: string;
  dimension: string;
}

/** What to start. */
export interface GraphJobStart {
  id: string;
  wf: LoadedWorkflow;
  input: Json;
  parent?: ParentLink;
  now: number;
  /** Who starts it, for its history (null: a client). */
  worker?: string | null;
  /** Its execution timeout in ms (default: the workflow's `timeout:`, else none). */
  timeoutMs?: number;
  /**
   * A delayed start: epoch ms before which its trigger does not run (its `enter` message
   * is not claimable until then). Its execution timeout counts from this time.
   */
  startAt?: number;
}

/**
 * The rows that start a graph job: the job, its collation key, its trigger's message, and
 * its history's first line.
 */
export interface GraphJobRows {
  job: NewJob;
  collation: { ref: CounterRef; initial: bigint };
  enter: NewMessage;
  start: NewHistoryEntry;
  /** Its deadline, when it has an execution timeout. */
  deadline?: DeadlineWrites;
}

/** What starting a graph job writes, as data. */
export function graphJobRows(start: GraphJobStart): GraphJobRows {
  const { compiled } = start.wf;
  const initial = initialCollationKey(start.wf.layout);
  const timeoutMs = start.timeoutMs ?? compiled.timeoutMs;
  const job: NewJob = {
    id: start.id,
    workflow: compiled.workflow,
    version: compiled.version,
    model: 'graph',
    state: 'RUNNING',
    input: start.input,
    context: start.parent ? { parent: { ...start.parent } } : null,
    parentId: start.parent?.job ?? null,
    parentActivity: start.parent?.activity ?? null,
    createdAt: start.now,
  };
  return {
    job,
    collation: { ref: { job: start.id, field: COLLATION_FIELD }, initial },
    enter: {
      stream: ENGINE_STREAM,
      job: start.id,
      payload: { k: 'enter', job: start.id, a: compiled.trigger, d: '' },
      ...(start.startAt !== undefined && { availableAt: start.startAt }),
    },
    start: startEntry(job, start.wf.renderKey(initial), start.now, timeoutMs, start.startAt),
    ...(timeoutMs !== undefined && {
      deadline: deadlineWrites(start.id, ENGINE_STREAM, timeoutMs, start.startAt ?? start.now),
    }),
  };
}

/** Creates a graph job and enqueues its trigger, unless the id exists already. */
export async function startGraphJob(
  tx: StoreTx,
  start: GraphJobStart,
): Promise<{ job: JobRecord; created: boolean }> {
  const rows = graphJobRows(start);
  const result = await tx.createJob(rows.job);
  if (!result.created) return result;
  await tx.addCounter(rows.collation.ref, 0n, rows.collation.initial);
  if (start.startAt !== undefined) {
    await tx.addCounter(startAtRef(start.id), 0n, BigInt(start.startAt));
  }
  await tx.append([rows.enter]);
  if (rows.deadline) await scheduleDeadline(tx, rows.deadline);
  await tx.appendHistory([{ ...rows.start, worker: start.worker ?? null }]);
  return result;
}
