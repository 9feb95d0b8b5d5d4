/**
 * The base of every code-first workflow: the operations its methods call on `this`.
 * They only work while a decision runs the workflow; they record what they do in the
 * instance history and, on replay, return what was recorded. A call that must wait for
 * something not yet done stops the branch there (its promise never settles); the branch
 * runs again from the top when that work completes.
 *
 * Workflow code must be deterministic: no I/O, no timers, no `Date.now()` or
 * `Math.random()` — use `this.date()`, `this.random()`, `this.uuid()`.
 */
import { InvalidStateError } from '../core/errors.js';
import type { Json } from '../store/records.js';
import type { BranchRun } from './branch-run.js';
import type { WorkRequest } from './decision-session.js';
import {
  type AnyWork,
  queuePlacement,
  type WorkArgs,
  type WorkCalls,
  type WorkOutput,
  type WorkOutputs,
} from './definitions.js';
import { toJson } from './stable-json.js';

let attach: (workflow: Workflow, run: BranchRun | null) => void = () => {};

/** Binds a workflow object to the branch run that executes it (executer only). */
export function attachBranchRun(workflow: Workflow, run: BranchRun | null): void {
  attach(workflow, run);
}

/** What `onStart`, `onSuccess`, `onFailure` and `onTimeout` receive about their work. */
export interface WorkInfo {
  type: 'task' | 'workflow' | 'wait';
  /** The task or child workflow name (`wait` for waits). */
  name: string;
  input: Json;
  uuid: string;
}

/** Options of {@link Workflow.waitForEvent}. */
export interface WaitForEventOptions {
  /** Give up after this long: the wait then returns null. */
  timeoutMs: number;
}

function toWork(call: readonly unknown[], position: string, sync: boolean): WorkRequest {
  const work = call[0] as AnyWork | undefined;
  if (!work || (work.kind !== 'task' && work.kind !== 'workflow')) {
    throw new InvalidStateError('workflow', 'execute', 'not a task or workflow definition');
  }
  if (work.kind === 'task') {
    return {
      type: 'task',
      name: work.name,
      input: toJson(call[1] ?? null, `input of task ${work.name}`),
      position,
      sync,
      ...(work.timeoutMs !== undefined ? { timeoutMs: work.timeoutMs } : {}),
      ...(work.scheduleToCloseTimeoutMs !== undefined
        ? { scheduleToCloseMs: work.scheduleToCloseTimeoutMs }
        : {}),
      ...(work.heartbeatTimeoutMs !== undefined
        ? { heartbeatTimeoutMs: work.heartbeatTimeoutMs }
        : {}),
      ...(work.retry !== undefined ? { retry: work.retry as Json } : {}),
      ...(work.revert ? { revert: work.revert.name } : {}),
    };
  }
  const args = toJson(call.slice(1), `input of workflow ${work.name}`);
  const queue = queuePlacement(work, call.slice(1));
  return {
    type: 'workflow',
    name: work.name,
    input: args,
    position,
    sync,
    ...(queue && { queue }),
  };
}

function calls(args: readonly unknown[]): { parallel: boolean; list: (readonly unknown[])[] } {
  if (Array.isArray(args[0])) return { parallel: true, list: args as (readonly unknown[])[] };
  return { parallel: false, list: [args] };
}

/** Extend this class (or pass an object to `defineWorkflow`) to write a workflow. */
export class Workflow {
  #run: BranchRun | null = null;

  static {
    attach = (workflow, run) => {
      workflow.#run = run;
    };
  }

  #active(operation: string): BranchRun {
    if (!this.#run) {
      throw new InvalidStateError('workflow', 'not running in a decision', operation);
    }
    return this.#run;
  }

  /** This instance's id. */
  get instanceId(): string {
    return this.#active('instanceId').instanceId;
  }

  /** Runs one work and waits for its output (a failure throws `TaskFailedError`). */
  execute<W extends AnyWork>(work: W, ...input: WorkArgs<W>): Promise<WorkOutput<W>>;
  /** Runs works in parallel; resolves with their outputs in argument order once all succeed. */
  execute<const T extends readonly AnyWork[]>(...calls: WorkCalls<T>): Promise<WorkOutputs<T>>;
  async execute(...args: unknown[]): Promise<unknown> {
    const run = this.#active('execute');
    const { parallel, list } = calls(args);
    const n = run.nextPosition();
    const works = list.map((c, k) => toWork(c, parallel ? `${n}.${k}` : `${n}`, true));
    const outputs = await run.wait(works);
    return parallel ? outputs : outputs[0];
  }

  /** Schedules one work without waiting for it. */
  dispatch<W extends AnyWork>(work: W, ...input: WorkArgs<W>): Promise<void>;
  /** Schedules several works without waiting for them. */
  dispatch<const T extends readonly AnyWork[]>(...calls: WorkCalls<T>): Promise<void>;
  async dispatch(...args: unknown[]): Promise<void> {
    const run = this.#active('dispatch');
    const { parallel, list } = calls(args);
    const n = run.nextPosition();
    await run.fire(list.map((c, k) => toWork(c, parallel ? `${n}.${k}` : `${n}`, false)));
  }

  /** Waits for an event sent to this instance; resolves with its data. */
  waitForEvent<T = Json>(name: string): Promise<T>;
  /** Waits for an event at most `timeoutMs`; resolves with its data, or null on timeout. */
  waitForEvent<T = Json>(name: string, options: WaitForEventOptions): Promise<T | null>;
  async waitForEvent(name: string, options?: WaitForEventOptions): Promise<unknown> {
    const run = this.#active('waitForEvent');
    const input: Json = options ? { event: name, durationMs: options.timeoutMs } : { event: name };
    const position = `${run.nextPosition()}`;
    const [output] = await run.wait([{ type: 'wait', name: 'wait', input, position, sync: true }]);
    return output ?? null;
  }

  /** Waits for a duration, counted from the decision that reaches this line first. */
  async waitFor(durationMs: number): Promise<void> {
    const run = this.#active('waitFor');
    const position = `${run.nextPosition()}`;
    const input = { durationMs: toJson(durationMs, 'waitFor duration') };
    await run.wait([{ type: 'wait', name: 'wait', input, position, sync: true }]);
  }

  /** Waits until a date (a Date or epoch ms). */
  async waitUntil(date: Date | number): Promise<void> {
    const run = this.#active('waitUntil');
    const position = `${run.nextPosition()}`;
    const until = toJson(typeof date === 'number' ? date : date.getTime(), 'waitUntil date');
    await run.wait([{ type: 'wait', name: 'wait', input: { until }, position, sync: true }]);
  }

  /** Sends an event to this instance. */
  async send(name: string, data?: unknown): Promise<void> {
    await this.#send(null, name, data);
  }

  /** Sends an event to another instance. */
  async sendTo(instanceId: string, name: string, data?: unknown): Promise<void> {
    await this.#send(instanceId, name, data);
  }

  async #send(to: string | null, name: string, data: unknown): Promise<void> {
    const run = this.#active('send');
    const position = `${run.nextPosition()}`;
    const input: Json = { to, data: toJson(data ?? null, `data of event ${name}`) };
    await run.fire([{ type: 'event', name, input, position, sync: false }]);
  }

  /** The current time, recorded the first time so replay sees the same date. */
  date(): Date {
    return new Date(this.#active('date').value('date') as number);
  }

  /** A random number in [0, 1), recorded. */
  random(): number {
    return this.#active('random').value('random') as number;
  }

  /** A random id, recorded. */
  uuid(): string {
    return this.#active('uuid').value('uuid') as string;
  }

  /**
   * A version marker: true when this code path runs for the first time with the marker
   * in the code, false when replaying history recorded before it existed. Branch on it
   * to change code under running instances safely.
   */
  version(id: string): boolean {
    return this.#active('version').version(id);
  }
}
