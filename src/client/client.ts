/**
 * The client API: deploy workflows, start jobs, signal them, read their status, wait for
 * their result, cancel them, list them. It talks only to the store; workers do the work.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.js';
import { type Clock, SystemClock } from '../core/clock.js';
import {
  DefinitionConflictError,
  NotFoundError,
  TimeoutError,
  ValidationError,
} from '../core/errors.js';
import { createIdGenerator } from '../core/ids.js';
import type { RetentionPolicy } from '../core/retention.js';
import { isFinalFlowState } from '../core/states.js';
import type { WorkflowDefinition } from '../durable/definitions.js';
import { readInstance } from '../durable/stored-instance.js';
import { isTimeoutMs } from '../engine/job-deadline.js';
import type { CompiledWorkflow } from '../engine/kinds/index.js';
import { loadWorkflow } from '../engine/loaded-workflow.js';
import type { Rerun } from '../engine/rerun-job.js';
import { signalKey } from '../engine/signal-key.js';
import { resumeJob, suspendJob } from '../engine/suspension.js';
import { MAX_DURATION_MS } from '../graph/durations.js';
import { JobViews } from '../models/job-views.js';
import type { Models } from '../models/models.js';
import { retryingConflicts } from '../store/conflict-retry.js';
import { enqueueStart } from '../store/queue-admission.js';
import { queuePlacement } from '../store/queue-placement.js';
import type { DeadLetter, DefinitionRecord, JobFilter, JobRecord, Json } from '../store/records.js';
import type { SignalOutcome, Store, StoreTx } from '../store/store.js';
import { reportingCommits } from '../worker/commit-report.js';
import type { WeftMetrics } from '../worker/metrics/weft-metrics.js';
import { tracingStore } from '../worker/tracing-store.js';
import { type Requeued, requeueDeadLetter } from './dead-letters.js';
import { checkDebounce, type DebounceOptions, debouncedStart } from './debounced-start.js';
import { checkIdempotency, claimKey, type IdempotencyOptions } from './idempotent-start.js';
import { historyEntryView, type JobHistoryEntry, workNames } from './job-history.js';
import { type JobView, type JobViewOptions, jobView } from './job-view.js';
import { type PruneRequest, type PruneSummary, pruneFinishedJobs } from './prune.js';
import {
  type CreatedQueue,
  checkQueueStart,
  type QueueStartOptions,
  Queues,
  queueOfStart,
} from './queues.js';
import { type FileScheduleOutcome, Schedules } from './schedules.js';
import { delayedStart, type StartTimeOptions } from './start-time.js';

/** The engines' module and the runtimes of a client's jobs over them. */
interface Engines {
  module: typeof import('./client-engines.js');
  models: Models;
}

/** Options of a client. */
export interface ClientOptions {
  clock?: Clock;
  /**
   * Counts what this client's commits do — the jobs it starts (`weft_jobs_started_total`),
   * the jobs its cancels end — into a process's metrics, such as the `WeftMetrics` its
   * worker keeps. Default: none.
   */
  metrics?: WeftMetrics;
}

/** How to start a job. */
export interface StartOptions
  extends StartTimeOptions,
    QueueStartOptions,
    IdempotencyOptions,
    DebounceOptions {
  /** A custom job id: starting the same id again returns the existing job. */
  id?: string;
  /** A workflow version (default: the newest deployed). */
  version?: number;
  /**
   * The job's execution timeout in ms, over the workflow's own (`timeout:`, or
   * `defineWorkflow`'s `timeoutMs`): a job still running this long after its start ends
   * in FAILURE with a JobTimeoutError, and its child jobs with it. From 1 ms to 1000 days.
   */
  timeoutMs?: number;
}

/** How `Client.result` reads a job. */
export interface ResultOptions {
  /** Wait until the job has ended. */
  wait?: boolean;
  /** With `wait`: give up with a TimeoutError after this many ms. */
  timeoutMs?: number;
}

/**
 * The input `Client.start` takes for a code-first workflow whose `handle` takes the
 * arguments `A`: the arguments as an array, or, when `handle` takes one argument that is
 * not an array, that argument alone (the array of two arguments `['Oslo', 2]`, the order
 * `{ id: 'A1' }` or `[{ id: 'A1' }]`, the one array argument `[['a', 'b']]`).
 *
 * `I` is the type of the input given, inferred by `Client.start`: an array is checked as
 * the arguments array, anything else as the one argument itself, so that a wrong field
 * is reported on that field against the argument's own type (not against a union of the
 * two forms). Left `unknown`, the type is the union of both forms.
 */
export type StartInput<A extends unknown[], I = unknown> = A extends [infer X]
  ? X extends readonly unknown[]
    ? [X]
    : unknown extends I
      ? X | [X]
      : [I] extends [readonly unknown[]]
        ? [X]
        : X
  : A;

/**
 * Only an inference site for the type of a start's input (`I` in {@link StartInput}):
 * `never` for any input that is not itself `never`, so it adds nothing to the type.
 */
type InputSite<I> = [I] extends [never] ? I : never;

/**
 * The arguments after the workflow that `Client.start` takes: for a typed
 * {@link WorkflowDefinition}, its {@link StartInput} (optional when `handle` takes no
 * arguments) and options; for a workflow name, any JSON input and options.
 */
export type StartArgs<W, I = unknown> =
  W extends WorkflowDefinition<infer A, unknown>
    ? [] extends A
      ? [input?: StartInput<A, I> | InputSite<I>, options?: StartOptions]
      : [input: StartInput<A, I> | InputSite<I>, options?: StartOptions]
    : [input?: Json, options?: StartOptions];

/** What `Client.start` returns: a typed {@link StartedJob} for a definition, else the record. */
export type Started<W> =
  W extends WorkflowDefinition<unknown[], infer O> ? StartedJob<O> : JobRecord;

/** What became of an event sent to a code-first job ({@link Client.sendEvent}). */
export interface EventOutcome {
  /** A wait of the job (`waitForEvent(name)`) was waiting for it, and now has it. */
  awaited: boolean;
  /** The events the job's waits were waiting for when it came, sorted. */
  waitedFor: string[];
}

/** Carries a job's output type on its record; never set at run time. */
declare const outputType: unique symbol;

/**
 * A job started from a typed {@link WorkflowDefinition}: its record, carrying the type of
 * the workflow's result so that `client.result(job)` returns it typed.
 */
export interface StartedJob<O = unknown> extends JobRecord {
  readonly [outputType]?: O;
}

/** A typed job's record as `Client.result` reads it: `output` is the workflow's result. */
export type JobResult<O> = Omit<StartedJob<O>, 'output'> & { output: O | null };

/**
 * What a deploy did: the stored version, and whether this deploy stored it (`deployed`)
 * or found the same definition already there (`unchanged`).
 */
export interface Deployment extends DefinitionRecord {
  status: 'deployed' | 'unchanged';
  /** The newest version before this one, when the deploy stored a changed definition. */
  previousVersion?: number;
  /** The file's schedules as the deploy left them, and those it deleted (when there were any). */
  schedules?: FileScheduleOutcome[];
  /** The queue the file's `queue:` declared, when it gave limits, as the deploy left it. */
  queue?: CreatedQueue;
  /** The file's `retention:`, when it gives one, as the deploy stored it. */
  retention?: RetentionPolicy;
}

/** Which entries `Client.history` reads. */
export interface HistoryOptions {
  /** Only entries after this `seq`. */
  afterSeq?: number;
  /** At most this many (default: all). */
  limit?: number;
}

/** How many history lines one read of the store returns. */
const HISTORY_PAGE = 1000;

/** How many times a deploy re-reads the newest version when another deploy took its number. */
const DEPLOY_ATTEMPTS = 5;

/** A compiled workflow's content, apart from its version number and the path it came from. */
function graphContent(definition: CompiledWorkflow): string {
  const {
    version: _v,
    pinnedVersion: _p,
    source: _s,
    schedules: _c,
    queueDeclaration: _q,
    retention: _r,
    ...content
  } = definition;
  return canonicalJson(content as never);
}

/** Talks to a store on behalf of a user. */
export class Client {
  readonly clock: Clock;
  private readonly newId: () => string;
  /** Job views over the stored definitions: reading a job loads no engine. */
  private readonly views = new JobViews();
  /** The engines' runtimes, loaded by the first method that needs them. */
  private loadingEngines: Promise<Engines> | undefined;
  /** The store, with transactions that record weft's spans when an SDK is registered. */
  private readonly traced: Store;
  /** Cron schedules: create, list, pause, resume, delete, backfill (client/schedules.ts). */
  readonly schedules: Schedules;
  /** Queues: create, list, delete (client/queues.ts). */
  readonly queues: Queues;

  /** The store it talks to (seen through its metrics' commit reports, when it has some). */
  readonly store: Store;

  constructor(base: Store, options: ClientOptions = {}) {
    const { metrics } = options;
    const store = metrics ? reportingCommits(base, (report) => metrics.committed(report)) : base;
    this.store = store;
    this.clock = options.clock ?? new SystemClock();
    this.traced = tracingStore(store, () => this.clock.now());
    this.newId = createIdGenerator(this.clock, (n) => randomBytes(n));
    this.schedules = new Schedules(store, async () => (await this.engines()).models, this.clock);
    this.queues = new Queues(store, this.clock);
  }

  /**
   * Stores a compiled graph workflow. A definition that names its version
   * (`pinnedVersion`: `version:` in the file, `.version(n)` in the builder) is stored as
   * exactly that version: the same content again is a no-op, different content a
   * {@link DefinitionConflictError}. Otherwise a definition that differs from the newest
   * stored version (ignoring the version number and file path) is stored as the next
   * version, and the same one again is `unchanged`. Jobs already started keep the version
   * they started on; new jobs start on the newest.
   */
  async deploy(compiled: CompiledWorkflow, source: string | null = null): Promise<Deployment> {
    const { schedules, queueDeclaration, retention, ...definition } = compiled;
    const deployment = await this.deployDefinition(definition, source);
    // The file's retention is the workflow's (a file without one drops what a file declared).
    if (retention) {
      await this.store.putRetention({
        workflow: compiled.workflow,
        policy: retention,
        source: 'file',
      });
    } else await this.store.deleteRetention(compiled.workflow, 'file');
    const declared = await this.schedules.declareFromFile(compiled.workflow, schedules ?? []);
    const queue = queueDeclaration
      ? await this.queues.create({ ...queueDeclaration, kind: 'queue' as const }, 'file')
      : undefined;
    return {
      ...deployment,
      ...(declared.length > 0 && { schedules: declared }),
      ...(queue && { queue }),
      ...(retention && { retention }),
    };
  }

  /** Stores the definition (without its schedules) as {@link deploy} says. */
  private async deployDefinition(
    compiled: CompiledWorkflow,
    source: string | null,
  ): Promise<Deployment> {
    const put = (version: number) =>
      this.store.putDefinition({
        workflow: compiled.workflow,
        version,
        model: 'graph',
        definition: { ...compiled, version } as unknown as Json,
        source,
      });
    if (compiled.pinnedVersion) {
      const stored = await this.store.getDefinition(compiled.workflow, compiled.version);
      const record = await put(compiled.version);
      return { ...record, status: stored ? 'unchanged' : 'deployed' };
    }
    for (let attempt = 1; ; attempt++) {
      const newest = await this.store.getDefinition(compiled.workflow);
      if (newest && newest.model !== 'graph') {
        throw new DefinitionConflictError(compiled.workflow, newest.version);
      }
      if (
        newest &&
        graphContent(newest.definition as unknown as CompiledWorkflow) === graphContent(compiled)
      ) {
        return { ...newest, status: 'unchanged' };
      }
      const version = (newest?.version ?? 0) + 1;
      try {
        const record = await put(version);
        return {
          ...record,
          status: 'deployed',
          ...(newest && { previousVersion: newest.version }),
        };
      } catch (error) {
        // Another deploy stored this number first: read the newest again.
        if (!(error instanceof DefinitionConflictError) || attempt >= DEPLOY_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Starts a job of a deployed graph workflow, or an instance of a code-first workflow
   * (its `handle` gets `input` as its arguments when `input` is an array, else as its one
   * argument). Given the code-first {@link WorkflowDefinition} rather than its name, the
   * input is typed by its `handle` (see {@link StartInput}) and the job returned carries
   * its result type to {@link Client.result}. A graph job's input is checked against the
   * workflow's input schema first; a job whose input fails is refused with a
   * ValidationError. Starting an existing id returns that job; a start with an
   * `idempotencyKey` that is held returns, refuses or replaces (by `onDuplicate`) the job
   * that holds it (client/idempotent-start.ts). With a `queue`, the job waits for a slot
   * of it before its first step (client/queues.ts). With a `debounce`, the starts with
   * its key within a window get one job (client/debounced-start.ts).
   *
   * A name with no stored definition is taken for a code-first workflow no worker has
   * registered yet: the job is created and waits (RUNNING) until a worker with that
   * workflow's code runs it. Graph workflows must be deployed before they are started;
   * a `version` that is not stored is a NotFoundError. The client never needs the code:
   * a code-first instance's initial properties are written by the first worker with
   * the code that decides for it.
   */
  // One signature rather than an overload per form: with overloads, TypeScript reports a
  // wrong input against the last overload (the workflow is not a string) instead of
  // naming the field that is wrong.
  start<W extends string | WorkflowDefinition<never[], unknown>, I = unknown>(
    workflow: W,
    ...args: StartArgs<W, I>
  ): Promise<Started<W>>;
  async start(
    definition: string | WorkflowDefinition<never[], unknown>,
    input?: unknown,
    options: StartOptions = {},
  ): Promise<JobRecord> {
    const workflow = typeof definition === 'string' ? definition : definition.name;
    if (options.timeoutMs !== undefined && !isTimeoutMs(options.timeoutMs)) {
      throw new ValidationError(
        `timeoutMs ${JSON.stringify(options.timeoutMs)} is not a whole number of ms from 1 to ${MAX_DURATION_MS} (1000 days)`,
        'start',
      );
    }
    const startAt = delayedStart(options, this.clock.now());
    checkDebounce(options);
    const keyed = checkIdempotency(options);
    const record = await this.store.getDefinition(workflow, options.version);
    if (!record && options.version !== undefined) {
      throw new NotFoundError('workflow', `${workflow}@${options.version}`);
    }
    const queueOptions = await queueOfStart(definition, record, input, options, this.clock.now());
    const queue = await checkQueueStart(this.store, queueOptions);
    // Checked again with the queue a workflow file names: a trailing debounce takes none.
    const debounce = checkDebounce({ ...options, queue: queueOptions.queue });
    const model = (await this.engines()).models.ofDefinition(record);
    const id = options.id ?? this.newId();
    const request = {
      id,
      workflow,
      definition: record,
      input: (input ?? null) as Json,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      ...(startAt !== undefined && { startAt }),
    };
    // Checks that may take time (the input against its schema) run before the transaction.
    await model.check?.(request);
    const { job } = await this.transaction(async (tx) => {
      if (keyed) {
        const held = await claimKey(tx, workflow, id, keyed, this.clock.now());
        if (held) return { job: held, created: false };
      }
      const started = debounce
        ? await debouncedStart(tx, debounce, {
            workflow,
            id,
            input: request.input,
            now: this.clock.now(),
            create: (at) =>
              model.start(tx, at === undefined ? request : { ...request, startAt: at }),
            replaceInput: (job, next) => model.replaceInput(tx, job, next),
          })
        : await model.start(tx, request);
      // A start that joined a debounce window: its idempotency key names the window's job.
      if (keyed && started.job.id !== id) {
        const expiresAt = this.clock.now() + keyed.ttlMs;
        await tx.replaceIdempotencyKey({
          workflow,
          key: keyed.key,
          job: started.job.id,
          expiresAt,
        });
      }
      // A new job on a queue takes a free slot, or waits in line, its first step parked.
      if (queue && started.created) {
        const now = this.clock.now();
        await enqueueStart(tx, id, { ...queueOptions, queue: queue.name }, startAt ?? now, now);
      }
      return started;
    });
    return job;
  }

  /**
   * Sends a signal to a job's hook. When the hook is not waiting yet, the signal is kept
   * and delivered when it starts waiting. A signal no hook of the job's workflow version
   * listens for is refused (`NO_SUCH_HOOK`, naming the signals it does listen for), and
   * so is a signal to a code-first job, which takes events ({@link sendEvent}) instead.
   */
  async signal(jobId: string, name: string, data: Json = null): Promise<SignalOutcome> {
    const where = `signal ${name}`;
    const job = await this.store.getJob(jobId);
    if (!job) throw new NotFoundError('job', jobId);
    if (job.model !== 'graph') {
      throw new ValidationError(
        `job ${jobId} is a code-first job; it takes events (weft event ${jobId} ${name}), not signals`,
        where,
        { code: 'NO_SUCH_HOOK' },
      );
    }
    if (isFinalFlowState(job.state)) {
      throw new ValidationError(`job ${jobId} has already ended (${job.state})`, where);
    }
    const record = await this.store.getDefinition(job.workflow, job.version);
    if (record) {
      const compiled = record.definition as unknown as CompiledWorkflow;
      const signals = Object.values(compiled.activities)
        .filter((a) => a.kind === 'hook')
        .map((a) => a.signal ?? a.id);
      if (!signals.includes(name)) {
        const listens = signals.length
          ? `its hooks listen for ${[...new Set(signals)].sort().join(', ')}`
          : 'it has no hook';
        throw new ValidationError(
          `job ${jobId} (${job.workflow} version ${job.version}) has no hook for signal ${JSON.stringify(name)}; ${listens}`,
          where,
          { code: 'NO_SUCH_HOOK' },
        );
      }
    }
    return this.store.deliverSignal(signalKey(jobId, name), data);
  }

  /**
   * Sends an event to a code-first instance: an `onEvent` branch, and any wait for it
   * released. An event no wait is waiting for is sent all the same (the workflow's
   * `onEvent` gets it, if it has one): a code-first workflow declares no event names, so
   * none is refused. The outcome says whether a wait was waiting for it, and which events
   * the job's waits were waiting for, so a caller can warn of a misspelt name.
   */
  async sendEvent(jobId: string, name: string, data: Json = null): Promise<EventOutcome> {
    await this.durableJob(jobId, `event ${name}`);
    const { models } = await this.engines();
    return this.transaction(async (tx) => {
      const waits = (await readInstance(tx, jobId))?.waits ?? [];
      const waitedFor = [
        ...new Set(waits.map((w) => w.event).filter((e): e is string => e !== undefined)),
      ].sort();
      await models.durable.act(tx, jobId, { type: 'onEvent', name, data });
      return { awaited: waitedFor.includes(name), waitedFor };
    });
  }

  /**
   * Pauses a job, graph or code-first, as TaskFlow suspends a flow: it moves to
   * SUSPENDING and starts nothing new (its waiting work is kept, parked), the task
   * handlers running now finish and their results are recorded, and it moves to
   * SUSPENDED once none runs — at once when none does — or ends, if its last work
   * finished meanwhile. A code-first instance's actions still arrive and buffer; no
   * decision runs. Pausing a suspending or suspended job changes nothing.
   */
  async pause(jobId: string): Promise<JobRecord> {
    const job = await this.runningJob(jobId, 'pause');
    if (job.model === 'durable') return this.controlDurable(jobId, 'pause');
    return this.transaction(async (tx) => {
      const locked = await tx.lockJob(jobId);
      if (locked) await suspendJob(tx, locked, { now: this.clock.now() });
      return (await tx.getJob(jobId)) as JobRecord;
    });
  }

  /**
   * Resumes a SUSPENDED job: RUNNING again, its parked work back, and it carries on where
   * it stopped (a code-first instance stopped by a code change retries its decision with
   * the code now deployed). A job still SUSPENDING is refused (`InvalidStateError`):
   * resume it once its running handlers have finished.
   */
  async resume(jobId: string): Promise<JobRecord> {
    const job = await this.runningJob(jobId, 'resume');
    if (job.model === 'durable') return this.controlDurable(jobId, 'resume');
    return this.transaction(async (tx) => {
      const locked = await tx.lockJob(jobId);
      if (locked) await resumeJob(tx, locked, { now: this.clock.now() });
      return (await tx.getJob(jobId)) as JobRecord;
    });
  }

  /** Both engines and what runs on them, loaded once, on first use (client-engines.ts). */
  private engines(): Promise<Engines> {
    this.loadingEngines ??= import('./client-engines.js').then((module) => ({
      module,
      models: module.clientModels(this.clock),
    }));
    return this.loadingEngines;
  }

  /**
   * A transaction of this client's, run again when the store aborted it as a conflict
   * (a deadlock with a worker: store/conflict-retry.ts), so that no command fails for one.
   */
  private transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return retryingConflicts(() => this.traced.transaction(fn));
  }

  /** A job that has not ended, for `what`. */
  private async runningJob(jobId: string, what: string): Promise<JobRecord> {
    const job = await this.store.getJob(jobId);
    if (!job) throw new NotFoundError('job', jobId);
    if (isFinalFlowState(job.state)) {
      throw new ValidationError(`job ${jobId} has already ended (${job.state})`, what);
    }
    return job;
  }

  /** Terminates a code-first instance: it ends in FAILURE, its waits cancelled. */
  async terminate(jobId: string): Promise<JobRecord> {
    return this.controlDurable(jobId, 'terminate');
  }

  /** The job as the command left it (a worker may move it on as soon as it commits). */
  private async controlDurable(jobId: string, op: 'pause' | 'resume' | 'terminate') {
    await this.durableJob(jobId, op);
    const { models } = await this.engines();
    return this.transaction(async (tx) => {
      await models.durable.control(tx, jobId, op);
      return (await tx.getJob(jobId)) as JobRecord;
    });
  }

  private async durableJob(jobId: string, what: string): Promise<JobRecord> {
    const job = await this.store.getJob(jobId);
    if (!job) throw new NotFoundError('job', jobId);
    if (job.model !== 'durable') {
      throw new ValidationError(
        `job ${jobId} is a graph job; ${what} is for code-first jobs`,
        what,
      );
    }
    if (isFinalFlowState(job.state)) {
      throw new ValidationError(`job ${jobId} has already ended (${job.state})`, what);
    }
    return job;
  }

  /**
   * The job's current view: state, collation key, activities, children; with `steps`, a
   * code-first job's steps in the order they ran (read off its history).
   */
  async status(jobId: string, options: JobViewOptions = {}): Promise<JobView> {
    return this.transaction(async (tx) => {
      const job = await tx.getJob(jobId);
      if (!job) throw new NotFoundError('job', jobId);
      return (await jobView(tx, this.views, job, 0, this.clock.now(), options)).view;
    });
  }

  /**
   * Reads a job (by id, or the record `start` returned: a job started from a typed
   * definition reads back with its `output` typed); with `wait`, resolves once it has
   * ended (woken by the store's notice).
   */
  result<O>(job: StartedJob<O>, options?: ResultOptions): Promise<JobResult<O>>;
  result(jobId: string, options?: ResultOptions): Promise<JobRecord>;
  async result(target: string | JobRecord, options: ResultOptions = {}): Promise<JobRecord> {
    const jobId = typeof target === 'string' ? target : target.id;
    const read = async () => {
      const job = await this.store.getJob(jobId);
      if (!job) throw new NotFoundError('job', jobId);
      return job;
    };
    let job = await read();
    if (!options.wait || isFinalFlowState(job.state)) return job;
    let wake: () => void = () => {};
    // A notice that lands while the job is being read must not be lost to the wait after.
    let noticed = false;
    const unsubscribe = await this.store.subscribe({ kind: 'job', id: jobId }, () => {
      noticed = true;
      wake();
    });
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    try {
      for (;;) {
        noticed = false;
        job = await read();
        if (isFinalFlowState(job.state)) return job;
        const left = deadline - Date.now();
        if (left <= 0)
          throw new TimeoutError(`job ${jobId} did not end within ${options.timeoutMs} ms`);
        if (noticed) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 5000));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      await unsubscribe();
    }
  }

  /**
   * Reruns a job from one of its steps: a new job (same workflow version and input) that
   * keeps the old job's results before the step and runs the step and everything after it
   * again. The old job is left as it is. `from` names, for a graph job, an activity; for a
   * code-first job, a step as its timeline shows it (`charge`, `charge#2`, or a work id):
   * the new job's journal holds the old one's results before it (replayed, not run
   * again), see durable/instance-rerun.ts. Takes `rerun(job, 'charge')` or
   * `rerun(job, { from: 'charge' })`.
   *
   * A ValidationError (`RERUN_REFUSED`) when a graph activity it would keep has not
   * finished, or a code-first job has not ended (cancel it first) or the step ran in a
   * handler rather than the workflow's main code; NotFoundError for an unknown job,
   * activity or step.
   */
  async rerun(
    jobId: string,
    from: string | { from: string; id?: string },
    options: { id?: string } = {},
  ): Promise<Rerun> {
    const activity = typeof from === 'string' ? from : from.from;
    const newId = (typeof from === 'string' ? undefined : from.id) ?? options.id;
    if (typeof activity !== 'string' || activity === '') {
      throw new ValidationError('a rerun needs the step to rerun from', 'rerun.from');
    }
    const source = await this.store.getJob(jobId);
    if (!source) throw new NotFoundError('job', jobId);
    const id = newId ?? this.newId();
    // A rerun waits for a slot where its source did, as a start would.
    const placement = await queuePlacement(this.store, jobId);
    const enqueue = async (tx: StoreTx, rerun: Rerun) => {
      if (placement) {
        const now = this.clock.now();
        await enqueueStart(tx, rerun.job.id, placement, now, now);
      }
      return rerun;
    };
    const {
      module: { settledTransaction, rerunGraphJob },
      models,
    } = await this.engines();
    if (source.model === 'durable') {
      return retryingConflicts(() =>
        settledTransaction(this.store, async (tx) =>
          enqueue(tx, await models.durable.rerun(tx, { source: jobId, from: activity, id })),
        ),
      );
    }
    const record = await this.store.getDefinition(source.workflow, source.version);
    if (!record) throw new NotFoundError('workflow', `${source.workflow}@${source.version}`);
    const wf = loadWorkflow(record.definition as unknown as CompiledWorkflow);
    // Its `when` conditions are evaluated outside the transaction (expression-plan.ts).
    return retryingConflicts(() =>
      settledTransaction(this.store, async (tx) =>
        enqueue(tx, await rerunGraphJob(tx, { source, wf, activity, id, now: this.clock.now() })),
      ),
    );
  }

  /**
   * Cancels a running job (and its running children): it ends in FAILURE with a Cancelled
   * error (code-first: terminated), and its work goes with it in the same transaction, as
   * with a job timeout: tasks waiting in their streams or parked never run, and a running
   * handler loses its lease and is aborted.
   */
  async cancel(jobId: string): Promise<JobRecord> {
    const job = await this.store.getJob(jobId);
    if (!job) throw new NotFoundError('job', jobId);
    if (isFinalFlowState(job.state)) return job;
    const runtime = (await this.engines()).models.ofJob(job);
    const children = await this.transaction((tx) => runtime.cancel(tx, job));
    for (const child of children) await this.cancel(child);
    return (await this.store.getJob(jobId)) as JobRecord;
  }

  /**
   * A job's history: one entry per committed step, in order (`seq` 1, 2, 3…) — its
   * start, each message and inline step (graph) or action and decision (code-first), a
   * cancel, its end; a code-first job's lines name their work (`name`). `NotFoundError`
   * when there is no such job.
   */
  async history(jobId: string, options: HistoryOptions = {}): Promise<JobHistoryEntry[]> {
    const job = await this.store.getJob(jobId);
    if (!job) throw new NotFoundError('job', jobId);
    // A code-first job's lines name their work (its id is `<job>.0.1`, say).
    const names =
      job.model === 'durable' ? workNames(job, await readInstance(this.store, job)) : undefined;
    const out: JobHistoryEntry[] = [];
    let afterSeq = options.afterSeq ?? 0;
    const wanted = options.limit ?? Number.POSITIVE_INFINITY;
    while (out.length < wanted) {
      const limit = Math.min(HISTORY_PAGE, wanted - out.length);
      const page = await this.store.historyOfJob(jobId, { afterSeq, limit });
      out.push(...page.map((line) => historyEntryView(line, names)));
      if (page.length < limit) break;
      afterSeq = (page.at(-1) as { seq: number }).seq;
    }
    return out;
  }

  /** Lists jobs. */
  list(filter: JobFilter = {}): Promise<JobRecord[]> {
    return this.store.listJobs(filter);
  }

  /** Dead letters (messages that failed every delivery allowed), oldest first. */
  deadLetters(options: { stream?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    return this.store.listDeadLetters(options.stream, options.limit);
  }

  /**
   * Requeues a dead letter: its message goes back to its stream, and the job it ended in
   * FAILURE is RUNNING again, so a worker finishes it. `NotFoundError` when there is none.
   */
  async requeueDeadLetter(id: string): Promise<Requeued> {
    const { models } = await this.engines();
    return requeueDeadLetter(this.store, models, id, () => this.clock.now());
  }

  /**
   * Removes the jobs that ended at least `olderThanMs` ago (by state, by workflow), each
   * with its descendants and every row they left, in small transactions; with `dryRun`,
   * only counts them. Never a job that has not ended, nor a child whose parent is kept.
   */
  prune(request: PruneRequest): Promise<PruneSummary> {
    return pruneFinishedJobs(this.store, request, this.clock.now());
  }
}
