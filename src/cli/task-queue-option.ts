/**
 * `weft worker --task-queue charge=payments [--task-queue-key charge=input.customer]`:
 * the queue a task's attempts are claimed through (store/task-queue-claim.ts), and the
 * key of an attempt for the queue's per-key limits, a cheap JSONata expression over `{
 * input }` (worker/task-queue-key.ts). Loaded by `weft worker` only: it needs JSONata.
 */
import { ValidationError } from '../core/errors.js';
import { checkQueueName } from '../core/queue-rules.js';
import type { TaskQueue } from '../worker/task-limits.js';
import { expressionKey } from '../worker/task-queue-key.js';

/** The worker's `taskQueues` from `--task-queue` and `--task-queue-key`. */
export function taskQueuesOf(
  queues: Record<string, string> = {},
  keys: Record<string, string> = {},
): Record<string, TaskQueue> {
  const out: Record<string, TaskQueue> = {};
  for (const [task, name] of Object.entries(queues)) {
    checkQueueName(name, `--task-queue ${task}`);
    out[task] = { name };
  }
  for (const [task, source] of Object.entries(keys)) {
    const queue = out[task];
    if (!queue) {
      throw new ValidationError(
        `--task-queue-key ${task} needs a queue for the task: add --task-queue ${task}=<queue>`,
        `--task-queue-key ${task}`,
      );
    }
    queue.key = expressionKey(source, task);
  }
  return out;
}
