/**
 * The settings a chaos worker process runs with, and their defaults. The driver passes
 * overrides to each worker as one JSON argument.
 */

/** Settings of one chaos worker process. */
export interface ChaosWorkerSettings {
  /** Handlers running at once. */
  concurrency: number;
  /** Lease on a claimed message, in ms. */
  leaseMs: number;
  /** How long an idle loop waits before looking again, in ms. */
  idleMs: number;
  /** Engine messages per transaction. */
  batchSize: number;
}

/** The default lease (see docs/chaos.md for why not shorter on SQLite). */
export const DEFAULT_LEASE_MS = 5000;

/** The defaults. */
export const DEFAULT_CHAOS_WORKER_SETTINGS: ChaosWorkerSettings = {
  concurrency: 8,
  leaseMs: DEFAULT_LEASE_MS,
  idleMs: 100,
  batchSize: 32,
};
