/**
 * Runs task handlers. It claims task messages from the streams it has handlers for, up
 * to its concurrency, runs each handler with a timeout, an abort signal and a lease
 * heartbeat, and commits results in groups: every result finished while the previous
 * commit was in flight goes into the next transaction, each one acking its task message
 * and running the engine's Leg2 for it (chain of custody).
 *
 * Task messages can also be claimed as a follow-up inside the transaction that appended
 * them — the engine batch that entered a task, or the result commit whose Leg2 entered
 * the next one — so this worker runs them right after that commit, without a claim of
 * its own (a commit, and so a WAL sync, saved per task).
 *
 * A code-first work's start (`onStart` to its instance) is reported in the transaction
 * that claims it: the follow-up's, or the claim's own, never in one of its own.
 */
import type { Clock } from '../core/clock.js';
import {
  LeaseLostError,
  NotFoundError,
  TimeoutError,
  toErrorRecord,
  ValidationError,
} from '../core/errors.js';
import { type TaskMessage, type TaskResponse, taskStream } from '../engine/messages.js';
import { signalKey } from '../engine/signal-key.js';
import { idempotencyKey } from '../engine/task-context.js';
import { overriding } from '../store/overriding.js';
import type { ErrorRecord, Json, NewMessage } from '../store/records.js';
import type { ClaimOptions, StoreTx, StreamMessage } from '../store/store.js';
import { claimThroughQueue, type TaskQueuePlace } from '../store/task-queue-claim.js';
import { yieldIfDue } from '../store/yield-point.js';
import { AttemptWatch } from './attempt-watch.js';
import { bury, isOverdue } from './dead-letters.js';
import { resumeTakenOver } from './resumption.js';
import type { FollowUp, FollowUpSession, ProcessorSettings } from './stream-processor.js';
import { admitClaimed } from './suspended-claims.js';
import { closeAttempt, inAttempt, openAttempt } from './task-attempt-span.js';
import type { TaskHandlers } from './task-handler.js';
import { type TaskLimit, type TaskQueue, workerRoom } from './task-limits.js';
import { tracingOn } from './tracing.js';
import { logWarning, type WorkerLogger } from './worker-options.js';

/**
 * Records task responses inside a transaction, several at once (sorted by job). With
 * `hold`, the runner calls its {@link Settler} on the transaction before it commits, after
 * reporting the starts of the tasks it claimed in it: the model may keep writes until then.
 */
export type Responder = (
  tx: StoreTx,
  responses: readonly TaskResponse[],
  hold?: boolean,
) => Promise<unknown>;

/** Writes what a {@link Responder} called with `hold` kept, before the transaction commits. */
export type Settler = (tx: StoreTx) => Promise<void>;

/** Reports claimed task messages' starts inside the transaction that claims them. */
export type StartReporter = (tx: StoreTx, messages: readonly StreamMessage[]) => Promise<void>;

interface Completion {
  message: StreamMessage;
  response: TaskResponse;
}

function toJson(value: unknown): Json {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as Json;
}

/** The most wake-up times a runner keeps (later ones wait for the poll). */
const WAKE_TIMES = 256;
/** Wake-ups this close together are one. */
const WAKE_SLACK_MS = 5;
/** The longest a wake-up timer is set for (a longer wait is left to the poll). */
const MAX_WAKE_DELAY_MS = 3_600_000;

/** Runs handlers for one worker. */
export class TaskRunner {
  private readonly running = new Map<string, AbortController>();
  /** Lease heartbeats, by message id: they run until the result is committed, not only while the handler runs. */
  private readonly heartbeats = new Map<string, ReturnType<typeof setInterval>>();
  private completions: Completion[] = [];
  /** Result commits in flight, each its own transaction (at most `resultLanes`). */
  private readonly flushes = new Set<Promise<void>>();
  private readonly streams: string[];
  private next = 0;
  private readonly idle: (() => void)[] = [];
  /** Slots held for messages being claimed inside a transaction that has not committed yet. */
  private reserved = 0;
  /** Set when draining: no more follow-up claims. */
  private closed = false;
  /** Each limited task's limits, by its stream. */
  private readonly limits = new Map<string, TaskLimit>();
  /** Handlers running (or held for a follow-up) per limited stream. */
  private readonly perStream = new Map<string, number>();
  /** The queue each queued task's attempts are claimed through, by its stream. */
  private readonly queues = new Map<string, TaskQueuePlace>();
  /**
   * When to look for work again without waiting for the next poll (`idleMs`): a queue's
   * rate letting the next attempt through, a retry's backoff ending. Sorted, earliest
   * first, at most {@link WAKE_TIMES} of them (later ones are left to the poll).
   */
  private readonly wakeTimes: number[] = [];
  private wakeTimer: ReturnType<typeof setTimeout> | undefined;
  private wakeTimerAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly settings: ProcessorSettings,
    private readonly handlers: TaskHandlers,
    private readonly respond: Responder,
    private readonly concurrency: number,
    private readonly clock: Clock,
    /** Called when a handler's slot frees while the runner was full (work may be waiting). */
    private readonly onFree: () => void,
    /** Told of messages in the transaction that claims them (code-first works report onStart). */
    private readonly onStarted?: StartReporter,
    /** Limits of some tasks, by task name (task-limits.ts). */
    taskLimits: Readonly<Record<string, TaskLimit>> = {},
    /** The queues of some tasks, by task name. */
    taskQueues: Readonly<Record<string, TaskQueue>> = {},
    /** Writes what the responder kept when called with `hold` (see {@link Responder}). */
    private readonly settle?: Settler,
    /**
     * Most result commits in flight at once (default 1). While one commits, results that
     * finish go into the next; with more lanes, that next one starts at once on another
     * connection instead of waiting (a store with one writer gains nothing from more).
     */
    private readonly resultLanes = 1,
  ) {
    this.streams = Object.keys(handlers).map(taskStream);
    for (const [task, limit] of Object.entries(taskLimits)) {
      if (limit.concurrency !== undefined || limit.workerConcurrency !== undefined) {
        this.limits.set(taskStream(task), limit);
      }
    }
    for (const [task, queue] of Object.entries(taskQueues)) {
      if (taskLimits[task]?.concurrency !== undefined) {
        throw new ValidationError(
          `a task in queue ${queue.name} takes its concurrency from the queue: give the queue a concurrency instead of the task`,
          `task ${task}`,
        );
      }
      this.queues.set(taskStream(task), queuePlace(task, queue, this.settings.logger));
    }
  }

  /** Counts a handler of a limited stream in (1) or out (-1). */
  private count(stream: string, delta: number): void {
    if (this.limits.has(stream)) {
      this.perStream.set(stream, (this.perStream.get(stream) ?? 0) + delta);
    }
  }

  /** The task streams this runner claims from. */
  get taskStreams(): readonly string[] {
    return this.streams;
  }

  /** Handlers running now (and slots held for follow-up claims not yet committed). */
  get busy(): number {
    return this.running.size + this.reserved;
  }

  /**
   * A view of `tx` whose appends to this runner's task streams are made already claimed
   * by this worker (`NewMessage.claim`) while it has free room; they start when `tx`
   * commits. No claim statement, and no notice that would wake other workers for work
   * they could not take.
   */
  readonly followUp: FollowUp = (tx) => this.session(tx, 0);

  private session(
    tx: StoreTx,
    /** Slots that free up when this transaction commits (the results it records). */
    freeing: number,
  ): FollowUpSession {
    const picked: StreamMessage[] = [];
    /** Picked messages whose start is still to be reported. */
    const unreported: StreamMessage[] = [];
    let held = 0;
    /** The limited streams of the messages it picked, each counted in once. */
    const counted: string[] = [];
    /** When messages it appended for this runner that are not due yet become due. */
    const dueLater: number[] = [];
    let settled = false;
    const serves = new Set(this.streams);
    const append = async (messages: NewMessage[]): Promise<string[]> => {
      const consumer = this.settings.consumer;
      const leaseMs = this.settings.leaseMs;
      const due = this.clock.now();
      const marked = messages.map((m) => {
        const room = this.concurrency - this.running.size - this.reserved + freeing;
        if (settled || this.closed || !serves.has(m.stream) || m.claim) return m;
        // A retry waiting for its backoff is not taken early: whoever claims it, when due
        // (this runner looks again then, once the transaction has committed).
        if (m.availableAt !== undefined && m.availableAt > due) {
          dueLater.push(m.availableAt);
          return m;
        }
        if (room <= 0) return m;
        // A task limited across workers (or in a queue) is claimed only by a claim that
        // counts what is held.
        const limit = this.limits.get(m.stream);
        if (limit?.concurrency !== undefined || this.queues.has(m.stream)) return m;
        if (workerRoom(limit, this.perStream.get(m.stream) ?? 0) <= 0) return m;
        this.count(m.stream, 1);
        counted.push(m.stream);
        this.reserved++;
        held++;
        return { ...m, claim: { consumer, leaseMs } };
      });
      const ids = await tx.append(marked);
      const now = this.clock.now();
      marked.forEach((m, i) => {
        if (!m.claim || m === messages[i]) return;
        const message: StreamMessage = {
          id: ids[i] as string,
          stream: m.stream,
          payload: m.payload,
          job: m.job ?? null,
          deliveries: 1,
          consumer,
          leaseUntil: now + leaseMs,
          createdAt: now,
          availableAt: now + leaseMs,
        };
        picked.push(message);
        unreported.push(message);
      });
      return ids;
    };
    const report = this.onStarted;
    const view = overriding(tx, { append });
    return {
      tx: view,
      beforeCommit: async () => {
        // Reporting may schedule (and so pick up) more work: report until none is left.
        while (report && unreported.length > 0) await report(view, unreported.splice(0));
        // A responder's held writes (results whose rows waited for these starts).
        await this.settle?.(view);
      },
      committed: () => {
        if (settled) return;
        settled = true;
        this.reserved -= held;
        // Counted in when picked; launching counts them again.
        for (const stream of counted.splice(0)) this.count(stream, -1);
        for (const at of dueLater.splice(0)) this.wakeAt(at);
        this.launchAll(picked);
      },
      rolledBack: () => {
        if (settled) return;
        settled = true;
        this.reserved -= held;
        for (const stream of counted.splice(0)) this.count(stream, -1);
      },
    };
  }

  /** Starts handlers for messages claimed in a committed transaction. */
  private launchAll(messages: StreamMessage[]): void {
    if (messages.length === 0) return;
    if (this.closed) {
      // Stopping: give them back at once rather than letting their leases run out.
      for (const m of messages) {
        this.settings.store.release(m.stream, m.id, this.settings.consumer).catch(() => {});
      }
      return;
    }
    const controllers = messages.map((m) => {
      const controller = new AbortController();
      this.running.set(m.id, controller);
      this.count(m.stream, 1);
      return controller;
    });
    // Their starts were reported in the transaction that claimed them.
    messages.forEach((m, i) => {
      void this.run(m, controllers[i] as AbortController);
    });
  }

  /** Claims as much work as there is room for; returns how many it started. */
  async fill(): Promise<number> {
    let started = 0;
    for (let tried = 0; tried < this.streams.length; tried++) {
      const free = this.concurrency - this.running.size - this.reserved;
      if (free <= 0) break;
      const stream = this.streams[this.next++ % this.streams.length] as string;
      const room = Math.min(
        free,
        workerRoom(this.limits.get(stream), this.perStream.get(stream) ?? 0),
      );
      if (room <= 0) continue;
      // A limited stream's room is held while the claim runs: a follow-up picked meanwhile
      // (an engine batch entering the task) must not take it too.
      this.count(stream, room);
      let messages: StreamMessage[];
      try {
        messages = this.onStarted
          ? await this.claimStarting(this.onStarted, stream, room)
          : await this.claim(stream, room);
      } finally {
        this.count(stream, -room);
      }
      for (const message of messages) {
        const controller = new AbortController();
        this.running.set(message.id, controller);
        this.count(stream, 1);
        void this.run(message, controller);
        started++;
      }
    }
    return started;
  }

  /** Claims up to `max` messages of `stream`; those past maxDeliveries are dead-lettered (their jobs end). */
  private async claim(stream: string, max: number): Promise<StreamMessage[]> {
    const { store } = this.settings;
    let claimed: StreamMessage[] = [];
    const live = await store.transaction(async (tx) => {
      claimed = await this.claimIn(tx, stream, max);
      return this.admit(
        tx,
        claimed.filter((m) => !isOverdue(this.settings, m)),
      );
    });
    for (const m of claimed) if (isOverdue(this.settings, m)) await bury(this.settings, m);
    return live;
  }

  /**
   * Claims up to `max` messages of `stream` in `tx`: through the task's queue when it
   * names one (as far as the queue's limits leave room; a rate that holds an attempt
   * back sets a wake-up for when it lets it through), else as a plain claim.
   */
  private async claimIn(tx: StoreTx, stream: string, max: number): Promise<StreamMessage[]> {
    const place = this.queues.get(stream);
    if (!place) return tx.claim(stream, this.claimOptions(stream, max));
    const { consumer, leaseMs } = this.settings;
    const result = await claimThroughQueue(
      tx,
      stream,
      place,
      { consumer, leaseMs, max },
      this.clock.now(),
    );
    if (result.rateWaitUntil !== undefined) this.wakeAt(result.rateWaitUntil);
    return result.claimed;
  }

  /** Looks for work again at `at` (one wake-up for several times within a few ms). */
  private wakeAt(at: number): void {
    if (this.closed || this.wakeTimes.some((t) => Math.abs(t - at) <= WAKE_SLACK_MS)) return;
    const i = this.wakeTimes.findIndex((t) => t > at);
    this.wakeTimes.splice(i === -1 ? this.wakeTimes.length : i, 0, at);
    if (this.wakeTimes.length > WAKE_TIMES) this.wakeTimes.length = WAKE_TIMES;
    this.armWake();
  }

  /** Sets the timer for the earliest wake-up, when it is earlier than the one set. */
  private armWake(): void {
    const next = this.wakeTimes[0];
    if (this.closed || next === undefined || next >= this.wakeTimerAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeTimerAt = next;
    const delay = Math.min(MAX_WAKE_DELAY_MS, Math.max(0, next - this.clock.now()));
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.wakeTimerAt = Number.POSITIVE_INFINITY;
      // The times it was set for are past (or, on a clock that does not follow real time,
      // taken as past): drop them, so the timer always moves on.
      const past = Math.max(next, this.clock.now()) + WAKE_SLACK_MS;
      while ((this.wakeTimes[0] ?? Number.POSITIVE_INFINITY) <= past) this.wakeTimes.shift();
      this.onFree();
      this.armWake();
    }, delay);
    this.wakeTimer.unref?.();
  }

  /** A claim of up to `max`, within the task's limit across workers when it has one. */
  private claimOptions(stream: string, max: number): ClaimOptions {
    const { consumer, leaseMs } = this.settings;
    const maxHeld = this.limits.get(stream)?.concurrency;
    return { consumer, max, leaseMs, ...(maxHeld !== undefined && { maxHeld }) };
  }

  /**
   * In the claim's transaction: records the takeovers among the claimed messages (their
   * jobs resume, see resumption.ts) and parks those of suspended jobs; returns the rest.
   */
  private async admit(tx: StoreTx, claimed: StreamMessage[]): Promise<StreamMessage[]> {
    if (claimed.length === 0) return claimed;
    const now = this.clock.now();
    await resumeTakenOver(tx, claimed, this.settings.consumer, now);
    return admitClaimed(tx, claimed, this.settings.consumer, now);
  }

  /**
   * Claims as {@link claim} does and reports the starts in the claim's transaction. When
   * that fails, claims and reports in two transactions: a report that keeps failing then
   * leaves the messages held until their leases run out, so they are delivered again and
   * in the end dead-lettered, instead of being claimed in vain forever.
   */
  private async claimStarting(
    report: StartReporter,
    stream: string,
    max: number,
  ): Promise<StreamMessage[]> {
    const { store } = this.settings;
    let overdue: StreamMessage[] = [];
    let messages: StreamMessage[];
    try {
      messages = await store.transaction(async (tx) => {
        const claimed = await this.claimIn(tx, stream, max);
        overdue = claimed.filter((m) => isOverdue(this.settings, m));
        const live = await this.admit(
          tx,
          claimed.filter((m) => !isOverdue(this.settings, m)),
        );
        if (live.length > 0) await report(tx, live);
        return live;
      });
    } catch (error) {
      logWarning(
        this.settings.logger,
        `claiming tasks from ${stream} failed and was rolled back, so no work is lost (was the store restarted?); trying again, claiming first and recording the starts after`,
        toErrorRecord(error) as ErrorRecord,
        { stream },
      );
      messages = await this.claim(stream, max);
      if (messages.length > 0) await store.transaction((tx) => report(tx, messages));
      return messages;
    }
    for (const m of overdue) await bury(this.settings, m);
    return messages;
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
      ...(task.revert ? { revert: true as const } : {}),
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
    const startedAt = this.clock.now();
    const watch = new AttemptWatch(task, controller, startedAt);
    const attempt = tracingOn() ? await openAttempt(this.settings.store, task) : undefined;
    let response: TaskResponse;
    let thrown: unknown;
    try {
      const late = AttemptWatch.late(task, this.clock.now());
      if (late) throw late;
      if (!handler) throw new NotFoundError('task handler', task.task);
      const aborted = new Promise<never>((_, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
          once: true,
        });
      });
      const output = await Promise.race([
        inAttempt(attempt, () =>
          handler(task.input, {
            idempotencyKey: idempotencyKey(task),
            job: task.job,
            activity: task.a,
            dimension: task.d,
            attempt: task.attempt,
            signal: controller.signal,
            heartbeat: () => watch.heartbeat(),
            progress: (value) => this.progress(base, value),
            sendSignal: async (name, data = null, job = task.job) => {
              await this.settings.store.deliverSignal(signalKey(job, name), data);
            },
          }),
        ),
        watch.expired,
        aborted,
      ]);
      response = { ...base, status: 'success', output: toJson(output) };
    } catch (error) {
      thrown = error;
      response = {
        ...base,
        status: 'error',
        error: toErrorRecord(error) as ErrorRecord,
        ...(error instanceof TimeoutError ? { timedOut: true } : {}),
      };
    } finally {
      watch.stop();
    }
    this.settings.observer?.attemptEnded({
      task: task.task,
      attempt: task.attempt,
      outcome:
        leaseLost || controller.signal.reason instanceof ShutdownAbort
          ? 'released'
          : response.status === 'success'
            ? 'success'
            : response.timedOut
              ? 'timeout'
              : 'error',
      durationMs: this.clock.now() - startedAt,
    });
    closeAttempt(attempt, response, thrown);
    if (leaseLost) {
      this.finish(message);
      return;
    }
    if (controller.signal.reason instanceof ShutdownAbort) {
      // Give the work back at once, so another worker runs it without waiting for the lease.
      await this.settings.store
        .release(message.stream, message.id, this.settings.consumer)
        .catch(() => {});
      this.finish(message);
      return;
    }
    if (response.status === 'error') {
      logWarning(
        this.settings.logger,
        `task ${task.task} failed (job ${task.job}, activity ${task.a}, attempt ${task.attempt})`,
        response.error,
        {
          task: task.task,
          job: task.job,
          activity: task.a,
          ...(task.d ? { dimension: task.d } : {}),
          attempt: task.attempt,
        },
      );
    }
    this.completions.push({ message, response });
    this.kickFlush();
  }

  private async progress(base: Omit<TaskResponse, 'status'>, value: Json): Promise<void> {
    await this.settings.store.transaction((tx) =>
      this.respond(tx, [{ ...base, status: 'pending', output: toJson(value) }]),
    );
  }

  /**
   * Starts a result commit of every result waiting, when a lane is free; each lane, once
   * committed, takes what finished meanwhile.
   */
  private kickFlush(): void {
    if (this.flushes.size >= this.resultLanes || this.completions.length === 0) return;
    const lane: Promise<void> = (async () => {
      while (this.completions.length > 0) {
        // Handlers that finish at once keep this loop busy: a turn of the event loop now and then.
        await yieldIfDue();
        const batch = this.completions;
        this.completions = [];
        if (batch.length === 0) break;
        const next = await this.commit(batch);
        for (const c of batch) this.finish(c.message);
        next?.committed();
      }
    })().finally(() => {
      this.flushes.delete(lane);
      // A result that arrived as this lane ended.
      this.kickFlush();
    });
    this.flushes.add(lane);
  }

  /**
   * Commits a group of results in one transaction, which also claims the task messages
   * their Leg2s appended (returned, to start once the group's slots are free). Falls
   * back to one transaction per result when the group fails.
   */
  private async commit(batch: Completion[]): Promise<FollowUpSession | undefined> {
    const { store } = this.settings;
    const { consumer } = this.settings;
    const one = async (tx: StoreTx, c: Completion) => {
      if (!(await tx.ack(c.message.stream, c.message.id, consumer))) {
        throw new LeaseLostError(c.message.stream, c.message.id, consumer);
      }
      await this.respond(tx, [c.response]);
    };
    // The whole group: one ack statement per task stream, then every response at once.
    // The acks are issued, not awaited, before the responses' statements (a pipelining
    // store sends them together); a lost one fails the transaction before it commits.
    const all = async (tx: StoreTx) => {
      const byStream = new Map<string, string[]>();
      for (const c of batch) {
        const ids = byStream.get(c.message.stream) ?? [];
        ids.push(c.message.id);
        byStream.set(c.message.stream, ids);
      }
      const acks = [...byStream].map(async ([stream, ids]) => {
        const acked = await tx.ackMany(stream, ids, consumer);
        if (acked.length !== ids.length) {
          const lost = ids.find((id) => !acked.includes(id)) as string;
          throw new LeaseLostError(stream, lost, consumer);
        }
      });
      await Promise.all([
        ...acks,
        this.respond(
          tx,
          batch.map((c) => c.response),
          // Held until the session settles it, after the starts it claims are reported.
          this.settle !== undefined,
        ),
      ]);
    };
    // Lock jobs in the order engine batches do, so the two can't deadlock.
    batch.sort((x, y) => x.response.job.localeCompare(y.response.job));
    let claimed: FollowUpSession | undefined;
    try {
      await store.transaction(async (tx) => {
        claimed?.rolledBack();
        claimed = undefined;
        claimed = this.session(tx, batch.length);
        await all(claimed.tx);
        await claimed.beforeCommit();
      });
      this.settings.onCommit?.(batch.map((c) => c.response.job));
      return claimed;
    } catch (error) {
      claimed?.rolledBack();
      if (batch.length === 1) {
        await this.report(batch[0] as Completion, error);
        return undefined;
      }
    }
    for (const c of batch) {
      try {
        await store.transaction((tx) => one(tx, c));
        this.settings.onCommit?.([c.response.job]);
      } catch (error) {
        await this.report(c, error);
      }
    }
    return undefined;
  }

  /**
   * A result that could not be recorded: its message is given back with the error, to be
   * delivered again after a delay — or, at its `maxDeliveries`-th delivery, dead-lettered
   * and its job ended.
   */
  private async report(c: Completion, error: unknown): Promise<void> {
    if (error instanceof LeaseLostError) return;
    const record = toErrorRecord(error) as ErrorRecord;
    const { message } = c;
    const last = message.deliveries >= this.settings.maxDeliveries;
    this.settings.logger.error(
      `could not record the result of task message ${message.id}; ${last ? 'it is dead-lettered' : 'it will be delivered again'}`,
      record,
    );
    if (last) {
      await bury(this.settings, message, record);
      return;
    }
    const delay = Math.min(30_000, 100 * 2 ** Math.min(message.deliveries, 10));
    await this.settings.store
      .release(message.stream, message.id, this.settings.consumer, delay, record)
      .catch(() => {});
  }

  private finish({ id, stream }: Pick<StreamMessage, 'id' | 'stream'>): void {
    clearInterval(this.heartbeats.get(id));
    this.heartbeats.delete(id);
    // Only a runner that was full may have left work unclaimed: a free slot matters then.
    // So may a task limited per worker that was at its limit.
    // And a queued task's attempt frees a slot of its queue that a claim here may be
    // waiting for.
    const wasFull =
      this.running.size + this.reserved >= this.concurrency ||
      workerRoom(this.limits.get(stream), this.perStream.get(stream) ?? 0) === 0 ||
      this.queues.has(stream);
    if (this.running.delete(id)) this.count(stream, -1);
    if (wasFull) this.onFree();
    if (this.running.size === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Waits until no handler runs, up to `graceMs`; then aborts the rest and gives their messages back. */
  async drain(graceMs: number, clock: Clock = this.clock): Promise<void> {
    this.closed = true;
    clearTimeout(this.wakeTimer);
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
    while (this.flushes.size > 0) await Promise.all([...this.flushes]);
  }
}

/** The abort reason when a worker shuts down before a handler finished. */
export class ShutdownAbort extends Error {
  constructor() {
    super('worker shutting down');
    this.name = 'ShutdownAbort';
  }
}

/**
 * Where a queued task's attempts are claimed: its queue, and its key read from an
 * attempt's input by the task's `key` (a key that throws or is not a string or number is
 * `''`, with a warning: the attempt is not held back by it).
 */
function queuePlace(task: string, queue: TaskQueue, logger: WorkerLogger): TaskQueuePlace {
  const key = queue.key;
  if (!key) return { queue: queue.name };
  return {
    queue: queue.name,
    keyOf: async (payload) => {
      try {
        const value = await key((payload as { input?: unknown } | null)?.input);
        if (typeof value === 'string') return value;
        if (typeof value === 'number' && Number.isFinite(value)) return String(value);
        throw new TypeError(
          `the key is ${JSON.stringify(value) ?? String(value)}, not a string or number`,
        );
      } catch (error) {
        logWarning(
          logger,
          `task ${task}'s queue key failed for an attempt; it runs under the key '' in queue ${queue.name}`,
          toErrorRecord(error) as ErrorRecord,
          { task },
        );
        return '';
      }
    },
  };
}
