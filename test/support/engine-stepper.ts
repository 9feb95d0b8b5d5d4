/**
 * Runs a store's work one message at a time, in the test's own process and order: an
 * engine message if there is one, else one task message whose handler runs inline. Tests
 * read the collation key between steps, so every intermediate key is observable.
 */
import type { SimulatedClock } from '../../src/core/clock.js';
import { toErrorRecord } from '../../src/core/errors.js';
import { COLLATION_FIELD } from '../../src/engine/collation-field.js';
import { GraphEngine } from '../../src/engine/graph-engine.js';
import {
  ENGINE_STREAM,
  type EngineMessage,
  type TaskMessage,
  type TaskResponse,
  taskStream,
} from '../../src/engine/messages.js';
import { signalKey } from '../../src/engine/signal-key.js';
import { idempotencyKey } from '../../src/engine/task-context.js';
import type { ErrorRecord, Json } from '../../src/store/records.js';
import type { Store } from '../../src/store/store.js';
import type { TaskHandlers } from '../../src/worker/task-handler.js';

const CONSUMER = 'stepper';

/** Runs a task message's handler in this process and returns the engine's response. */
export async function runHandler(
  store: Store,
  handlers: TaskHandlers,
  task: TaskMessage,
): Promise<TaskResponse> {
  const base = {
    job: task.job,
    a: task.a,
    d: task.d,
    attempt: task.attempt,
    ...(task.revert ? { revert: true as const } : {}),
  };
  try {
    const handler = handlers[task.task];
    if (!handler) throw new Error(`no handler for ${task.task}`);
    const output = await handler(task.input, {
      idempotencyKey: idempotencyKey(task),
      job: task.job,
      activity: task.a,
      dimension: task.d,
      attempt: task.attempt,
      signal: new AbortController().signal,
      heartbeat: () => {},
      progress: async () => {},
      sendSignal: async (name, data = null, job = task.job) => {
        await store.deliverSignal(signalKey(job, name), data);
      },
    });
    return { ...base, status: 'success', output: (output ?? null) as Json };
  } catch (error) {
    return { ...base, status: 'error', error: toErrorRecord(error) as ErrorRecord };
  }
}

/** A deterministic, single-threaded driver of the graph engine. */
export class EngineStepper {
  readonly engine: GraphEngine;

  constructor(
    readonly store: Store,
    readonly handlers: TaskHandlers,
    readonly clock?: SimulatedClock,
  ) {
    this.engine = new GraphEngine(clock ? { clock } : {});
  }

  /** Runs one message; false when there was nothing to run. */
  async step(): Promise<boolean> {
    if (this.clock) await this.store.fireDueTimers(this.clock.now());
    const [engineMessage] = await this.store.claim(ENGINE_STREAM, {
      consumer: CONSUMER,
      leaseMs: 60_000,
    });
    if (engineMessage) {
      await this.store.transaction(async (tx) => {
        await this.engine.handle(tx, engineMessage.payload as unknown as EngineMessage);
        await tx.ack(ENGINE_STREAM, engineMessage.id, CONSUMER);
      });
      return true;
    }
    for (const name of Object.keys(this.handlers)) {
      const [message] = await this.store.claim(taskStream(name), {
        consumer: CONSUMER,
        leaseMs: 60_000,
      });
      if (!message) continue;
      const response = await runHandler(
        this.store,
        this.handlers,
        message.payload as unknown as TaskMessage,
      );
      await this.store.transaction(async (tx) => {
        await tx.ack(message.stream, message.id, CONSUMER);
        await this.engine.respond(tx, response);
      });
      return true;
    }
    return false;
  }

  /** Runs until nothing is left; calls `after` with the job's key after every step. */
  async runUntilIdle(
    job?: string,
    after?: (key: string) => void,
    limit = 100_000,
  ): Promise<number> {
    let steps = 0;
    while (steps < limit && (await this.step())) {
      steps++;
      if (job && after) after(await this.key(job));
    }
    return steps;
  }

  /** A job's collation key as 15+ digits. */
  async key(job: string): Promise<string> {
    const value = (await this.store.getCounter({ job, field: COLLATION_FIELD })) ?? 0n;
    return value.toString().padStart(15, '0');
  }
}
