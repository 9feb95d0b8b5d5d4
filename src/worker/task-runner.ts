/**
 * Runs task handlers. It claims task messages from the streams it has handlers for, up
 * to its concurrency, runs each handler with a timeout, an abort signal and a lease
 * heartbeat, and commits results in groups: every result finished while the previous
 * commit was in flight goes into the next transaction, each one acking its task message
 * and running the engine's Leg2 for it (chain of custody).
 */
import type { Clock } from '../core/clock.js';
import { LeaseLostError, TimeoutError, toErrorRecord } from '../core/errors.js';
import { signalKey } from '../engine/activities/hook.js';
import { type TaskMessage, type TaskResponse, taskStream } from '../engine/messages.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { StoreTx, StreamMessage } from '../store/store.js';
import type { ProcessorSettings } from './stream-processor.js';
import type { TaskHandlers } from './task-handler.js';

/** Runs the engine's Leg2 for a response. */
export type Responder = (tx: StoreTx, response: TaskResponse) => Promise<unknown>;

interface Completion {
  message: StreamMessage;
  response: TaskResponse;
}

function toJson(value: unknown): Json {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as Json;
}

/** Runs handlers for one worker. */
export class TaskRunner {
  private readonly running = new Map<string, AbortController>();
  /** Lease heartbeats, by message id: they run until the result is committed, not only while the handler runs. */
  private readonly heartbeats = new Map<string, ReturnType<typeof setInterval>>();
  private completions: Completion[] = [];
  private flushing: Promise<void> | undefined;
  private readonly streams: string[];
  private next = 0;
  private readonly idle: (() => void)[] = [];

  constructor(
    private readonly settings: ProcessorSettings,
    private readonly handlers: TaskHandlers,
    private readonly respond: Responder,
    private readonly concurrency: number,
    private readonly clock: Clock,
    private readonly onFree: () => void,
    /** Told of claimed messages before their handlers run (code-first works report onStart). */
    private readonly onStarted?: (messages: readonly StreamMessage[]) => Promise<void>,
  ) {
    this.streams = Object.keys(handlers).map(taskStream);
  }

  /** The task streams this runner claims from. */
  get taskStreams(): readonly string[] {
    return this.streams;
  }

  /** Handlers running now. */
  get busy(): number {
    return this.running.size;
  }

  /** Claims as much work as there is room for; returns how many it started. */
  async fill(): Promise<number> {
    let started = 0;
    for (let tried = 0; tried < this.streams.length; tried++) {
      const room = this.concurrency - this.running.size;
      if (room <= 0) break;
      const stream = this.streams[this.next++ % this.streams.length] as string;
      const messages = await this.settings.store.claim(stream, {
        consumer: this.settings.consumer,
        max: room,
        leaseMs: this.settings.leaseMs,
        maxDeliveries: this.settings.maxDeliveries,
      });
      if (this.onStarted && messages.length > 0) await this.onStarted(messages);
      for (const message of messages) {
        const controller = new AbortController();
        this.running.set(message.id, controller);
        void this.run(message, controller);
        started++;
      }
    }
    return started;
  }

  private async run(message: StreamMessage, controller: AbortController): Promise<void> {
    const task = message.payload as unknown as TaskMessage;
    const handler = this.handlers[task.task];
    const base = {
      job: task.job,
      a: task.a,
      d: task.d,
      attempt: task.attempt,
      ...(task.model ? { model: task.model } : {}),
    };
    let leaseLost = false;
    const heartbeat = setInterval(
      () => {
        this.settings.store
          .extendLease(message.stream, [message.id], this.settings.consumer, this.settings.leaseMs)
          .then((held) => {
            if (held.length === 0) {
              leaseLost = true;
              controller.abort(
                new LeaseLostError(message.stream, message.id, this.settings.consumer),
              );
            }
          })
          .catch(() => {});
      },
      Math.max(50, this.settings.leaseMs / 3),
    );
    heartbeat.unref?.();
    this.heartbeats.set(message.id, heartbeat);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let response: TaskResponse;
    try {
      if (!handler) throw new Error(`no handler for task ${task.task}`);
      const timeout = new Promise<never>((_, reject) => {
        if (task.timeoutMs === undefined) return;
        timer = setTimeout(() => {
          const error = new TimeoutError(
            `task ${task.task} attempt ${task.attempt} timed out after ${task.timeoutMs} ms`,
          );
          controller.abort(error);
          reject(error);
        }, task.timeoutMs);
      });
      const aborted = new Promise<never>((_, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
          once: true,
        });
      });
      const output = await Promise.race([
        Promise.resolve(
          handler(task.input, {
            idempotencyKey: `${task.job}:${task.a}:${task.d}:${task.attempt}`,
            job: task.job,
            activity: task.a,
            dimension: task.d,
            attempt: task.attempt,
            signal: controller.signal,
            progress: (value) => this.progress(base, value),
            sendSignal: async (name, data = null, job = task.job) => {
              await this.settings.store.deliverSignal(signalKey(job, name), data);
            },
          }),
        ),
        timeout,
        aborted,
      ]);
      response = { ...base, status: 'success', output: toJson(output) };
    } catch (error) {
      response = {
        ...base,
        status: 'error',
        error: toErrorRecord(error) as ErrorRecord,
        ...(error instanceof TimeoutError ? { timedOut: true } : {}),
      };
    } finally {
      if (timer) clearTimeout(timer);
    }
    if (leaseLost) {
      this.finish(message.id);
      return;
    }
    if (controller.signal.reason instanceof ShutdownAbort) {
      // Give the work back at once, so another worker runs it without waiting for the lease.
      await this.settings.store
        .release(message.stream, message.id, this.settings.consumer)
        .catch(() => {});
      this.finish(message.id);
      return;
    }
    this.completions.push({ message, response });
    this.kickFlush();
  }

  private async progress(base: Omit<TaskResponse, 'status'>, value: Json): Promise<void> {
    await this.settings.store.transaction((tx) =>
      this.respond(tx, { ...base, status: 'pending', output: toJson(value) }),
    );
  }

  private kickFlush(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      while (this.completions.length > 0) {
        const batch = this.completions;
        this.completions = [];
        await this.commit(batch);
        for (const c of batch) this.finish(c.message.id);
      }
      this.flushing = undefined;
    })();
  }

  private async commit(batch: Completion[]): Promise<void> {
    const { store } = this.settings;
    const one = async (tx: StoreTx, c: Completion) => {
      if (!(await tx.ack(c.message.stream, c.message.id, this.settings.consumer))) {
        throw new LeaseLostError(c.message.stream, c.message.id, this.settings.consumer);
      }
      await this.respond(tx, c.response);
    };
    try {
      await store.transaction(async (tx) => {
        for (const c of batch) await one(tx, c);
      });
      this.settings.onCommit?.(batch.map((c) => c.response.job));
      return;
    } catch (error) {
      if (batch.length === 1) return this.report(batch[0] as Completion, error);
    }
    for (const c of batch) {
      try {
        await store.transaction((tx) => one(tx, c));
        this.settings.onCommit?.([c.response.job]);
      } catch (error) {
        this.report(c, error);
      }
    }
  }

  private report(c: Completion, error: unknown): void {
    if (error instanceof LeaseLostError) return;
    this.settings.logger.error(
      `could not record the result of task message ${c.message.id}; it will be delivered again`,
      toErrorRecord(error) as ErrorRecord,
    );
  }

  private finish(id: string): void {
    clearInterval(this.heartbeats.get(id));
    this.heartbeats.delete(id);
    this.running.delete(id);
    this.onFree();
    if (this.running.size === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Waits until no handler runs, up to `graceMs`; then aborts the rest and gives their messages back. */
  async drain(graceMs: number, clock: Clock = this.clock): Promise<void> {
    if (this.running.size > 0) {
      const idle = new Promise<void>((resolve) => this.idle.push(resolve));
      const controller = new AbortController();
      await Promise.race([idle, clock.sleep(graceMs, controller.signal).catch(() => {})]);
      controller.abort();
    }
    if (this.running.size > 0) {
      const idle = new Promise<void>((resolve) => this.idle.push(resolve));
      for (const controller of this.running.values()) controller.abort(new ShutdownAbort());
      await idle;
    }
    await this.flushing;
  }
}

/** The abort reason when a worker shuts down before a handler finished. */
export class ShutdownAbort extends Error {
  constructor() {
    super('worker shutting down');
    this.name = 'ShutdownAbort';
  }
}
