/**
 * Worker settings, with their defaults.
 */
import type { Clock } from '../core/clock.js';
import type { TaskDefinition, WorkflowDefinition } from '../durable/definitions.js';
import type { ErrorRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { TaskHandlers } from './task-handler.js';

/** Where a worker reports what went wrong. */
export interface WorkerLogger {
  error(message: string, error?: ErrorRecord): void;
  info(message: string): void;
}

/** How a worker runs. */
export interface WorkerOptions {
  store: Store;
  /** Task handlers by name. */
  handlers?: TaskHandlers;
  /** Code-first workflows whose decisions this worker runs. */
  workflows?: readonly WorkflowDefinition<never[], unknown>[];
  /** Code-first tasks this worker runs (added to `handlers` under their names). */
  tasks?: readonly TaskDefinition<never, unknown>[];
  /** Most task handlers running at once (default 10). */
  concurrency?: number;
  /** Most engine messages in one transaction (default 64). */
  batchSize?: number;
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
  /** A name for this worker's claims (default host:pid:random). */
  consumer?: string;
  clock?: Clock;
  logger?: WorkerLogger;
  /** Called after each committed engine batch with the ids of the jobs it touched. */
  onCommit?: (jobs: readonly string[]) => void;
}

/** The default logger: errors to stderr, nothing else. */
export const stderrLogger: WorkerLogger = {
  error(message, error) {
    process.stderr.write(
      `weft worker: ${message}${error ? `: ${error.name}: ${error.message}` : ''}\n`,
    );
  },
  info() {},
};
