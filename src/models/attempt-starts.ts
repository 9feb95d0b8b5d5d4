/**
 * The history line of each task attempt's start, for both models: written by whoever
 * claims the attempt (a worker, or `weft serve` handing it to an agent), in the claim's
 * own transaction, so `weft history` shows when every attempt really began — a retry's
 * line comes no earlier than its backoff allows.
 */
import type { TaskMessage } from '../engine/messages.js';
import type { Json, NewHistoryEntry } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** The history kind of an attempt's start. */
export const ATTEMPT_KIND = 'attempt';

/** One line per claimed attempt: the task, its attempt number, `started`. */
export function attemptLines(
  tasks: readonly TaskMessage[],
  at: number,
  worker: string | null,
): NewHistoryEntry[] {
  return tasks.map((task) => ({
    job: task.job,
    kind: ATTEMPT_KIND,
    activity: task.a,
    dimension: task.d,
    change: {
      name: task.task,
      status: 'started',
      attempt: task.attempt,
      ...(task.revert ? { revert: true } : {}),
    } satisfies Record<string, Json>,
    at,
    worker,
  }));
}

/** Writes the start lines of claimed attempts in the claim's transaction. */
export async function recordAttemptStarts(
  tx: StoreTx,
  tasks: readonly TaskMessage[],
  at: number,
  worker: string | null,
): Promise<void> {
  if (tasks.length === 0) return;
  await tx.appendHistory(attemptLines(tasks, at, worker));
}
