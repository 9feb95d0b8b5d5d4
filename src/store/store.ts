/**
 * The Store contract: the only way any layer above reaches durable state. It is narrow
 * and every operation is atomic. Backends (`sqlite/`, `postgres/`) implement it with SQL
 * per operation; nothing outside their folders writes SQL. The Redis backend (`redis/`,
 * being built: docs/store-redis.md) buffers a transaction's writes and applies them with
 * one server-side script.
 *
 * Operations come in two places with the same shape: directly on a {@link Store} (each
 * call its own transaction) and on the {@link StoreTx} handed to
 * {@link Store.transaction} (all calls commit or roll back together). The engine runs a
 * whole step — ack, counter adds, data writes, child messages — in one transaction:
 * the seed's chain of custody.
 */
import type { FlowState } from '../core/states.js';
import type { MigrationReport } from './migration-report.js';
import type {
  ActivityRecord,
  ActivityWrite,
  ClaimOptions,
  CounterRef,
  DeadLetter,
  DebounceRecord,
  DefinitionRecord,
  ErrorRecord,
  FiredTimer,
  HistoryEntry,
  HistoryQuery,
  IdempotencyClaim,
  JobCounts,
  JobFilter,
  JobPatch,
  JobRecord,
  JournalEntry,
  Json,
  NewHistoryEntry,
  NewJob,
  NewMessage,
  NewQueueItem,
  NewTimer,
  NewWaiter,
  NewWorkerPresence,
  PruneOptions,
  PruneResult,
  QueuedClaimOptions,
  QueuedPick,
  QueueItem,
  QueueKeyCount,
  QueueRecord,
  RetentionRecord,
  ScheduleRecord,
  SignalOutcome,
  StoreStats,
  StreamMessage,
  WaitingStream,
  WorkerPresence,
} from './records.js';

/** The operations that can run inside one transaction. */
export interface StoreTx {
  // ── jobs ──────────────────────────────────────────────────────────────
  /**
   * Creates a job, idempotent by id: when a job with this id exists, returns it with
   * `created: false` and changes nothing.
   */
  createJob(job: NewJob): Promise<{ job: JobRecord; created: boolean }>;
  /** Reads a job. */
  getJob(id: string): Promise<JobRecord | undefined>;
  /**
   * Reads a job and holds it until the transaction ends, so steps of one job never
   * interleave (`SELECT … FOR UPDATE` on PostgreSQL; SQLite's writer lock already does it).
   */
  lockJob(id: string): Promise<JobRecord | undefined>;
  /**
   * Compare-and-set of a job's state, checked against the flow machine in core/states:
   * an illegal move throws `InvalidStateError`. Returns false (and writes nothing) when
   * the stored state is not `from`, when the job does not exist, and for a move the
   * machine does not make (`same`: from === to; `ignored`: a suspend request on an idle
   * job). A move into a final state stamps `finishedAt` (unless the patch gives it) and
   * notifies `job:<id>` after commit; a move out of one clears it.
   */
  setJobState(id: string, from: FlowState, to: FlowState, patch?: JobPatch): Promise<boolean>;
  /** Writes output, error, context or finish time without changing the state; `NotFoundError` when there is no such job. */
  updateJob(id: string, patch: JobPatch): Promise<void>;
  /**
   * Patches several jobs at once (one statement on PostgreSQL), each as {@link updateJob};
   * each job may appear once. `NotFoundError` naming one that is missing, and then none is
   * patched.
   */
  updateJobs(patches: { id: string; patch: JobPatch }[]): Promise<void>;
  /** Replaces the input of a job (a debounced start's later input, before its first step). */
  setJobInput(id: string, input: Json): Promise<void>;
  /** Lists jobs by filter, in id (creation) order. */
  listJobs(filter?: JobFilter): Promise<JobRecord[]>;
  /**
   * Counts jobs by state under a filter's workflow, parent and time bounds (its states,
   * paging and order are ignored): one grouped read over the jobs' indexes.
   */
  countJobs(filter?: JobFilter): Promise<JobCounts>;
  /** Store-wide numbers for monitoring: jobs by state, stream depths, steps so far. */
  storeStats(now: number): Promise<StoreStats>;
  /**
   * The high-water mark of history lines (0 before the first): it grows with every
   * committed step of any job, so a watcher that sees it unchanged knows nothing moved.
   */
  lastStep(): Promise<number>;

  /**
   * Locks several jobs at once, in id order (so batches that share jobs never deadlock),
   * and returns those that exist, in id order.
   */
  lockJobs(ids: string[]): Promise<JobRecord[]>;

  // ── journals ──────────────────────────────────────────────────────────
  /**
   * Appends entries to their jobs' journals (one statement). Entries are never changed:
   * appending a (job, seq) that exists fails with `StoreError` and writes nothing.
   */
  appendJournal(entries: JournalEntry[]): Promise<void>;
  /** A job's journal entries numbered after `afterSeq` (default 0: all), in order. */
  readJournal(job: string, afterSeq?: number): Promise<JournalEntry[]>;
  /**
   * Every journal entry of these jobs (a batch's instances read at once), in (job, seq)
   * order, jobs in id order; a job without entries has none.
   */
  journalsOfJobs(jobs: string[]): Promise<JournalEntry[]>;

  // ── definitions ───────────────────────────────────────────────────────
  /** Stores a definition version; storing the same (workflow, version) again with the same definition is a no-op, with a different one it is an error. */
  putDefinition(def: Omit<DefinitionRecord, 'createdAt'>): Promise<DefinitionRecord>;
  /** Reads one version, or the newest when `version` is absent. */
  getDefinition(workflow: string, version?: number): Promise<DefinitionRecord | undefined>;
  /** Lists the newest version of every workflow. */
  listDefinitions(): Promise<DefinitionRecord[]>;

  // ── counters ──────────────────────────────────────────────────────────
  /**
   * Adds `delta` to a counter (created at 0, or at `initial` when given and absent) and
   * returns the new value. Values are arbitrary-precision integers.
   */
  addCounter(ref: CounterRef, delta: bigint, initial?: bigint): Promise<bigint>;
  /** Reads a counter; undefined when never written. */
  getCounter(ref: CounterRef): Promise<bigint | undefined>;
  /** Every counter of a job, keyed `field` for job counters and `activity/dimension/field` for activity counters. */
  listCounters(job: string): Promise<Map<string, bigint>>;

  /**
   * Every counter of these jobs, with its reference (a batch's snapshot); with
   * `dimensions`, only the counters of those dimensional threads (`''` is the job's own
   * and its activities' first thread).
   */
  countersOfJobs(
    jobs: string[],
    dimensions?: string[],
  ): Promise<{ ref: CounterRef; value: bigint }[]>;
  /** Reads several counters at once; `undefined` for those never written. */
  getCounters(refs: CounterRef[]): Promise<(bigint | undefined)[]>;
  /**
   * Applies several adds at once and returns the new values in order. Each counter may
   * appear once. `expect` is not checked here (see `applyUnit`).
   */
  addCounters(adds: CounterAdd[]): Promise<bigint[]>;

  // ── activity data ─────────────────────────────────────────────────────
  /** Upserts an activity's data; absent fields keep their stored values. */
  putActivity(write: ActivityWrite): Promise<void>;
  /** Reads one activity's data. */
  getActivity(
    job: string,
    activity: string,
    dimension?: string,
  ): Promise<ActivityRecord | undefined>;
  /** Every activity record of a job. */
  listActivities(job: string): Promise<ActivityRecord[]>;

  /**
   * Every activity record of these jobs (a batch's snapshot); with `dimensions`, only
   * those of these dimensional threads.
   */
  activitiesOfJobs(jobs: string[], dimensions?: string[]): Promise<ActivityRecord[]>;
  /**
   * For each activity of a job (of `activities`, when given), its newest record
   * (greatest `updatedAt`; every record sharing that time when several do): what
   * expressions read of an activity that did not run in their own thread, without
   * reading every thread a long cycle or a spread left.
   */
  newestActivities(job: string, activities?: string[]): Promise<ActivityRecord[]>;
  /** Reads several activities at once, in order; `undefined` for those never written. */
  getActivities(keys: ActivityKey[]): Promise<(ActivityRecord | undefined)[]>;
  /** Upserts several activities at once, as {@link putActivity} each; each key may appear once. */
  putActivities(writes: ActivityWrite[]): Promise<void>;

  // ── streams ───────────────────────────────────────────────────────────
  /** Appends messages; returns their ids in order. Notifies `stream:<name>` after commit. */
  append(messages: NewMessage[]): Promise<string[]>;
  /**
   * Claims up to `max` available messages of a stream for `consumer`: those never
   * claimed and those whose lease expired, oldest first. Two consumers never hold the
   * same message. Messages past `maxDeliveries` go to the dead-letter stream instead.
   * Inside a transaction a claim also takes the claimable messages that transaction
   * appended itself, which commit held by `consumer`. A claim does not wait for other
   * transactions to commit (on Redis it takes committed messages at once, and gives them
   * back should its transaction roll back).
   */
  claim(stream: string, options: ClaimOptions): Promise<StreamMessage[]>;
  /**
   * Up to `limit` messages of `stream` claimable at `now`, oldest first (as a claim takes
   * them), left unclaimed; with `after` (a message this returned), those after it in that
   * order, to page on.
   */
  claimableMessages(
    stream: string,
    now: number,
    limit: number,
    after?: Pick<StreamMessage, 'id' | 'availableAt'>,
  ): Promise<StreamMessage[]>;
  /**
   * Claims these messages of `stream` for `options.consumer`, as {@link claim} does, for a
   * claim through a queue (store/task-queue-claim.ts): while its lease lives each counts
   * as an attempt the queue holds, under its pick's key. A message no longer claimable
   * (another claim took it meanwhile) is left out.
   */
  claimQueued(
    stream: string,
    picks: readonly QueuedPick[],
    options: QueuedClaimOptions,
  ): Promise<StreamMessage[]>;
  /** The task attempts queue `queue` holds at `now` (claimed through it, lease live), per key. */
  queueHeld(queue: string, now: number): Promise<{ key: string; running: number }[]>;
  /**
   * Completes and deletes a message held by `consumer` (the claim machine's CLAIMED →
   * COMPLETE); false when it no longer holds it (another consumer does, or it is gone).
   * A message never claimed cannot complete: that UNCLAIMED → COMPLETE throws
   * `InvalidStateError` and changes nothing.
   */
  ack(stream: string, id: string, consumer: string): Promise<boolean>;
  /** Acks several messages of one stream, as {@link ack} each; returns the ids `consumer` still held (now deleted). */
  ackMany(stream: string, ids: string[], consumer: string): Promise<string[]>;
  /** Extends the leases `consumer` holds on these messages; returns the ids it still held. */
  extendLease(stream: string, ids: string[], consumer: string, leaseMs: number): Promise<string[]>;
  /**
   * Gives a held message back (CLAIMED→UNCLAIMED), claimable again after `delayMs`. A
   * `lastError` is kept with the message (its `lastError`, and its dead letter's).
   */
  release(
    stream: string,
    id: string,
    consumer: string,
    delayMs?: number,
    lastError?: ErrorRecord,
  ): Promise<boolean>;
  /**
   * Moves a message `consumer` holds to the dead letters now, with `reason` (and
   * `lastError`, else the one it was last released with); returns the dead letter, or
   * undefined when `consumer` no longer holds it.
   */
  deadLetter(
    stream: string,
    id: string,
    consumer: string,
    reason: string,
    lastError?: ErrorRecord,
  ): Promise<DeadLetter | undefined>;
  /** Deletes messages whoever holds them (an operator's tool). */
  remove(stream: string, ids: string[]): Promise<number>;
  /**
   * Makes expired leases claimable now, and moves messages delivered `maxDeliveries`
   * times or more to the dead-letter stream. Returns how many of each.
   */
  reclaimExpired(
    stream: string,
    options?: { maxDeliveries?: number },
  ): Promise<{ reclaimed: number; deadLettered: number }>;
  /** Messages waiting or held, per stream (all streams when absent). */
  countMessages(stream?: string): Promise<number>;
  /** Reads messages without claiming them (for status and tests). */
  peek(stream: string, limit?: number): Promise<StreamMessage[]>;
  /**
   * Every message of `job`, in any stream, waiting or held, in id order. (The messages
   * table holds only work not yet done, and this reads it through; suspending and
   * resuming a job use it.)
   */
  jobMessages(job: string): Promise<StreamMessage[]>;
  /**
   * Moves every message of `job` that nobody holds — never claimed, given back, delayed,
   * or whose lease ran out — into stream `into`, as `{ stream, payload }`, where no worker
   * claims it. A message a claim holds (even one not yet committed) stays. Returns how
   * many moved. A suspended job's work is kept this way.
   */
  parkMessages(job: string, into: string): Promise<number>;
  /**
   * Moves the messages of `job` parked in stream `from` back to the streams they came
   * from, claimable now, or at their time when they were parked before it (a retry's
   * backoff, a delayed start: a pause does not move it); returns how many.
   */
  unparkMessages(job: string, from: string): Promise<number>;
  /** The dead-letter stream, optionally only what came from `stream`. */
  listDeadLetters(stream?: string, limit?: number): Promise<DeadLetter[]>;
  /** One dead letter, by id. */
  getDeadLetter(id: string): Promise<DeadLetter | undefined>;
  /** Moves a dead letter back to its stream with its delivery count reset. */
  requeueDeadLetter(id: string): Promise<string | undefined>;

  // ── timers ────────────────────────────────────────────────────────────
  /** Schedules (or replaces, by key) a wake-up. */
  scheduleTimer(timer: NewTimer): Promise<void>;
  /** Cancels a timer by key; false when none was pending. */
  cancelTimer(key: string): Promise<boolean>;
  /**
   * Fires due timers: each one's message is appended to its stream and the timer is
   * deleted, in one step, so a timer fires once however many processes call this.
   */
  fireDueTimers(now: number, max?: number): Promise<FiredTimer[]>;
  /** When the next timer is due, if any. */
  nextTimerAt(): Promise<number | undefined>;

  // ── signals ───────────────────────────────────────────────────────────
  /**
   * Registers a waiter. When a signal for its key is already buffered, it is consumed
   * and the waiter's message is appended at once (`delivered`); otherwise the waiter
   * waits (`buffered` here means the waiter is stored).
   */
  registerWaiter(waiter: NewWaiter): Promise<SignalOutcome>;
  /** Removes a waiter (a hook that timed out); false when none. */
  removeWaiter(key: string): Promise<boolean>;
  /**
   * Delivers a signal: to the waiter registered for its key (its message is appended
   * with `signal: data`), or, when none waits yet, keeps it for `ttlMs` (default 7 days)
   * so a waiter that registers later receives it.
   */
  deliverSignal(key: string, data: Json, options?: { ttlMs?: number }): Promise<SignalOutcome>;

  // ── history ───────────────────────────────────────────────────────────
  /**
   * Appends lines to their jobs' histories, in order, in one statement: each line gets
   * the next `seq` of its job (several lines of one job get consecutive numbers), also
   * when several transactions write one job's lines at once without holding the job (a
   * claim's attempt starts): a backend serializes the writers of one job's history.
   */
  appendHistory(entries: NewHistoryEntry[]): Promise<void>;
  /** A job's history by `seq`, after `afterSeq`, at most `limit` lines (default 1000). */
  historyOfJob(job: string, query?: HistoryQuery): Promise<HistoryEntry[]>;

  // ── workers ───────────────────────────────────────────────────────────
  /**
   * A worker's heartbeat: records what it serves, with `heartbeatAt` = `at`. The first
   * one for an id also sets `startedAt`; later ones replace what it serves and keep it.
   */
  putWorker(worker: NewWorkerPresence): Promise<void>;
  /** Forgets a worker (it stopped cleanly); false when it was not recorded. */
  removeWorker(id: string): Promise<boolean>;
  /**
   * The workers recorded, in id order; with `since`, only those whose last heartbeat is
   * at or after it (the live ones).
   */
  listWorkers(since?: number): Promise<WorkerPresence[]>;
  /** Forgets every worker whose last heartbeat is before `before` (they died); returns how many. */
  pruneWorkers(before: number): Promise<number>;
  /**
   * For each stream whose name starts with `prefix`, except those in `skip`: its messages
   * nobody holds (never claimed, given back, or their lease ran out) that have been
   * claimable since `before` or earlier — how many (counted up to
   * 1,000: `WAITING_COUNT_CAP` in `stream-prefix.ts`), since when, and the job of the longest-waiting one.
   * Streams with none are left out; in stream order. A few index probes per stream of
   * the prefix, however many messages they hold.
   */
  waitingStreams(
    prefix: string,
    before: number,
    skip?: readonly string[],
  ): Promise<WaitingStream[]>;

  // ── idempotency keys ──────────────────────────────────────────────────
  /**
   * Claims an idempotency key for `claim.job` when it is free (never taken, or expired
   * by `now`); returns the job that holds it after the call: `claim.job` when the claim
   * took it, else the job that already held it. Two transactions claiming one key run
   * one after the other.
   */
  claimIdempotencyKey(claim: IdempotencyClaim, now: number): Promise<string>;
  /** Gives a key to `claim.job` whoever held it (a new start once the old job ended). */
  replaceIdempotencyKey(claim: IdempotencyClaim): Promise<void>;
  /** Deletes the keys expired by `now`; returns how many. */
  pruneIdempotencyKeys(now: number): Promise<number>;

  // ── debounce windows ──────────────────────────────────────────────────
  /**
   * Writes `window` when its workflow and key have none; returns the window stored after
   * the call (`window` itself when it was written). Either way the row stays locked to
   * the end of the transaction: two starts with one key run one after the other.
   */
  claimDebounce(window: DebounceRecord): Promise<DebounceRecord>;
  /** Writes a window whole, over the one of its workflow and key. */
  putDebounce(window: DebounceRecord): Promise<void>;
  /** Deletes the windows that closed before `before`; returns how many. */
  pruneDebounces(before: number): Promise<number>;

  // ── retention ─────────────────────────────────────────────────────────
  /** Writes a workflow's retention policy whole (a new one, or over the one it has). */
  putRetention(record: Omit<RetentionRecord, 'updatedAt'>): Promise<void>;
  /**
   * Deletes a workflow's retention policy (only one declared by `source`, when given);
   * false when there was none.
   */
  deleteRetention(workflow: string, source?: RetentionRecord['source']): Promise<boolean>;
  /** Every workflow's retention policy, by workflow. */
  listRetentions(): Promise<RetentionRecord[]>;
  /**
   * Removes finished jobs and every row they left in any table (`PRUNED_TABLES`), or with
   * `dryRun` counts them. It looks at up to `limit` top jobs — jobs without a parent (or
   * whose parent is gone) that ended before `endedBefore` in one of `states` — in (end
   * time, id) order after `after`, and removes each together with all its descendants,
   * only when every one of them has ended, and before `endedBefore`: never a job that
   * runs, waits, is paused or suspended, nor a child whose parent is kept. A job another
   * transaction holds is passed over (PostgreSQL). One short transaction; a caller goes
   * on with `next`. `ValidationError` for a state that is not final or a bad limit.
   */
  pruneJobs(options: PruneOptions): Promise<PruneResult>;

  // ── queues ────────────────────────────────────────────────────────────
  /** Writes a queue whole: a new one, or every field of an existing one. */
  putQueue(queue: QueueRecord): Promise<void>;
  getQueue(name: string): Promise<QueueRecord | undefined>;
  /**
   * Reads a queue and holds it to the end of the transaction: admissions to one queue
   * run one after the other, so its limits hold across every worker.
   */
  lockQueue(name: string): Promise<QueueRecord | undefined>;
  listQueues(): Promise<QueueRecord[]>;
  deleteQueue(name: string): Promise<boolean>;
  /**
   * Puts a job in a queue, waiting (once: a job already in one stays as it is). The
   * store deletes the item when the job ends, in the move that ends it: that frees its
   * slot, and for a job still waiting drops the messages parked for its admission.
   */
  enqueue(item: NewQueueItem): Promise<void>;
  getQueueItem(job: string): Promise<QueueItem | undefined>;
  /**
   * A queue's waiting items due by `now`: the first `limit` by (priority, seq) and the
   * `limit` oldest, once each, oldest first.
   */
  waitingItems(queue: string, now: number, limit: number): Promise<QueueItem[]>;
  /** A queue's running items, counted per key. */
  runningKeys(queue: string): Promise<{ key: string; running: number }[]>;
  /** Moves waiting items to running; returns how many moved. */
  admitItems(jobs: readonly string[], now: number): Promise<number>;
  /** The queues with a waiting item due by `now`. */
  queuesWaiting(now: number): Promise<string[]>;
  /** Every queue key's running and waiting items. */
  queueCounts(): Promise<QueueKeyCount[]>;

  // ── schedules ─────────────────────────────────────────────────────────
  /** Writes a schedule whole: a new one, or every field of an existing one. */
  putSchedule(schedule: ScheduleRecord): Promise<void>;
  getSchedule(name: string): Promise<ScheduleRecord | undefined>;
  /**
   * Reads a schedule and holds it to the end of the transaction: two transactions that
   * lock one schedule run one after the other, so a tick is handled once.
   */
  lockSchedule(name: string): Promise<ScheduleRecord | undefined>;
  /** Every schedule, by name. */
  listSchedules(): Promise<ScheduleRecord[]>;
  deleteSchedule(name: string): Promise<boolean>;
  /**
   * Names of the schedules not paused that have a tick due by `now`, or a tick held back
   * (`bufferedAt`) that waits for a job to end; at most `limit`.
   */
  dueSchedules(now: number, limit: number): Promise<string[]>;
  /** The earliest `nextAt` of the schedules not paused. */
  nextScheduleAt(): Promise<number | undefined>;
}

/** What a notice listener is told about. */
export type Notice = { kind: 'stream'; name: string } | { kind: 'job'; id: string };

/** A connected store. */
export interface Store extends StoreTx {
  /** `sqlite`, `postgres` or `redis`. */
  readonly dialect: 'sqlite' | 'postgres' | 'redis';
  /** The URL it was opened with, without the password. */
  readonly url: string;
  /**
   * What opening found and did to the schema: the version it found (0 for a new
   * database), the version it is at now, and the migrations it applied.
   */
  readonly migration: MigrationReport;
  /**
   * Runs `fn` in one transaction: everything it does commits together or not at all.
   * Throwing rolls back and rethrows. Notices are sent after commit.
   */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * Calls `listener` when a stream may have work or a job finished. Wake-ups may be
   * spurious and may coalesce; a listener re-reads the store. Returns an unsubscribe.
   */
  subscribe(notice: Notice, listener: () => void): Promise<() => Promise<void>>;
  /** Closes connections and listeners. */
  close(): Promise<void>;
}

/** Which activity record: (job, activity, dimension). */
export interface ActivityKey {
  job: string;
  activity: string;
  /** `''` when absent. */
  dimension?: string;
}

/** A counter add in a unit of work. */
export interface CounterAdd {
  ref: CounterRef;
  delta: bigint;
  initial?: bigint;
  /**
   * The value the planner computed from what it read under the job lock. Applying the
   * unit checks the stored result against it and fails (rolling everything back) when
   * they differ: someone changed the counter while the job was locked.
   */
  expect?: bigint;
}

/** A job state move in a unit of work, with the same checks as {@link StoreTx.setJobState}. */
export interface JobStateMove {
  id: string;
  from: FlowState;
  to: FlowState;
  patch?: JobPatch;
}

/**
 * A unit of work: everything one engine step (or one chain of steps of one job) decided,
 * as data, applied all or nothing by `applyUnit`. The planner reads what it needs under
 * the job lock, decides in memory, and hands the whole decision over in one piece.
 */
export interface UnitOfWork {
  /** The message this step consumed; the unit fails with `LeaseLostError` when it is no longer held. */
  ack?: { stream: string; id: string; consumer: string };
  /** Jobs to create (child jobs), idempotent by id, before anything else of the unit. */
  jobs?: NewJob[];
  /** Journal entries to append (after the jobs are created). */
  journal?: JournalEntry[];
  append?: NewMessage[];
  /** Jobs to put in line in their queues (their first messages appended parked). */
  enqueue?: NewQueueItem[];
  counters?: CounterAdd[];
  activities?: ActivityWrite[];
  /** Timer keys to cancel, before `timers` are scheduled. */
  cancelTimers?: string[];
  timers?: NewTimer[];
  /** Waiter keys to remove, before `waiters` register. */
  removeWaiters?: string[];
  waiters?: NewWaiter[];
  /** Job fields to write without a state move. */
  jobPatches?: { id: string; patch: JobPatch }[];
  /** Job state moves. */
  jobStates?: JobStateMove[];
  /** Lines for the jobs' histories, applied last, in one statement. */
  history?: NewHistoryEntry[];
}

/** Re-exported records, so callers import the contract from one place. */
export type * from './records.js';
export type { Json };
