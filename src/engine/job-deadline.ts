/**
 * A job's execution timeout, for both models: the wall-clock time a job may take from
 * its start to its end (`timeout:` on a graph workflow, `timeoutMs` on a code-first one
 * or on `Client.start`). Starting such a job writes, in its start's transaction, its
 * deadline (a job-level counter, epoch ms, so `weft status` can show it) and a durable
 * timer keyed by the job that fires once, at the deadline, a `deadline` message on its
 * model's engine stream. The step that runs that message ends the job in FAILURE with a
 * {@link JobTimeoutError}, tells its child jobs to end the same way (a `deadline` message
 * each, naming the parent) and deletes the job's task messages — waiting ones never run,
 * held ones make their handlers' lease renewals fail, which aborts them. A job that ends
 * first cancels the timer. While a job is suspended the message is parked with its other
 * work (see suspension.ts) and runs when it resumes.
 */
import { JobTimeoutError } from '../core/errors.js';
import { isFinalFlowState } from '../core/states.js';
import { MAX_DURATION_MS } from '../graph/durations.js';
import { parkStream } from '../store/claim-move.js';
import type { CounterRef, ErrorRecord, Json, NewTimer } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import { isTaskStream } from './suspension.js';

/** The job-level counter holding a job's deadline (epoch ms), when it has one. */
export const DEADLINE_FIELD = 'deadline';

/** The message a job's deadline timer fires on its model's engine stream. */
export interface DeadlineMessage {
  k: 'deadline';
  /** The job to end. */
  job: string;
  /** The limit that passed, in ms. */
  timeoutMs: number;
  /** The deadline (epoch ms). */
  deadline: number;
  /** The ancestor whose deadline it was, when this job is ended as its child. */
  parent?: string;
}

/** The counter of a job's deadline. */
export function deadlineRef(job: string): CounterRef {
  return { job, field: DEADLINE_FIELD };
}

/**
 * The counter of a delayed job's start time (epoch ms; `Client.start`'s `startAt` or
 * `delayMs`), written with the job: its execution timeout counts from it.
 */
export function startAtRef(job: string): CounterRef {
  return { job, field: 'start_at' };
}

/** The key of a job's deadline timer. */
export function deadlineTimerKey(job: string): string {
  return `deadline:${job}`;
}

/** What gives a job a deadline: its counter, and its timer on `stream`. */
export interface DeadlineWrites {
  counter: { ref: CounterRef; initial: bigint };
  timer: NewTimer;
}

/** The writes that give job `job`, started at `startedAt`, a `timeoutMs` limit. */
export function deadlineWrites(
  job: string,
  stream: string,
  timeoutMs: number,
  startedAt: number,
): DeadlineWrites {
  const deadline = startedAt + timeoutMs;
  const message: DeadlineMessage = { k: 'deadline', job, timeoutMs, deadline };
  return {
    counter: { ref: deadlineRef(job), initial: BigInt(deadline) },
    timer: {
      key: deadlineTimerKey(job),
      at: deadline,
      message: { stream, job, payload: message as unknown as Json },
    },
  };
}

/** Writes a job's deadline and schedules its timer, in the caller's transaction. */
export async function scheduleDeadline(tx: StoreTx, writes: DeadlineWrites): Promise<void> {
  await tx.addCounter(writes.counter.ref, 0n, writes.counter.initial);
  await tx.scheduleTimer(writes.timer);
}

/** True for a message a deadline timer fired. */
export function isDeadlineMessage(payload: unknown): payload is DeadlineMessage {
  return (payload as { k?: unknown } | null)?.k === 'deadline';
}

/** The message that ends child job `child` of the job `message` ends. */
export function childDeadline(message: DeadlineMessage, child: string): DeadlineMessage {
  return { ...message, job: child, parent: message.parent ?? message.job };
}

/**
 * The error a job ends with when `message` ends it: a {@link JobTimeoutError} naming the
 * job and the limit, with what was still running (`activities`) and, when the job had
 * already failed (it was reverting), that error as `cause`.
 */
export function jobTimeoutRecord(
  message: DeadlineMessage,
  running: readonly string[],
  previous: ErrorRecord | null,
): ErrorRecord {
  const error = new JobTimeoutError(
    message.job,
    message.timeoutMs,
    new Date(message.deadline).toISOString(),
    message.parent,
  );
  return {
    ...(error.toJSON() as ErrorRecord),
    ...(running.length > 0 && { activities: [...running] }),
    ...(previous && { cause: { name: previous.name, message: previous.message } }),
  };
}

/** The child jobs of `job` that have not ended, every page of them. */
export async function runningChildren(tx: StoreTx, job: string): Promise<string[]> {
  const children: string[] = [];
  for (let after: string | undefined; ; ) {
    const page = await tx.listJobs({ parentId: job, limit: 1000, ...(after && { after }) });
    children.push(...page.filter((c) => !isFinalFlowState(c.state)).map((c) => c.id));
    if (page.length < 1000) return children;
    after = page.at(-1)?.id;
  }
}

/**
 * Deletes the task messages of a job that timed out, waiting or held, and the work
 * parked for it; returns how many. A worker running one of them finds its lease gone at
 * the next renewal and aborts the handler; a result that comes back anyway is refused.
 */
export async function dropJobWork(tx: StoreTx, job: string): Promise<number> {
  const park = parkStream(job);
  const byStream = new Map<string, string[]>();
  for (const m of await tx.jobMessages(job)) {
    if (!isTaskStream(m.stream) && m.stream !== park) continue;
    byStream.set(m.stream, [...(byStream.get(m.stream) ?? []), m.id]);
  }
  let removed = 0;
  for (const [stream, ids] of byStream) removed += await tx.remove(stream, ids);
  return removed;
}

/**
 * True for a job timeout `Client.start` or `defineWorkflow` accepts: a whole number of
 * ms from 1 up to 1000 days (the longest duration a workflow file may write).
 */
export function isTimeoutMs(value: unknown): value is number {
  return (
    Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_DURATION_MS
  );
}
