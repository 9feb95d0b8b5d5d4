/**
 * Worker settings, with their defaults.
 */

import type { Clock } from '../core/clock.js';
import type { TaskDefinition, WorkflowDefinition } from '../durable/definitions.js';
import type { RetentionOption } from '../graph/retention.js';
import type { CheckedQueue } from '../models/queue-spec.js';
import type { CheckedSchedule } from '../models/schedule-spec.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { WeftMetrics } from './metrics/weft-metrics.js';
import type { TaskHandlers } from './task-handler.js';
import type { TaskLimit, TaskQueue } from './task-limits.js';

/**
 * Facts a log line carries beside its message: the task, job, activity, attempt, state,
 * workflow… A logger prints them as fields (`--log-format json`) or after the message.
 */
export type LogFields = Record<string, Json | undefined>;

/**
 * Where a worker reports what happens: `error` for what went wrong (a job that ended in
 * FAILURE, a loop that failed), `warn` for a failed handler attempt (the engine may try
 * again), `info` for a job that ended in SUCCESS. `fields` and `warn` are optional, so a
 * logger written as `{ error(m, e) {…}, info() {} }` still works (`warn` then goes to
 * `error`). See `createCliLogger` in the CLI for the pino-based one `weft` uses.
 */
export interface WorkerLogger {
  error(message: string, error?: ErrorRecord, fields?: LogFields): void;
  warn?(message: string, error?: ErrorRecord, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
}

/** Logs a warning on `logger`, or an error when it has no `warn`. */
export function logWarning(
  logger: WorkerLogger,
  message: string,
  error?: ErrorRecord,
  fields?: LogFields,
): void {
  if (logger.warn) logger.warn(message, error, fields);
  else logger.error(message, error, fields);
}

/**
 * The defaults of {@link WorkerOptions}, sized for async handlers (see docs/benchmarks.md,
 * "The defaults"). `concurrency` equals `batchSize`: an engine batch that enters up to
 * `batchSize` tasks can claim every one of them in its own commit, and a result that
 * enters the next task claims it in the result's commit, instead of leaving it for a claim
 * of its own. Handlers that keep a core busy (not awaiting I/O) should lower
 * `concurrency` to about the number of cores, or move the work to worker threads.
 */
export const WORKER_DEFAULTS = {
  concurrency: 64,
  batchSize: 64,
  engineLanes: 4,
  resultLanes: 1,
  inlineSteps: 64,
  leaseMs: 30_000,
  maxDeliveries: 10,
  idleMs: 1000,
  graceMs: 10_000,
  giveUpMs: 600_000,
} as const;

/** How a worker runs. */
export interface WorkerOptions {
  store: Store;
  /** Task handlers by name. */
  handlers?: TaskHandlers;
  /** Code-first workflows whose decisions this worker runs. */
  workflows?: readonly WorkflowDefinition<never[], unknown>[];
  /** Code-first tasks this worker runs (added to `handlers` under their names). */
  tasks?: readonly TaskDefinition<never, unknown>[];
  /**
   * How many attempts of a task may run at once, by task name: across every worker
   * (`concurrency`, enforced by the store) and in this process (`workerConcurrency`).
   * Over a code-first task's own (`defineTask(…, { concurrency })`). Give every worker
   * that runs the task the same `concurrency`.
   */
  taskLimits?: Readonly<Record<string, TaskLimit>>;
  /**
   * The queue a task's attempts are claimed through, by task name: a queue name, or `{
   * name, key }` where `key` reads an attempt's key from the task's input (for the
   * queue's per-key limits). The queue's limits (`weft queue create`, `defineQueue`)
   * hold over the attempts of every task that names it, across every worker. Over a
   * code-first task's own (`defineTask(…, { queue })`). Give every worker that runs the
   * task the same queue.
   */
  taskQueues?: Readonly<Record<string, string | TaskQueue>>;
  /**
   * Most task handlers running at once (default 64, as `batchSize`). Handlers that await
   * I/O cost little while they wait, and a free slot lets a step's result claim the next
   * task in its own commit. Lower it for CPU-bound handlers (to about the core count).
   */
  concurrency?: number;
  /** Most engine messages in one transaction (default 64). */
  batchSize?: number;
  /**
   * Most engine batches in flight at once, each its own transaction (default 4). Extra
   * batches start only when a batch came back full: a backlog.
   */
  engineLanes?: number;
  /**
   * Most task-result commits in flight at once, each its own transaction (default 1:
   * results that finish while one commits go into the next, together). More lanes start
   * that next commit at once on another connection — for a PostgreSQL or Redis server
   * whose commits wait on a slow disk or network while the worker's CPU is idle. On
   * SQLite (one writer) more lanes only queue. See docs/benchmarks.md, "Result lanes".
   */
  resultLanes?: number;
  /**
   * Most further steps of the same job one engine step may run inline, in its own
   * transaction, instead of sending them through the engine stream (default 64; 0 sends
   * every step through the stream). See `GraphEngineOptions.inlineSteps`.
   */
  inlineSteps?: number;
  /** Lease on a claimed message, in ms (default 30000); long handlers heartbeat. */
  leaseMs?: number;
  /** Deliveries before a message is dead-lettered (default 10). */
  maxDeliveries?: number;
  /** How long an idle loop waits for a notice before looking anyway (default 1000 ms). */
  idleMs?: number;
  /** On stop, how long running handlers may finish before being aborted (default 10000 ms). */
  graceMs?: number;
  /**
   * How long a loop may keep failing (the store unreachable, say) before the worker gives
   * up: it stops and {@link Worker.run} rejects naming the last error (default 600000 ms).
   */
  giveUpMs?: number;
  /**
   * The presence window, in ms (default `WEFT_WORKER_WINDOW_MS`, else 30000): the worker
   * refreshes its heartbeat every third of it, and warns about work that has waited this
   * long on a task no live worker serves.
   */
  presenceWindowMs?: number;
  /** A name for this worker's claims, also on the history lines it commits (default host:pid:random). */
  consumer?: string;
  clock?: Clock;
  logger?: WorkerLogger;
  /**
   * Schedules this worker declares when it starts (`defineSchedule`): stored, or updated
   * when their declaration changed (see `models/schedule-spec.ts`).
   */
  schedules?: readonly CheckedSchedule[];
  /** Queues this worker declares when it starts (`defineQueue`). */
  queues?: readonly CheckedQueue[];
  /**
   * Whether this worker fires due schedules (default true). Any number of workers may:
   * each tick starts one job whichever fires it.
   */
  runSchedules?: boolean;
  /**
   * How long finished jobs are kept before this worker prunes them (with everything they
   * wrote), for workflows whose file or definition gives no `retention` (or not for that
   * end state): `'30d'`, ms, `'forever'`, or per end state (`{ succeeded: '7d', failed:
   * '30d' }`). Default: forever — nothing is pruned unless configured. Give every worker of
   * a store the same: the shortest one running applies.
   */
  retention?: RetentionOption;
  /** Called after each committed engine batch with the ids of the jobs it touched. */
  onCommit?: (jobs: readonly string[]) => void;
  /**
   * Counts this worker's work as it happens (jobs started and ended, steps, task attempts,
   * retries, dead letters; docs/dashboard.md lists the series). Several workers may share
   * one. Default: none, unless {@link metricsPort} is set (then a new one, with the
   * process's CPU and memory series).
   */
  metrics?: WeftMetrics;
  /**
   * Serves `GET /metrics` (Prometheus text) on this port from `start()` to `stop()`, for
   * a process that runs no dashboard (0: any free port; see `Worker.metricsUrl`).
   */
  metricsPort?: number;
  /** The interface {@link metricsPort} listens on (default 127.0.0.1). */
  metricsHost?: string;
  /**
   * Whether {@link metricsPort} serves the store-wide series too (unfinished jobs, stream
   * depths, queues, schedules; what the dashboard's `/metrics` serves). They are the same
   * from every process, so one per store is enough (default false).
   */
  metricsStore?: boolean;
}

/** The default logger of a library `Worker`: errors and warnings to stderr, nothing else. */
export const stderrLogger: WorkerLogger = {
  error(message, error) {
    process.stderr.write(
      `weft worker: ${message}${error ? `: ${error.name}: ${error.message}` : ''}\n`,
    );
  },
  warn(message, error) {
    process.stderr.write(
      `weft worker: ${message}${error ? `: ${error.name}: ${error.message}` : ''}\n`,
    );
  },
  info() {},
};

/** The result lanes a worker runs (see {@link WorkerOptions.resultLanes}). */
export function resultLanesOf(options: Pick<WorkerOptions, 'resultLanes'>): number {
  if (options.resultLanes !== undefined) return Math.max(1, Math.floor(options.resultLanes));
  return WORKER_DEFAULTS.resultLanes;
}
