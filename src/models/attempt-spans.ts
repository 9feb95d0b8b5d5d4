/**
 * A task's attempts read off its job's history, for the dashboard's timeline: when each
 * attempt began (its `attempt` line, written when a worker claimed it), when it ended and
 * how (the result's line; a retried failure's line names the next attempt and its delay,
 * so the backoff it waits out shows), for both models. Reverts (code-first) are read
 * apart from the task's own attempts. Pure.
 */
import type { HistoryEntry, Json } from '../store/records.js';

/** How an attempt ended, or that it has not. */
export type AttemptOutcome = 'running' | 'completed' | 'failed' | 'timed out';

/** One attempt of a task (or of its revert). */
export interface AttemptSpan {
  /** 1 for the first attempt. */
  attempt: number;
  /** ISO time a worker claimed it; null when the history has no line of its start. */
  startedAt: string | null;
  /** ISO time its result was recorded; null while it runs. */
  finishedAt: string | null;
  outcome: AttemptOutcome;
  /** Its error, as `Name: message`, when it failed. */
  error: string | null;
  /** A failed attempt that is retried: the next attempt is not claimed before this ISO time. */
  retryAt: string | null;
}

type Change = Record<string, Json | undefined>;

const iso = (ms: number) => new Date(ms).toISOString();
const changeOf = (line: HistoryEntry): Change =>
  line.change && typeof line.change === 'object' && !Array.isArray(line.change)
    ? (line.change as Change)
    : {};

/** The lines of one task (one activity and thread of a graph job, one code-first work), in order. */
export type TaskLines = readonly HistoryEntry[];

/** The lines of each task of a job, by `activity` and `dimension`. */
export function linesByTask(history: readonly HistoryEntry[]): Map<string, HistoryEntry[]> {
  const out = new Map<string, HistoryEntry[]>();
  for (const line of history) {
    if (line.activity === null) continue;
    const key = taskKey(line.activity, line.dimension);
    const list = out.get(key);
    if (list) list.push(line);
    else out.set(key, [line]);
  }
  return out;
}

/** The key of a task in {@link linesByTask}. */
export function taskKey(activity: string, dimension: string): string {
  return `${activity}\u0000${dimension}`;
}

const DONE = new Set(['completed', 'SUCCESS', 'REVERTED']);
const FAILED = new Set(['failed', 'FAILURE', 'REVERT_FAILURE']);

/**
 * The attempts of a task (`revert`: of its revert) from its lines: each `attempt` line
 * opens one; a line with `retryInMs` closes the open one as failed and retried; a
 * result's line (completed or failed, a timeout, a revert's result) closes it.
 */
export function attemptSpans(lines: TaskLines, revert = false): AttemptSpan[] {
  const spans: AttemptSpan[] = [];
  let open: AttemptSpan | null = null;
  const close = (
    at: number,
    outcome: AttemptOutcome,
    error: string | null,
    attempt?: number,
  ): AttemptSpan | null => {
    const last = spans.at(-1);
    // A second result line for an attempt already closed (a graph step writing its
    // status again) opens nothing; a result without a start line (older history) does.
    if (!open && last && (attempt === undefined || attempt <= last.attempt)) return null;
    const span: AttemptSpan = open ?? {
      attempt: attempt ?? (spans.at(-1)?.attempt ?? 0) + 1,
      startedAt: null,
      finishedAt: null,
      outcome: 'running',
      error: null,
      retryAt: null,
    };
    if (!open) spans.push(span);
    span.finishedAt = iso(at);
    span.outcome = outcome;
    span.error = error;
    open = null;
    return span;
  };
  for (const line of lines) {
    const change = changeOf(line);
    const isRevert = line.kind === 'revert' || change.revert === true;
    if (isRevert !== revert) continue;
    const error = typeof change.error === 'string' ? change.error : null;
    if (line.kind === 'attempt') {
      if (open) open.outcome = 'running';
      open = {
        attempt: typeof change.attempt === 'number' ? change.attempt : spans.length + 1,
        startedAt: iso(line.at),
        finishedAt: null,
        outcome: 'running',
        error: null,
        retryAt: null,
      };
      spans.push(open);
    } else if (typeof change.retryInMs === 'number') {
      // The line names the next attempt: the one that failed is the one before it.
      const failed = typeof change.attempt === 'number' ? change.attempt - 1 : undefined;
      const last = spans.at(-1);
      // An attempt already closed (a timeout's line came first) only learns its retry.
      const span =
        !open && last && last.attempt === failed ? last : close(line.at, 'failed', error, failed);
      if (span) {
        span.retryAt = iso(line.at + change.retryInMs);
        span.error ??= error;
      }
    } else if (line.kind === 'timeout') {
      close(line.at, 'timed out', error);
    } else if (typeof change.status === 'string' && DONE.has(change.status)) {
      close(line.at, 'completed', null);
    } else if (typeof change.status === 'string' && FAILED.has(change.status)) {
      const attempt = typeof change.attempt === 'number' ? change.attempt : undefined;
      close(line.at, 'failed', error, attempt);
    }
  }
  return spans;
}
