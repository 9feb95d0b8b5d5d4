/**
 * Typed definitions of tasks and code-first workflows. A definition carries its input
 * and output types, so `await this.execute(charge, { amount: 5 })` inside a workflow is
 * typed by `charge`'s function, and a parallel `execute([a, x], [b, y])` by the tuple.
 */
import { ValidationError } from '../core/errors.js';
import { checkQueueName } from '../core/queue-rules.js';
import type { RetentionPolicy } from '../core/retention.js';
import type { RetrySettings } from '../core/retry-policy.js';
import { isTimeoutMs } from '../engine/job-deadline.js';
import { checkRetryOptions, type RetryOptions } from '../engine/retry-document.js';
import type { TaskContext } from '../engine/task-context.js';
import { MAX_DURATION_MS } from '../graph/durations.js';
import { checkRetention, type RetentionOption } from '../graph/retention.js';
import { toJson } from './stable-json.js';
import { Workflow } from './workflow.js';

/** The clocks and retry policy of a task's runs: its options, or one call's override. */
export interface TaskRunOptions {
  /**
   * How it is retried when an attempt fails (default: 3 attempts, 1 s then 2 s apart);
   * durations as milliseconds or strings such as `'200ms'`, `'30s'`. `{ attempts: 1 }`
   * runs it once.
   */
  retry?: RetryOptions;
  /**
   * Per-attempt (start-to-close) timeout: an attempt running longer is aborted and fails
   * with a `TimeoutError` (the workflow's `onTimeout` runs), then is retried.
   */
  timeoutMs?: number;
  /**
   * Timeout across all attempts and the waits between them (schedule-to-close), from
   * when the task was scheduled: when it passes, the task fails with a `TimeoutError`.
   */
  scheduleToCloseTimeoutMs?: number;
  /** An attempt that goes longer than this without `ctx.heartbeat()` fails as timed out. */
  heartbeatTimeoutMs?: number;
}

/** Options of a task. */
export interface TaskOptions<I = never> extends TaskRunOptions {
  /**
   * The task that undoes this one (TaskFlow's revert): when a workflow defined with
   * `{ onFailure: 'revert' }` fails, it runs with `{ input, output, error }` of this
   * task's run. A worker that has this task has its revert too.
   */
  revert?: TaskDefinition<never, unknown>;
  /**
   * Most attempts of this task running at once across every worker, enforced by the
   * store (default: no limit).
   */
  concurrency?: number;
  /** Most attempts of this task running at once in one worker process (default: no limit). */
  workerConcurrency?: number;
  /**
   * The queue this task's attempts are claimed through (store/task-queue-claim.ts): its
   * limits (concurrency, per-key concurrency, rates) hold over the attempts of every task
   * that names it, across every worker. A name, or `{ name, key }` where `key` reads an
   * attempt's key for per-key limits from the task's input.
   */
  queue?: string | TaskQueueOption<I>;
}

/** A task's queue, with how an attempt's key is read from its input. */
export interface TaskQueueOption<I = never> {
  name: string;
  key?: (input: I) => string | number | Promise<string | number>;
}

/** A task's queue, checked. */
export interface TaskQueue {
  name: string;
  key?: (input: unknown) => string | number | Promise<string | number>;
}

/** A task's `queue` option, checked (names the task in its errors). */
export function checkTaskQueue(
  option: string | TaskQueueOption<never> | TaskQueue,
  task: string,
): TaskQueue {
  const where = `task ${task}`;
  const spec = typeof option === 'string' ? { name: option } : option;
  if (typeof spec !== 'object' || spec === null) {
    throw new ValidationError('queue must be a queue name or { name, key }', where);
  }
  checkQueueName(spec.name, where);
  if (spec.key !== undefined && typeof spec.key !== 'function') {
    throw new ValidationError("queue's key must be a function of the task's input", where);
  }
  return { name: spec.name, ...(spec.key && { key: spec.key as TaskQueue['key'] }) };
}

/**
 * A named async function a worker runs. `I` is its input, `O` its (JSON) output. The
 * worker passes the {@link TaskContext} (idempotency key, attempt, abort signal,
 * heartbeat) as the second argument.
 */
export interface TaskDefinition<I = unknown, O = unknown> {
  readonly kind: 'task';
  readonly name: string;
  readonly run: (input: I, context?: TaskContext) => Promise<O>;
  /** Its retry settings in milliseconds, as given (absent fields: the defaults). */
  readonly retry?: RetrySettings;
  readonly timeoutMs?: number;
  readonly scheduleToCloseTimeoutMs?: number;
  readonly heartbeatTimeoutMs?: number;
  /** The task that undoes this one, when it has one. */
  readonly revert?: TaskDefinition<never, unknown>;
  /** How many of its attempts may run at once (worker/task-limits.ts), when limited. */
  readonly limit?: TaskLimit;
  /** The queue its attempts are claimed through, when it names one. */
  readonly queue?: TaskQueue;
  /**
   * The same task with other run options, for one call:
   * `await this.execute(charge.with({ retry: { attempts: 5 } }), input)`. Retry fields
   * given replace the task's own one by one; timeouts given replace its timeouts.
   */
  with(options: TaskRunOptions): TaskDefinition<I, O>;
}

function checkTimeout(value: number | undefined, field: string, where: string): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 0 || value > MAX_DURATION_MS) {
    throw new ValidationError(`${field} must be whole milliseconds, 0 to 1000 days`, where);
  }
}

function runOptions(
  options: TaskRunOptions,
  where: string,
  base: Pick<
    TaskDefinition,
    'retry' | 'timeoutMs' | 'scheduleToCloseTimeoutMs' | 'heartbeatTimeoutMs'
  > = {},
): Pick<TaskDefinition, 'retry' | 'timeoutMs' | 'scheduleToCloseTimeoutMs' | 'heartbeatTimeoutMs'> {
  checkTimeout(options.timeoutMs, 'timeoutMs', where);
  checkTimeout(options.scheduleToCloseTimeoutMs, 'scheduleToCloseTimeoutMs', where);
  checkTimeout(options.heartbeatTimeoutMs, 'heartbeatTimeoutMs', where);
  const retry =
    options.retry === undefined
      ? base.retry
      : checkRetryOptions({ ...base.retry, ...options.retry }, where);
  const timeoutMs = options.timeoutMs ?? base.timeoutMs;
  const scheduleToClose = options.scheduleToCloseTimeoutMs ?? base.scheduleToCloseTimeoutMs;
  const heartbeat = options.heartbeatTimeoutMs ?? base.heartbeatTimeoutMs;
  return {
    ...(retry !== undefined && { retry }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(scheduleToClose !== undefined && { scheduleToCloseTimeoutMs: scheduleToClose }),
    ...(heartbeat !== undefined && { heartbeatTimeoutMs: heartbeat }),
  };
}

function taskDefinition<I, O>(
  name: string,
  run: (input: I, context?: TaskContext) => Promise<O>,
  options: ReturnType<typeof runOptions>,
  revert: TaskDefinition<never, unknown> | undefined,
  limit: TaskLimit | undefined,
  queue?: TaskQueue,
): TaskDefinition<I, O> {
  return {
    kind: 'task',
    name,
    run,
    ...options,
    ...(revert ? { revert } : {}),
    ...(limit ? { limit } : {}),
    ...(queue ? { queue } : {}),
    with(override: TaskRunOptions): TaskDefinition<I, O> {
      const changed = runOptions(override, `task ${name}`, options);
      return taskDefinition(name, run, changed, revert, limit, queue);
    },
  };
}

/** How many attempts of a task may run at once (worker/task-limits.ts). */
export interface TaskLimit {
  /** Across every worker, enforced by the store. */
  concurrency?: number;
  /** In one worker process. */
  workerConcurrency?: number;
}

/** A task's `concurrency` and `workerConcurrency`, checked; undefined when it gives neither. */
export function checkTaskLimit(options: TaskLimit, name: string): TaskLimit | undefined {
  const limit: TaskLimit = {};
  for (const field of ['concurrency', 'workerConcurrency'] as const) {
    const value = options[field];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1 || value > 1_000_000) {
      throw new ValidationError(
        `${field} ${JSON.stringify(value)} is not a whole number from 1 to 1000000`,
        `task ${name}`,
      );
    }
    limit[field] = value;
  }
  return Object.keys(limit).length > 0 ? limit : undefined;
}

/** Defines a task. Its input and output must be plain JSON. */
export function defineTask<I = undefined, O = unknown>(
  name: string,
  run: (input: I, context: TaskContext) => O,
  options: TaskOptions<I> = {},
): TaskDefinition<I, Awaited<O>> {
  if (!name) throw new ValidationError('a task needs a name', 'defineTask');
  const wrapped = async (input: I, context?: TaskContext): Promise<Awaited<O>> =>
    await run(input, context as TaskContext);
  const limit = checkTaskLimit(options, name);
  const queue =
    options.queue === undefined
      ? undefined
      : checkTaskQueue(options.queue as TaskQueueOption<never>, name);
  if (queue && limit?.concurrency !== undefined) {
    throw new ValidationError(
      `a task in queue ${queue.name} takes its concurrency from the queue: give the queue a concurrency instead of the task`,
      `task ${name}`,
    );
  }
  return taskDefinition(
    name,
    wrapped,
    runOptions(options, `task ${name}`),
    options.revert,
    limit,
    queue,
  );
}

/** A code-first workflow: `A` are the arguments of `handle`, `O` its result. */
export interface WorkflowDefinition<A extends unknown[] = unknown[], O = unknown> {
  readonly kind: 'workflow';
  readonly name: string;
  /** Makes a fresh workflow object (its constructor or its object's fields). */
  readonly create: () => Workflow;
  /**
   * `revert`: when `handle()` throws (a task failure it does not catch included), the
   * tasks that finished and have a revert are reverted, newest first, and the instance
   * ends REVERTED (FAILURE when a revert failed). Absent: it fails at once.
   */
  readonly onFailure?: 'revert';
  /** The job execution timeout of its instances, in ms (see {@link WorkflowOptions}). */
  readonly timeoutMs?: number;
  /** The queue its instances wait in for a slot (see {@link WorkflowOptions}). */
  readonly queue?: StoredQueueOption;
  /** How long its finished instances are kept, per end state (see {@link WorkflowOptions}). */
  readonly retention?: RetentionPolicy;
  /** Type carrier only; never set. */
  readonly signature?: { call(...input: A): O };
}

/** The methods a workflow may have. Only `handle` is required. */
export interface WorkflowMethods {
  handle(...input: never[]): unknown;
}

type HandleArgs<T> = T extends { handle(...input: infer A): unknown } ? A : never;
type HandleOutput<T> = T extends { handle(...input: never[]): infer R } ? Awaited<R> : never;

function classFactory(name: string, workflow: new () => Workflow): () => Workflow {
  if (!(workflow.prototype instanceof Workflow)) {
    throw new ValidationError(`workflow class ${workflow.name} must extend Workflow`, name);
  }
  return () => new workflow();
}

function objectFactory(name: string, workflow: object): () => Workflow {
  const { properties, ...rest } = Object.getOwnPropertyDescriptors(workflow);
  const fields = properties && 'value' in properties ? properties.value : {};
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    throw new ValidationError('properties must be an object', `${name}.properties`);
  }
  const descriptors = { ...rest, ...Object.getOwnPropertyDescriptors(fields) };
  for (const [key, d] of Object.entries(descriptors)) {
    if ('value' in d && typeof d.value !== 'function') toJson(d.value, `${name}.${key}`);
  }
  return () => {
    const target = new Workflow();
    for (const [key, d] of Object.entries(descriptors)) {
      const data = 'value' in d && typeof d.value !== 'function';
      Object.defineProperty(target, key, data ? { ...d, value: structuredClone(d.value) } : d);
    }
    return target;
  };
}

/**
 * The queue a code-first workflow's instances wait in for a slot before their first
 * decision (a declared queue: `defineQueue`, `weft queue create`).
 */
export interface WorkflowQueueOption<A extends unknown[] = unknown[]> {
  /** The queue's name. */
  name: string;
  /** Their key for the queue's per-key limits: a string, or made from their arguments. */
  key?: string | ((...input: A) => string);
  /** Their priority, lower first (default 0). */
  priority?: number;
}

/** A {@link WorkflowQueueOption} as a definition keeps it, whatever its arguments. */
export interface StoredQueueOption {
  name: string;
  key?: string | ((...input: never) => string);
  priority?: number;
}

/** Options of a code-first workflow. */
export interface WorkflowOptions<A extends unknown[] = unknown[]> {
  /** `revert` to revert finished tasks when the instance fails (default `fail`). */
  onFailure?: 'fail' | 'revert';
  /**
   * How long an instance may run, in ms from its start (wall-clock, time paused
   * included): one still running then ends FAILURE with a JobTimeoutError, the works it
   * was waiting for recorded failed, its child workflows ended with it; no revert runs.
   * `Client.start(…, { timeoutMs })` overrides it. Default: no limit.
   */
  timeoutMs?: number;
  /**
   * The queue its instances wait in for a slot before their first decision, whether a
   * parent's `execute`/`dispatch` or a `Client.start` given this definition starts them
   * (a start's own `queue` wins; see {@link withQueue} for one call's).
   */
  queue?: WorkflowQueueOption<A>;
  /**
   * How long the store keeps its finished instances (with everything they wrote) before
   * a worker prunes them: `'30d'`, ms, `'forever'`, or per end state
   * (`{ succeeded: '7d', failed: '30d' }`; a state left out gets the worker's
   * `retention`). A worker that has this definition stores it when it starts. Default:
   * the worker's `retention`.
   */
  retention?: RetentionOption;
}

/** Defines a workflow from a class extending {@link Workflow}. */
export function defineWorkflow<C extends new () => Workflow & WorkflowMethods>(
  name: string,
  workflow: C,
  options?: WorkflowOptions<HandleArgs<InstanceType<C>>>,
): WorkflowDefinition<HandleArgs<InstanceType<C>>, HandleOutput<InstanceType<C>>>;
/**
 * Defines a workflow from an object: `properties` holds its initial properties (they
 * become fields of `this`), the other members are its methods; `this` has the API.
 */
export function defineWorkflow<
  P extends object = Record<never, never>,
  M extends WorkflowMethods = WorkflowMethods,
>(
  name: string,
  workflow: { properties?: P } & M & ThisType<P & M & Workflow>,
  options?: WorkflowOptions<HandleArgs<M>>,
): WorkflowDefinition<HandleArgs<M>, HandleOutput<M>>;
export function defineWorkflow(
  name: string,
  workflow: (new () => Workflow) | object,
  options: WorkflowOptions = {},
): WorkflowDefinition<unknown[], unknown> {
  if (!name) throw new ValidationError('a workflow needs a name', 'defineWorkflow');
  const create =
    typeof workflow === 'function'
      ? classFactory(name, workflow as new () => Workflow)
      : objectFactory(name, workflow);
  if (options.timeoutMs !== undefined && !isTimeoutMs(options.timeoutMs)) {
    throw new ValidationError(
      `timeoutMs ${JSON.stringify(options.timeoutMs)} is not a whole number of ms from 1 to 1000 days`,
      name,
    );
  }
  const probe = create() as unknown as Record<string, unknown>;
  if (typeof probe.handle !== 'function') {
    throw new ValidationError('a workflow needs a handle() method', name);
  }
  return {
    kind: 'workflow',
    name,
    create,
    ...(options.onFailure === 'revert' ? { onFailure: 'revert' as const } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.queue !== undefined ? { queue: checkQueueOption(options.queue, name) } : {}),
    ...(options.retention !== undefined
      ? { retention: checkRetention(options.retention, `${name}: retention`) }
      : {}),
  };
}

function checkQueueOption<A extends unknown[]>(
  queue: WorkflowQueueOption<A>,
  where: string,
): StoredQueueOption {
  if (typeof queue?.name !== 'string' || queue.name === '') {
    throw new ValidationError('queue.name must name a queue', where);
  }
  if (queue.key !== undefined && typeof queue.key !== 'string' && typeof queue.key !== 'function') {
    throw new ValidationError('queue.key must be a string or a function of the arguments', where);
  }
  if (
    queue.priority !== undefined &&
    (!Number.isInteger(queue.priority) || Math.abs(queue.priority) > 1_000_000)
  ) {
    throw new ValidationError(
      `queue.priority ${JSON.stringify(queue.priority)} is not a whole number from -1000000 to 1000000`,
      where,
    );
  }
  return { ...queue } as StoredQueueOption;
}

/**
 * `workflow` with its instances waiting in `queue` — for one `execute`/`dispatch` of
 * it, or one `Client.start` — over the queue its definition names, if any.
 */
export function withQueue<A extends unknown[], O>(
  workflow: WorkflowDefinition<A, O>,
  queue: WorkflowQueueOption<A>,
): WorkflowDefinition<A, O> {
  return Object.freeze({ ...workflow, queue: checkQueueOption(queue, workflow.name) });
}

/** Where an instance of `workflow` started with `input` waits, by its definition's queue. */
export function queuePlacement(
  workflow: Pick<WorkflowDefinition<never[], unknown>, 'name' | 'queue'>,
  input: readonly unknown[],
): { queue: string; key?: string; priority?: number } | undefined {
  const queue = workflow.queue;
  if (!queue) return undefined;
  const keyOf = queue.key as string | ((...args: readonly unknown[]) => unknown) | undefined;
  const key = typeof keyOf === 'function' ? keyOf(...input) : keyOf;
  if (key !== undefined && (typeof key !== 'string' || key.length > 200)) {
    throw new ValidationError(
      `queue.key gave ${JSON.stringify(key)}, not a string of at most 200 characters`,
      workflow.name,
    );
  }
  return {
    queue: queue.name,
    ...(key !== undefined && { key }),
    ...(queue.priority !== undefined && { priority: queue.priority }),
  };
}

/** A task or a workflow: something `execute` and `dispatch` accept. */
export type AnyWork = TaskDefinition<never, unknown> | WorkflowDefinition<never[], unknown>;

/** The arguments that follow a work in `execute(work, ...args)`. */
export type WorkArgs<W> =
  W extends TaskDefinition<infer I, unknown>
    ? undefined extends I
      ? [input?: I]
      : [input: I]
    : W extends WorkflowDefinition<infer A, unknown>
      ? A
      : never;

/** What a work returns. */
export type WorkOutput<W> =
  W extends TaskDefinition<never, infer O>
    ? O
    : W extends WorkflowDefinition<never[], infer O>
      ? O
      : never;

/** One call of a parallel `execute`: the work then its arguments. */
export type WorkCall<W> = readonly [W, ...WorkArgs<W>];

/** The calls of a parallel `execute`, one per work. */
export type WorkCalls<T extends readonly unknown[]> = { [K in keyof T]: WorkCall<T[K]> };

/** The outputs of a parallel `execute`, in argument order. */
export type WorkOutputs<T extends readonly unknown[]> = {
  -readonly [K in keyof T]: WorkOutput<T[K]>;
};
