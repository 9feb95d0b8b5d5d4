/**
 * What the decision and task desks of one agent server share: the store, the name the
 * server claims under, the lease it takes, and the engines that record results.
 */
import type { Clock } from '../core/clock.js';
import type { Models } from '../models/models.js';
import type { Store } from '../store/store.js';
import type { WorkerLogger } from '../worker/worker-options.js';

/** Settings of the decision and task desks. */
export interface DeskSettings {
  store: Store;
  /** The consumer name of this server's claims. */
  consumer: string;
  /** Lease on a handed-out decision or task, in ms. */
  leaseMs: number;
  /** Deliveries of a task message before it is dead-lettered. */
  maxDeliveries: number;
  clock: Clock;
  /** The runtime of each model (the code-first engine's decisions included). */
  models: Models;
  /** How many finished or stale hand-outs are remembered (for precise 409s). */
  remember: number;
  /** Where failed task attempts reported by agents are logged. */
  logger?: WorkerLogger;
}
