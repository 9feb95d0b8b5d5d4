/**
 * How many attempts of one task may run at once: across every worker (`concurrency`,
 * enforced by the store: a claim takes no more than the task stream's messages held under
 * a live lease leave room for) and in one worker process (`workerConcurrency`, counted by
 * the task runner). Given by a code-first task's definition (`defineTask(…, {
 * concurrency })`), a Worker's `taskLimits`, or `weft worker --task-concurrency charge=5`.
 */
import type { TaskLimit } from '../durable/definitions.js';

export {
  checkTaskLimit,
  checkTaskQueue,
  type TaskLimit,
  type TaskQueue,
} from '../durable/definitions.js';

/** How many more attempts of a task this worker may start now (Infinity: no limit here). */
export function workerRoom(limit: TaskLimit | undefined, runningHere: number): number {
  return limit?.workerConcurrency === undefined
    ? Number.POSITIVE_INFINITY
    : Math.max(0, limit.workerConcurrency - runningHere);
}
