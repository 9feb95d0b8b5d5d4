/**
 * Where a job of a workflow whose file names a queue (`queue:`) waits, when its start
 * names none: the file's queue, the key its expression gives over the input (a start's
 * own `key` wins; `null` is no key; anything not a string is its canonical JSON text),
 * and the file's priority (a start's own wins). A client's start evaluates the key before
 * its transaction; a schedule's tick, inside its own, as a step plans an expression
 * (engine/expression-plan.ts): inline when provably cheap, else in the sandbox.
 */
import { canonicalJson } from '../core/canonical-json.js';
import type { WorkflowQueue } from '../graph/compiled-workflow.js';
import type { Json } from '../store/records.js';
import { planExpression } from './expression-plan.js';

/** A job's place in a queue. */
export interface QueuePlace {
  queue: string;
  key?: string;
  priority?: number;
}

/** The place of a job of `workflow` started with `input`, by its file's queue. */
export async function fileQueuePlace(
  workflow: string,
  fileQueue: WorkflowQueue,
  input: Json,
  own: { key?: string | undefined; priority?: number | undefined },
  now: number,
): Promise<QueuePlace> {
  let key = own.key;
  if (key === undefined && fileQueue.key !== undefined) {
    const value = await planExpression(
      fileQueue.key,
      { input },
      `workflow ${workflow} queue.key`,
      now,
    );
    if (value !== null) key = typeof value === 'string' ? value : canonicalJson(value);
  }
  const priority = own.priority ?? fileQueue.priority;
  return {
    queue: fileQueue.name,
    ...(key !== undefined && { key }),
    ...(priority !== undefined && { priority }),
  };
}
