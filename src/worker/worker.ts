/**
 * A worker process's engine room. It runs its loops against one store: engine steps
 * (claimed in batches from the engine streams), task handlers (claimed from the task
 * streams it has handlers for), timers (due wake-ups moved into their streams), due
 * schedules, queue admissions, and the retention sweep (finished jobs pruned). Idle
 * loops park until a store notice says there is work. Any number of workers, in any
 * number of processes, can share one store.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Clock, SystemClock } from '../core/clock.js';
import { StoreError, toErrorRecord } from '../core/errors.js';
import { KEEP_FOREVER, type RetentionPolicy } from '../core/retention.js';
import type { WorkflowDefinition } from '../durable/definitions.js';
import { DurableEngine } from '../durable/durable-engine.js';
import { settlingExpressions } from '../engine/expression-plan.js';
import { GraphEngine } from '../engine/graph-engine.js';
import type { TaskMessage } from '../engine/messages.js';
import { checkRetention } from '../graph/retention.js';
import { recordAttemptStarts } from '../models/attempt-starts.js';
import type { ModelRoute } from '../models/model-runtime.js';
import { Models } from '../models/models.js';
import { type CheckedQueue, declareQueue } from '../models/queue-spec.js';
import { type Firing, fireSchedule } from '../models/schedule-fire.js';
import { type CheckedSchedule, declareSchedule } from '../models/schedule-spec.js';
import { presenceWindowMs } from '../models/served-work.js';
import { retryingConflicts } from '../store/conflict-retry.js';
import { admitQueue } from '../store/queue-admission.js';
import { QUEUED_STREAM } from '../store/queue-rules.js';
import type { ErrorRecord } from '../store/records.js';
import type { Store, StoreTx, StreamMessage } from '../store/store.js';
import { nextTurn, yieldIfDue } from '../store/yield-point.js';
import { reportingCommits } from './commit-report.js';
import { endDeadLetteredJob } from './dead-letters.js';
import { logJobEnd } from './job-ends.js';
import {
  checkMetricsPort,
  type MetricsServer,
  startMetricsServer,
} from './metrics/metrics-server.js';
import { StoreSeries } from './metrics/store-series.js';
import { WeftMetrics } from './metrics/weft-metrics.js';
import { Presence } from './presence.js';
import { sweepRetention } from './retention-sweep.js';
import {
  type BatchHandler,
  type MessageHandler,
  type ProcessorSettings,
  processBatch,
} from './stream-processor.js';
import { checkTaskLimit, checkTaskQueue, type TaskLimit, type TaskQueue } from './task-limits.js';
import { TaskRunner } from './task-runner.js';
import { spanWorkDone } from './tracing.js';
import { tracingStore } from './tracing-store.js';
import { WakeUp } from './wake-up.js';
import {
  logWarning,
  resultLanesOf,
  stderrLogger,
  WORKER_DEFAULTS,
  type WorkerOptions,
} from './worker-options.js';

/** An engine stream and what runs its messages (one by one, or a batch at once). */
export interface EngineRoute {
  stream: string;
  handle: MessageHandler;
  handleBatch?: BatchHandler;
}

/** A model's engine stream as the stream processor runs it. */
function engineRoute(route: ModelRoute): EngineRoute {
  const handle: MessageHandler = (tx, message) => route.handle(tx, message.payload);
  if (!route.handleBatch) return { stream: route.stream, handle };
  const handleBatch: BatchHandler = async (tx, messages) => {
    await route.handleBatch?.(
      tx,
      messages.map((m) => m.payload),
    );
  };
  return { stream: route.stream, handle, handleBatch };
}

/** How often a worker deletes expired idempotency keys and closed debounce windows. */
const KEY_PRUNE_EVERY_MS = 60_000;

/** How long a closed debounce window is kept before a worker deletes it. */
const DEBOUNCE_KEEP_MS = 3_600_000;

/** Runs engine steps, task handlers and timers until stopped. */
export class Worker {
  readonly store: Store;
  readonly consumer: string;
  readonly graph: GraphEngine;
  readonly durable: DurableEngine;
  /** The runtime of each model, over {@link graph} and {@link durable}. */
  readonly models: Models;
  private readonly clock: Clock;
  private readonly settings: ProcessorSettings;
  private readonly tasks: TaskRunner;
  private readonly routes: EngineRoute[];
  private readonly idleMs: number;
  private readonly graceMs: number;
  private readonly concurrency: number;
  private readonly engineWake = new WakeUp();
  private readonly taskWake = new WakeUp();
  private readonly timerWake = new WakeUp();
  private readonly scheduleWake = new WakeUp();
  private readonly queueWake = new WakeUp();
  private readonly retentionWake = new WakeUp();
  /** The worker's default retention (`retention`), checked. */
  private readonly retention: RetentionPolicy;
  private nextRetentionWait = 250;
  /** Jobs pruned since the last log line about it, and when that was (clock ms). */
  private pruned = { jobs: 0, loggedAt: Number.NEGATIVE_INFINITY };
  private readonly workflowDefinitions: readonly WorkflowDefinition<never[], unknown>[];
  private readonly queues: readonly CheckedQueue[];
  private nextQueueWait = 250;
  private readonly schedules: readonly CheckedSchedule[];
  private readonly runSchedules: boolean;
  private nextScheduleWait = 250;
  private loops: Promise<void>[] = [];
  /** Engine streams with a notice (or more work) since they were last polled. */
  private readonly noticed = new Set<string>();
  /** When every engine stream was last polled, noticed or not (performance.now()). */
  private lastFullPoll = Number.NEGATIVE_INFINITY;
  private stopping = false;
  private started = false;
  private readonly giveUpMs: number;
  private readonly engineLanes: number;
  /** Why the worker gave up (a store that stayed unreachable), once it did. */
  private failure: Error | undefined;
  /** Holds the process open while the worker runs (its wake-up timers do not). */
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private readonly stoppedWaiters: (() => void)[] = [];
  private stopped = false;
  /** Its row in the store's workers, refreshed while it runs (presence.ts). */
  private readonly presence: Presence;
  /** Its counters and histograms, when it keeps them (`metrics`, `metricsPort`). */
  readonly metrics: WeftMetrics | undefined;
  private readonly metricsServing: { port: number; host?: string; store: boolean } | undefined;
  private metricsServer: MetricsServer | undefined;

  constructor(options: WorkerOptions) {
    this.store = options.store;
    this.clock = options.clock ?? new SystemClock();
    this.consumer =
      options.consumer ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const logger = options.logger ?? stderrLogger;
    this.metrics =
      options.metrics ??
      (options.metricsPort !== undefined ? new WeftMetrics({ processMetrics: true }) : undefined);
    if (options.metricsPort !== undefined) {
      checkMetricsPort(options.metricsPort);
      this.metricsServing = {
        port: options.metricsPort,
        ...(options.metricsHost !== undefined && { host: options.metricsHost }),
        store: options.metricsStore ?? false,
      };
    }
    const metrics = this.metrics;
    this.settings = {
      // Its transactions report what they did: the jobs they end, which the worker logs,
      // and all of it to its metrics (commit-report.ts). They also evaluate the expressions
      // their steps need that are not cheap outside themselves (expression-plan.ts). With an
      // OpenTelemetry SDK registered, they also record weft's spans (tracing-store.ts).
      store: tracingStore(
        settlingExpressions(
          reportingCommits(options.store, (report) => {
            for (const job of report.ended) logJobEnd(logger, job);
            metrics?.committed(report);
          }),
        ),
        () => this.clock.now(),
      ),
      observer: metrics,
      consumer: this.consumer,
      leaseMs: options.leaseMs ?? WORKER_DEFAULTS.leaseMs,
      batchSize: options.batchSize ?? WORKER_DEFAULTS.batchSize,
      maxDeliveries: options.maxDeliveries ?? WORKER_DEFAULTS.maxDeliveries,
      logger,
      onCommit: options.onCommit,
      // A dead-lettered message ends its job in FAILURE, in the same transaction.
      onDeadLetter: (tx, dead) => endDeadLetteredJob(tx, this.models, dead),
      now: () => this.clock.now(),
    };
    this.idleMs = options.idleMs ?? WORKER_DEFAULTS.idleMs;
    this.graceMs = options.graceMs ?? WORKER_DEFAULTS.graceMs;
    this.giveUpMs = options.giveUpMs ?? WORKER_DEFAULTS.giveUpMs;
    this.engineLanes = Math.max(1, Math.floor(options.engineLanes ?? WORKER_DEFAULTS.engineLanes));
    this.concurrency = options.concurrency ?? WORKER_DEFAULTS.concurrency;
    this.schedules = options.schedules ?? [];
    this.queues = options.queues ?? [];
    this.runSchedules = options.runSchedules ?? true;
    this.retention =
      options.retention === undefined
        ? KEEP_FOREVER
        : checkRetention(options.retention, 'worker retention');
    this.workflowDefinitions = options.workflows ?? [];
    // Their steps' history lines name this worker by its consumer id.
    this.graph = new GraphEngine({
      clock: this.clock,
      inlineSteps: options.inlineSteps ?? WORKER_DEFAULTS.inlineSteps,
      worker: this.consumer,
    });
    this.durable = new DurableEngine({
      clock: this.clock,
      workflows: options.workflows ?? [],
      worker: this.consumer,
    });
    this.models = new Models({ graph: this.graph, durable: this.durable });
    this.routes = this.models.all.flatMap((model) => model.routes.map(engineRoute));
    this.tasks = new TaskRunner(
      this.settings,
      {
        ...options.handlers,
        ...Object.fromEntries(
          // A task's revert task runs where the task does.
          (options.tasks ?? [])
            .flatMap((t) => (t.revert ? [t, t.revert] : [t]))
            .map((t) => [t.name, (input: unknown, context) => t.run(input as never, context)]),
        ),
      },
      // Each model's results as one group (the graph's set-based, in one unit).
      (tx, responses, hold) => this.models.taskResults(tx, responses, hold),
      this.concurrency,
      this.clock,
      () => this.taskWake.wake(),
      (tx, messages) => this.reportStarts(tx, messages),
      taskLimitsOf(options),
      taskQueuesOf(options),
      // Code-first results keep their rows for the starts claimed with them (one unit).
      (tx) => this.models.settle(tx),
      resultLanesOf(options),
    );
    this.presence = new Presence({
      store: this.store,
      id: this.consumer,
      serves: () => ({
        tasks: this.servedTasks,
        streams: this.routes.map((r) => r.stream),
        workflows: this.durable.workflowNames,
      }),
      windowMs: options.presenceWindowMs ?? presenceWindowMs(),
      clock: this.clock,
      logger,
      watch: true,
    });
  }

  /** The task names this worker has handlers for (code-first tasks and their reverts included). */
  get servedTasks(): string[] {
    return this.tasks.taskStreams.map((stream) => stream.slice('task:'.length));
  }

  /**
   * Models that follow their tasks (code-first works report onStart) are told of claims,
   * in the transaction that claims them: a sequential code-first task costs one commit.
   */
  private async reportStarts(tx: StoreTx, messages: readonly StreamMessage[]): Promise<void> {
    const tasks = messages.map((m) => m.payload as unknown as TaskMessage);
    // Every attempt's start is in its job's history, whichever model runs it.
    await recordAttemptStarts(tx, tasks, this.clock.now(), this.consumer);
    const told = this.models.toldOfStart(tasks);
    if (told.length === 0) return;
    await this.models.tasksStarted(tx, told);
  }

  /**
   * Starts the loops and returns; the worker then runs (and keeps the process alive)
   * until {@link stop}. See {@link run} to wait for that.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.keepAlive = setInterval(() => {}, 1 << 30);
    try {
      // A metrics port that cannot listen fails the start before anything is announced.
      await this.serveMetrics();
      await this.announceAndListen();
    } catch (error) {
      // The store was unreachable (or the metrics port taken): nothing runs, and start()
      // may be called again.
      clearInterval(this.keepAlive);
      await Promise.all([
        this.presence.stop(),
        this.metricsServer?.close(),
        this.engineWake.close(),
        this.taskWake.close(),
        this.queueWake.close(),
      ]).catch(() => {});
      this.metricsServer = undefined;
      this.started = false;
      throw error;
    }
    this.loops = [
      this.loop('engine', () => this.engineTurn(), this.engineWake),
      ...(this.tasks.taskStreams.length
        ? [this.loop('tasks', () => this.taskTurn(), this.taskWake)]
        : []),
      this.loop('timers', () => this.timerTurn(), this.timerWake),
      ...(this.runSchedules
        ? [this.loop('schedules', () => this.scheduleTurn(), this.scheduleWake)]
        : []),
      this.loop('queues', () => this.queueTurn(), this.queueWake),
      this.loop('retention', () => this.retentionTurn(), this.retentionWake),
    ];
  }

  /** Where its `/metrics` answers, once started with a `metricsPort` (undefined otherwise). */
  get metricsUrl(): string | undefined {
    return this.metricsServer?.url;
  }

  private async serveMetrics(): Promise<void> {
    if (!this.metricsServing || !this.metrics) return;
    const { port, host, store } = this.metricsServing;
    this.metricsServer = await startMetricsServer({
      metrics: this.metrics,
      port,
      ...(host !== undefined && { host }),
      ...(store && { storeSeries: new StoreSeries(this.store) }),
      now: () => this.clock.now(),
      onError: (error) =>
        this.settings.logger.error('a /metrics scrape failed', toErrorRecord(error) as ErrorRecord),
    });
  }

  /** Tells the store what this worker runs and subscribes to its streams' notices. */
  private async announceAndListen(): Promise<void> {
    // What this worker runs is known by name (code-first workflows), so clients can start it.
    for (const model of this.models.all) await model.announce(this.store);
    // Its code-first workflows' retention is theirs (one without drops what code declared).
    for (const definition of this.workflowDefinitions) {
      if (definition.retention) {
        const record = { workflow: definition.name, policy: definition.retention };
        await this.store.putRetention({ ...record, source: 'code' });
      } else await this.store.deleteRetention(definition.name, 'code');
    }
    await this.presence.start();
    for (const queue of this.queues) {
      await retryingConflicts(() =>
        this.store.transaction((tx) => declareQueue(tx, queue, this.clock.now(), 'code')),
      );
    }
    // A job enqueued, or one that ended and freed a slot, wakes the admissions.
    await this.queueWake.listen(this.store, [{ kind: 'stream', name: QUEUED_STREAM }]);
    for (const schedule of this.schedules) {
      await retryingConflicts(() =>
        this.store.transaction((tx) => declareSchedule(tx, schedule, this.clock.now(), 'code')),
      );
    }
    await this.engineWake.listen(
      this.store,
      this.routes.map((r) => ({ kind: 'stream' as const, name: r.stream })),
      (notice) => {
        if (notice.kind === 'stream') this.noticed.add(notice.name);
      },
    );
    await this.taskWake.listen(
      this.store,
      this.tasks.taskStreams.map((name) => ({ kind: 'stream' as const, name })),
    );
  }

  /**
   * Starts the worker and resolves when it has stopped ({@link stop}, from a signal
   * handler say); rejects when it gave up: the store stayed unreachable for `giveUpMs`.
   */
  async run(): Promise<void> {
    await this.start();
    if (!this.stopped) await new Promise<void>((resolve) => this.stoppedWaiters.push(resolve));
    if (this.failure) throw this.failure;
  }

  /**
   * One loop: a turn, then a wait when there was nothing to do. A turn that fails (the
   * store went away, say) is logged once, retried with backoff (250 ms doubling to 5 s)
   * and logged again every 30 s while it keeps failing; the first turn that works says
   * so. A loop failing for `giveUpMs` stops the worker, which then rejects {@link run}.
   */
  private async loop(
    name: string,
    turn: () => Promise<number | 'idle'>,
    wake: WakeUp,
  ): Promise<void> {
    let failingSince: number | undefined;
    let failures = 0;
    let lastLogged = 0;
    while (!this.stopping) {
      let result: number | 'idle';
      try {
        result = await turn();
      } catch (error) {
        if (this.stopping) break;
        const now = Date.now();
        failingSince ??= now;
        failures++;
        const record = toErrorRecord(error) as ErrorRecord;
        if (failures === 1 || now - lastLogged >= 30_000) {
          lastLogged = now;
          this.settings.logger.error(
            failures === 1
              ? `${name} loop failed; retrying`
              : `${name} loop still failing after ${Math.round((now - failingSince) / 1000)} s; retrying`,
            record,
            { loop: name, failures },
          );
        }
        if (now - failingSince >= this.giveUpMs) {
          this.giveUp(
            new StoreError(
              `worker gave up: its ${name} loop failed for ${Math.round((now - failingSince) / 1000)} s (${failures} tries); last error: ${record.message}`,
              { cause: error },
            ),
          );
          break;
        }
        await wake.wait(Math.min(250 * 2 ** Math.min(failures - 1, 5), 5_000));
        continue;
      }
      if (failingSince !== undefined) {
        this.settings.logger.info(
          `${name} loop recovered after ${Math.round((Date.now() - failingSince) / 1000)} s (${failures} failed tries)`,
          { loop: name, failures },
        );
        failingSince = undefined;
        failures = 0;
      }
      // Back to the event loop between turns, whatever the backlog: on SQLite a turn
      // resolves through microtasks alone, and signals, timers (a handler's, a task's
      // timeout) and lease heartbeats run only in macrotasks. A wait that a notice had
      // already ended takes none either.
      if (result === 0 || result === 'idle') {
        await wake.wait(this.waitFor(name));
        await yieldIfDue();
      } else await nextTurn();
    }
  }

  private giveUp(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    void this.stop();
  }

  private waitFor(name: string): number {
    if (name === 'timers') return Math.min(this.idleMs, this.nextTimerWait);
    if (name === 'schedules') return Math.min(this.idleMs, this.nextScheduleWait);
    if (name === 'queues') return Math.min(this.idleMs, this.nextQueueWait);
    if (name === 'retention') return this.nextRetentionWait;
    return this.idleMs;
  }

  private nextTimerWait = 250;

  /**
   * Polls the engine streams that had a notice, or more work last time; every `idleMs`
   * it polls them all (messages that become claimable by time — a delay, an expired
   * lease — send no notice). An empty poll is a transaction, so skipping quiet streams
   * saves one per stream per turn.
   */
  private async engineTurn(): Promise<number> {
    let total = 0;
    const followUp = this.tasks.taskStreams.length > 0 ? this.tasks.followUp : undefined;
    const now = performance.now();
    const all = now - this.lastFullPoll >= this.idleMs;
    if (all) this.lastFullPoll = now;
    for (const route of this.routes) {
      if (this.stopping) break;
      if (!all && !this.noticed.has(route.stream)) continue;
      this.noticed.delete(route.stream);
      const batch = () =>
        processBatch(this.settings, route.stream, route.handle, followUp, route.handleBatch);
      let claimed = await batch();
      // A full batch may have left more behind: then several batches run at once, each
      // its own transaction on its own connection (jobs are locked in id order, so they
      // only wait for each other where they share a job). A stopping worker starts none.
      if (this.stopping) {
        if (claimed > 0) this.noticed.add(route.stream);
      } else if (claimed >= this.settings.batchSize && this.engineLanes > 1) {
        const more = await Promise.all(Array.from({ length: this.engineLanes - 1 }, batch));
        claimed += more.reduce((a, b) => a + b, 0);
        if (more.some((n) => n >= this.settings.batchSize)) this.noticed.add(route.stream);
      } else if (claimed >= this.settings.batchSize) this.noticed.add(route.stream);
      total += claimed;
    }
    return total;
  }

  private async taskTurn(): Promise<number | 'idle'> {
    if (this.tasks.busy >= this.concurrency) return 'idle';
    return this.tasks.fill();
  }

  /** When this worker last deleted expired idempotency keys (its clock's ms). */
  private lastKeyPrune = Number.NEGATIVE_INFINITY;

  private async timerTurn(): Promise<number> {
    const now = this.clock.now();
    // Expired idempotency keys are deleted once a minute by each worker: one indexed
    // statement, so the table holds only the keys still held. Closed debounce windows too.
    if (now - this.lastKeyPrune >= KEY_PRUNE_EVERY_MS) {
      this.lastKeyPrune = now;
      await this.store.pruneIdempotencyKeys(now);
      // Debounce windows closed an hour ago: their jobs have started (or ended) long since.
      await this.store.pruneDebounces(now - DEBOUNCE_KEEP_MS);
    }
    const next = await this.store.nextTimerAt();
    if (next === undefined || next > now) {
      this.nextTimerWait = next === undefined ? this.idleMs : Math.max(1, next - now);
      return 0;
    }
    const fired = await this.store.fireDueTimers(now, 256);
    return fired.length;
  }

  /**
   * Fires the schedules with a tick due (or a held tick whose job may have ended), each
   * in its own transaction, then waits for the next tick (at most `idleMs`: a schedule
   * another process creates sends no notice). Counts the firings that did something.
   */
  private async scheduleTurn(): Promise<number> {
    const now = this.clock.now();
    let fired = 0;
    for (const name of await this.store.dueSchedules(now, 32)) {
      if (this.stopping) break;
      const firing = await retryingConflicts(() =>
        this.settings.store.transaction((tx) => fireSchedule(tx, this.models, name, now)),
      );
      if (firing && (firing.started.length > 0 || firing.skipped > 0)) {
        fired++;
        this.logFiring(firing);
      }
    }
    const next = await this.store.nextScheduleAt();
    this.nextScheduleWait = next === undefined ? this.idleMs : Math.max(1, next - this.clock.now());
    return fired;
  }

  /**
   * Admits waiting jobs to the free slots of every queue that has some waiting, each
   * queue in its own transaction under its lock; then waits for a notice (a job
   * enqueued, a slot freed), the rate limit's next start, or `idleMs`. Counts the jobs
   * admitted.
   */
  private async queueTurn(): Promise<number> {
    const now = this.clock.now();
    let admitted = 0;
    let wait = this.idleMs;
    for (const name of await this.store.queuesWaiting(now)) {
      if (this.stopping) break;
      const admission = await retryingConflicts(() =>
        this.settings.store.transaction((tx) => admitQueue(tx, name, now)),
      );
      admitted += admission.admitted.length;
      if (admission.rateWaitUntil !== undefined) {
        wait = Math.min(wait, Math.max(1, admission.rateWaitUntil - this.clock.now()));
      }
    }
    this.nextQueueWait = wait;
    return admitted;
  }

  /**
   * Prunes the finished jobs retention lets go (retention-sweep.ts), in small
   * transactions, then waits a quarter of the shortest retention (250 ms to 60 s). Says
   * how many it pruned at most once a minute.
   */
  private async retentionTurn(): Promise<number> {
    const now = this.clock.now();
    const sweep = await sweepRetention(this.store, this.retention, now, () => this.stopping);
    this.nextRetentionWait = sweep.nextInMs;
    this.pruned.jobs += sweep.removed;
    if (this.pruned.jobs > 0 && now - this.pruned.loggedAt >= 60_000) {
      this.settings.logger.info(`retention pruned ${this.pruned.jobs} finished jobs`, {
        pruned: this.pruned.jobs,
      });
      this.pruned = { jobs: 0, loggedAt: now };
    }
    return 0;
  }

  private logFiring(firing: Firing): void {
    const { logger } = this.settings;
    const where = { schedule: firing.schedule };
    if (firing.cancelled)
      logger.info(`schedule ${firing.schedule} cancelled ${firing.cancelled}`, where);
    for (const job of firing.started.filter((j) => j.created)) {
      logger.info(`schedule ${firing.schedule} started ${job.id}`, { ...where, job: job.id });
    }
    if (firing.error)
      logWarning(logger, `schedule ${firing.schedule}: ${firing.error}`, undefined, where);
  }

  /**
   * Stops: no new claims; running handlers get `graceMs` to finish, then are aborted and
   * their messages given back; results already in are committed.
   */
  stop(): Promise<void> {
    this.stopping_ ??= this.shutDown();
    return this.stopping_;
  }

  private stopping_: Promise<void> | undefined;

  private async shutDown(): Promise<void> {
    this.stopping = true;
    this.engineWake.wake();
    this.taskWake.wake();
    this.timerWake.wake();
    this.scheduleWake.wake();
    this.queueWake.wake();
    this.retentionWake.wake();
    await this.tasks.drain(this.graceMs);
    await Promise.all(this.loops);
    // The spans of the last commits, whose records are read after them, while the store
    // is still open (the caller closes it once this returns).
    await spanWorkDone();
    await this.presence.stop();
    await this.metricsServer?.close();
    this.metricsServer = undefined;
    await Promise.all([
      this.engineWake.close(),
      this.taskWake.close(),
      this.timerWake.close(),
      this.scheduleWake.close(),
      this.queueWake.close(),
      this.retentionWake.close(),
    ]);
    clearInterval(this.keepAlive);
    this.stopped = true;
    for (const resolve of this.stoppedWaiters.splice(0)) resolve();
  }

  /** Runs one engine message in a transaction: for tests that inject messages by hand. */
  async runEngineMessage(tx: StoreTx, message: StreamMessage): Promise<void> {
    const route = this.routes.find((r) => r.stream === message.stream);
    if (route) await route.handle(tx, message);
  }
}

/** Each task's limits: its definition's, then the worker's `taskLimits` over them. */
function taskLimitsOf(options: WorkerOptions): Record<string, TaskLimit> {
  const limits: Record<string, TaskLimit> = {};
  for (const task of options.tasks ?? []) {
    if (task.limit) limits[task.name] = task.limit;
  }
  for (const [task, limit] of Object.entries(options.taskLimits ?? {})) {
    limits[task] = { ...limits[task], ...checkTaskLimit(limit, task) };
  }
  return limits;
}

/** Each task's queue: its definition's, then the worker's `taskQueues` over them. */
function taskQueuesOf(options: WorkerOptions): Record<string, TaskQueue> {
  const queues: Record<string, TaskQueue> = {};
  for (const task of options.tasks ?? []) {
    if (task.queue) queues[task.name] = task.queue;
  }
  for (const [task, queue] of Object.entries(options.taskQueues ?? {})) {
    queues[task] = checkTaskQueue(queue, task);
  }
  return queues;
}
