/**
 * What a user writes for a task: an async function from input to output, given a
 * context with an idempotency key and an abort signal.
 */
import type { TaskContext } from '../engine/task-context.js';
import type { Json } from '../store/records.js';

export type { TaskContext } from '../engine/task-context.js';

/** A task handler. Its return value must be JSON-safe. */
export type TaskHandler = (input: Json, context: TaskContext) => Promise<unknown> | unknown;

/** Handlers by task name: the default export of a handlers module. */
export type TaskHandlers = Record<string, TaskHandler>;
