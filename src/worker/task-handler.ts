/**
 * What a user writes for a task: an async function from input to output, given a
 * context with an idempotency key and an abort signal.
 */
import { ValidationError } from '../core/errors.js';
import type { TaskContext } from '../engine/task-context.js';
import type { Json } from '../store/records.js';

export type { TaskContext } from '../engine/task-context.js';

/** A task handler. Its return value must be JSON-safe. */
export type TaskHandler = (input: Json, context: TaskContext) => Promise<unknown> | unknown;

/** Handlers by task name: the default export of a handlers module. */
export type TaskHandlers = Record<string, TaskHandler>;

/**
 * What a graph task's handler takes and returns, written as a function type:
 * `(input: { amount: number }) => Promise<{ id: string }>`.
 */
export type HandlerSignature = (input: never) => unknown;

/**
 * The handler of one {@link HandlerSignature}: its input typed, the worker's
 * {@link TaskContext} second, its result the signature's (or a promise of it).
 */
export type TypedTaskHandler<F> = F extends (input: infer I) => infer O
  ? (input: I, context: TaskContext) => O | Awaited<O>
  : never;

/** Handlers typed by task name, from a map of task name to {@link HandlerSignature}. */
export type TypedTaskHandlers<S> = { [K in keyof S]: TypedTaskHandler<S[K]> };

/**
 * Types a graph workflow's task handlers without casts: with the signatures as its type
 * argument each handler's `input` is typed (and its result checked), as in
 * `defineHandlers<{ charge: (input: { amount: number }) => Promise<{ id: string }> }>({
 * charge: async (input) => ({ id: \`c-${input.amount}\` }) })`; without one, handlers that
 * annotate their own input are accepted and keep their types (`H`, inferred only when no
 * type argument is given). A misspelt task name is an error.
 *
 * The types are a promise the workflow keeps: the input a task gets is what its `input`
 * expression (or the job input) makes of the JSON, so a workflow's input schema is where
 * it is checked at run time. Returns the same handlers, usable wherever
 * {@link TaskHandlers} are (a `Worker`'s `handlers`, a handlers module's default export)
 * and still callable with their own types in a test. A member that is not a function is
 * a ValidationError.
 */
export function defineHandlers<
  S extends { [K in keyof S]: HandlerSignature } = Record<string, HandlerSignature>,
  H extends TypedTaskHandlers<S> = TypedTaskHandlers<S>,
>(handlers: H): H & TaskHandlers {
  for (const [name, handler] of Object.entries(handlers)) {
    if (typeof handler !== 'function') {
      throw new ValidationError(`the handler of task ${name} must be a function`, 'defineHandlers');
    }
  }
  return handlers as H & TaskHandlers;
}
