/**
 * The lines a graph job's steps leave in its history (`weft history`, the dashboard's
 * timeline): one per step that ran — each engine message, each task result, each step
 * held back and run inline — plus one when the job starts and one when it ends. A step
 * records the digits it moved (before and after), the collation key after it, and the
 * status and attempt it wrote on its own activity. They are planned with the step and
 * committed in its unit of work, so the history holds exactly the steps that committed.
 */
import type { CollationDigit } from '../core/collation-digits.js';
import type { FlowState } from '../core/states.js';
import type { ErrorRecord, Json, NewHistoryEntry, NewJob } from '../store/records.js';

/** What a graph history line is about: the message kind of a step, or the job's start and end. */
export type GraphHistoryKind =
  | 'start'
  | 'enter'
  | 'task'
  | 'signal'
  | 'timeout'
  | 'wake'
  | 'child'
  | 'end'
  | 'cancel'
  | 'dead-letter'
  | 'reopen'
  | 'suspend'
  | 'suspended'
  | 'resume'
  | 'resumption'
  /** A task attempt began: a worker (or an agent) claimed it. */
  | 'attempt'
  | 'revert'
  /** A scope ended: none of its members was active any more. */
  | 'close'
  /** The job was rerun from an activity: a new job keeps its results before it. */
  | 'rerun'
  /** The job's deadline passed: its started and paused activities errored, the job ended. */
  | 'deadline'
  /** The job joined a queue: its queue, key and priority (store/queue-placement.ts). */
  | 'queued';

/** What a step did to its own activity's record, as far as the history shows it. */
export interface OwnWrite {
  status?: string;
  attempt?: number;
  error?: ErrorRecord | null;
  /** A failed attempt is retried: the next one waits this long (ms). */
  retryInMs?: number;
}

/** What one step changed. */
export interface StepChange {
  /** Each activity whose digit the step moved: [before, after]. */
  digits: Record<string, [CollationDigit, CollationDigit]>;
  /** The collation key after the step, as printed. */
  collation: string;
  own?: OwnWrite | undefined;
  /** The job's state, when the step moved it. */
  state?: FlowState | undefined;
}

function describeError(error: ErrorRecord): string {
  return `${error.name}: ${error.message}`;
}

/** A step's line. */
export function stepEntry(
  job: string,
  kind: GraphHistoryKind,
  activity: string | null,
  dimension: string,
  change: StepChange,
  at: number,
): NewHistoryEntry {
  const moved = Object.fromEntries(
    Object.entries(change.digits).filter(([, [before, after]]) => before !== after),
  );
  const own = change.own;
  return {
    job,
    kind,
    activity,
    dimension,
    change: {
      digits: moved,
      collation: change.collation,
      ...(own?.status !== undefined ? { status: own.status } : {}),
      ...(own?.attempt !== undefined ? { attempt: own.attempt } : {}),
      ...(own?.error ? { error: describeError(own.error) } : {}),
      ...(own?.retryInMs !== undefined ? { retryInMs: own.retryInMs } : {}),
      ...(change.state ? { state: change.state } : {}),
    } as Json,
    at,
  };
}

/**
 * A job's first line: it started (a client, or a parent job's await, created it), with
 * its execution timeout and deadline when it has one.
 */
export function startEntry(
  job: NewJob,
  collation: string,
  at: number,
  timeoutMs?: number,
  startAt?: number,
): NewHistoryEntry {
  // A delayed start's deadline runs from the time it starts at.
  const from = startAt ?? at;
  return {
    job: job.id,
    kind: 'start',
    activity: null,
    change: {
      state: job.state ?? 'RUNNING',
      workflow: job.workflow,
      version: job.version,
      collation,
      ...(job.parentId ? { parent: job.parentId } : {}),
      ...(startAt !== undefined && { startAt: new Date(startAt).toISOString() }),
      ...(timeoutMs !== undefined && {
        timeoutMs,
        deadline: new Date(from + timeoutMs).toISOString(),
      }),
    },
    at,
  };
}

/** A job's line when it ends or is cancelled. */
export function stateEntry(
  job: string,
  kind: GraphHistoryKind,
  state: FlowState,
  error: ErrorRecord | null,
  at: number,
): NewHistoryEntry {
  return {
    job,
    kind,
    activity: null,
    change: { state, ...(error ? { error: describeError(error) } : {}) },
    at,
  };
}
