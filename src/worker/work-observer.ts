/**
 * What a worker tells an observer of its work as it happens: the engine steps it
 * committed, each task attempt that ended, and what each of its commits did (jobs
 * created and ended, history lines, dead letters). Its metrics (metrics/weft-metrics.ts)
 * are one observer; the worker calls none of this when it has none.
 */
import type { StreamMessage } from '../store/records.js';
import type { CommitReport } from './commit-report.js';

/**
 * How a task attempt ended on this worker: its handler returned (`success`), threw
 * (`error`), ran past its timeout (`timeout`), or was given back unfinished — the worker
 * stopped, or its lease was lost — to run again elsewhere (`released`).
 */
export type AttemptOutcome = 'success' | 'error' | 'timeout' | 'released';

/** A task attempt that ended on this worker. */
export interface EndedAttempt {
  task: string;
  /** 1 for the first attempt, 2 for the first retry… */
  attempt: number;
  outcome: AttemptOutcome;
  /** From the handler's start to its end (ms, the worker's clock). */
  durationMs: number;
}

/** Told of a worker's work as it happens; every method returns at once. */
export interface WorkObserver {
  /** Engine messages whose steps committed at `now` (epoch ms), in one transaction. */
  stepsCommitted(messages: readonly StreamMessage[], now: number): void;
  /** A task attempt ended (before its result is committed). */
  attemptEnded(attempt: EndedAttempt): void;
  /** A transaction of this worker committed and did what `report` says. */
  committed(report: CommitReport): void;
}
