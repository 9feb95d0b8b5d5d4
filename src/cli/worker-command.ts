/**
 * `weft worker`: runs a worker until SIGINT or SIGTERM, on every store. An idle worker
 * waits for work; a store that goes away is logged and retried until it is back (jobs
 * continue); the worker exits non-zero only when it gives up (`--give-up-ms`), saying
 * why. The first signal lets in-flight handlers finish or hands their work back within
 * the grace period, then exits 0, whatever the handlers module holds open.
 */

import { toErrorRecord } from '../core/errors.js';
import type { RetentionOption } from '../graph/retention.js';
import type { ErrorRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { flushSpans } from '../worker/tracing.js';
import { Worker } from '../worker/worker.js';
import { logWarning } from '../worker/worker-options.js';
import { createCliLogger } from './cli-logger.js';
import { loadWorkerModule } from './handlers-module.js';
import { listenForInterrupt } from './interrupt.js';
import { parseLogFormat } from './log-format.js';
import { missingHandlers, warnMissingHandlers } from './missing-handlers.js';
import type { Output } from './print.js';
import { retryingUnreachable } from './store-retry.js';
import { taskQueuesOf } from './task-queue-option.js';

/** Options of `weft worker`. */
export interface WorkerCommandOptions {
  handlers?: string;
  concurrency?: number;
  /** Limits per task (`--task-concurrency`, `--task-worker-concurrency`). */
  taskLimits?: Record<string, { concurrency?: number; workerConcurrency?: number }>;
  /** Queues per task (`--task-queue`), and their keys (`--task-queue-key`). */
  taskQueues?: Record<string, string>;
  taskQueueKeys?: Record<string, string>;
  logFormat?: string;
  /** Pretty log lines: every error's stack, a failed attempt's too. */
  verbose?: boolean;
  /** On a signal, how long handlers may finish before their work is handed back. */
  graceMs?: number;
  /** How long the store may stay unreachable before the worker gives up. */
  giveUpMs?: number;
  /** How long a claim holds a message before another worker may take it over. */
  leaseMs?: number;
  /** How long finished jobs are kept (`--retention`); absent: forever. */
  retention?: RetentionOption;
  /** Serve `/metrics` on this port and interface; `store`: the store-wide series too. */
  metrics?: { port: number; host?: string; store?: boolean };
}

/** What `stop()` may take beyond the grace period before the process exits anyway. */
const STOP_SLACK_MS = 5_000;

/** Runs `weft worker`; returns the exit code. */
export async function runWorkerCommand(
  store: Store,
  options: WorkerCommandOptions,
  output: Output,
): Promise<number> {
  const logger = createCliLogger(parseLogFormat(options.logFormat), {
    verbose: Boolean(options.verbose),
  });
  const taskQueues = taskQueuesOf(options.taskQueues, options.taskQueueKeys);
  const module = await loadWorkerModule(options.handlers);
  const graceMs = options.graceMs ?? 10_000;
  const worker = new Worker({
    store,
    logger,
    handlers: module.handlers,
    workflows: module.workflows,
    tasks: module.tasks,
    schedules: module.schedules,
    queues: module.queues,
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    ...(options.taskLimits !== undefined && { taskLimits: options.taskLimits }),
    taskQueues,
    graceMs,
    ...(options.giveUpMs !== undefined ? { giveUpMs: options.giveUpMs } : {}),
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.retention !== undefined ? { retention: options.retention } : {}),
    ...(options.metrics && {
      metricsPort: options.metrics.port,
      ...(options.metrics.host !== undefined && { metricsHost: options.metrics.host }),
      metricsStore: options.metrics.store ?? false,
    }),
  });
  const interrupt = listenForInterrupt((signal) =>
    output.err(`weft worker: ${signal} again: exiting now`),
  );
  try {
    // The store may go away between its open and the worker's start: wait for it too.
    await retryingUnreachable(
      () => worker.start(),
      options.giveUpMs ?? 600_000,
      (error) => output.err(`weft worker: ${error.message}; retrying until --give-up-ms`),
    );
    output.err(
      `weft worker ${worker.consumer} running on ${store.url} (Ctrl-C or SIGTERM stops it)`,
    );
    if (worker.metricsUrl) output.err(`weft worker: metrics on ${worker.metricsUrl}`);
    // Advice only, and not awaited: a store that is away right now is for the worker's
    // loops to ride out (they retry, and give up after --give-up-ms), not a reason to end
    // the worker here.
    void missingHandlers(store, worker.servedTasks, worker.consumer).then(
      (missing) => warnMissingHandlers(logger, missing),
      (error: unknown) =>
        logWarning(
          logger,
          "could not check the deployed workflows' tasks against this worker's handlers; running on",
          toErrorRecord(error) as ErrorRecord,
        ),
    );
    const outcome = await Promise.race([
      worker.run().then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      ),
      interrupt.received,
    ]);
    if (outcome instanceof Error) {
      output.err(`weft worker: ${outcome.message}`);
      return 1;
    }
    if (outcome === undefined) return 0;
    output.err(
      `weft worker: ${outcome}: stopping; running handlers have ${graceMs / 1000} s to finish, then their work is handed back`,
    );
    await stopWithin(worker, graceMs, output, 'weft worker');
    return 0;
  } finally {
    interrupt.dispose();
  }
}

/** How long a stopping command waits for its tracer provider to send buffered spans. */
const SPAN_FLUSH_MS = 2_000;

/**
 * Stops `worker`, waiting at most the grace period and a little more: a store that does
 * not answer must not keep the process from ending (leased work comes back when its
 * lease expires). Then the spans an OpenTelemetry SDK still buffers are sent (at most
 * {@link SPAN_FLUSH_MS}), since the process exits next.
 */
export async function stopWithin(
  worker: Worker,
  graceMs: number,
  output: Output,
  command: string,
): Promise<void> {
  let late: ReturnType<typeof setTimeout> | undefined;
  const stopped = await Promise.race([
    worker.stop().then(() => true),
    new Promise<boolean>((resolve) => {
      late = setTimeout(() => resolve(false), graceMs + STOP_SLACK_MS);
    }),
  ]);
  clearTimeout(late);
  if (!stopped) {
    output.err(
      `${command}: the store did not answer while stopping; work still leased returns to the queue when its lease expires`,
    );
  }
  await flushSpans(SPAN_FLUSH_MS);
}
