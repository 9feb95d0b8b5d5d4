/**
 * The plain records a {@link Store} reads and writes. JSON values are stored as JSON;
 * counters as arbitrary-precision integers (`bigint` here, NUMERIC or TEXT in a database).
 */

import type { RetentionPolicy } from '../core/retention.js';
import type { CheckedSchedule, OverlapPolicy } from '../core/schedule-rules.js';
import type { ActivityState, FlowState } from '../core/states.js';

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON-safe error. */
export interface ErrorRecord {
  name: string;
  message: string;
  code?: string;
  stack?: string;
  [key: string]: Json | undefined;
}

/** Which engine runs a job. */
export type JobModel = 'graph' | 'durable';

/** One job: a run of one version of one workflow. */
export interface JobRecord {
  id: string;
  workflow: string;
  version: number;
  model: JobModel;
  state: FlowState;
  input: Json;
  output: Json;
  error: ErrorRecord | null;
  /** The engine's own document for this job (the code-first instance structure, say). */
  context: Json;
  parentId: string | null;
  parentActivity: string | null;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  /**
   * The W3C trace context the job's spans continue (docs/tracing.md), when it was started
   * with one: absent otherwise. Written once, when the job is created.
   */
  trace?: TraceContext;
}

/**
 * A W3C trace context as stored with a job: the `traceparent` header's value and, when
 * the trace has one, the `tracestate` header's.
 */
export interface TraceContext {
  /** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`. */
  traceparent: string;
  tracestate?: string;
}

/** What a caller gives to create a job. */
export interface NewJob {
  id: string;
  workflow: string;
  version: number;
  model: JobModel;
  input: Json;
  state?: FlowState;
  context?: Json;
  parentId?: string | null;
  parentActivity?: string | null;
  /** Epoch milliseconds; the store's clock when absent. */
  createdAt?: number;
  /** The trace context its spans continue (see {@link JobRecord.trace}). */
  trace?: TraceContext;
}

/** Changes to a job beside its state. Absent fields are left as they are. */
export interface JobPatch {
  output?: Json;
  error?: ErrorRecord | null;
  context?: Json;
  finishedAt?: number | null;
}

/** Filters for listing jobs. All are optional and combine with AND. */
export interface JobFilter {
  state?: FlowState | FlowState[];
  workflow?: string;
  parentId?: string;
  /** Inclusive lower bound on `createdAt`. */
  createdAfter?: number;
  /** Exclusive upper bound on `createdAt`. */
  createdBefore?: number;
  /** Page size (default 100). */
  limit?: number;
  /**
   * Return jobs that come after this id in the listing's order (keyset paging; ids sort
   * by creation time): greater ids ascending, smaller ids with `descending`.
   */
  after?: string;
  /** Newest first when true. */
  descending?: boolean;
}

/**
 * One entry of a job's journal: an append-only record the engine keeps beside the job
 * (a code-first instance's branches, executions, statuses, properties versions, waits
 * and buffer). Entries are numbered from 1 per job and never change once written.
 */
export interface JournalEntry {
  job: string;
  /** 1, 2, 3…: the entry's place in its job's journal. */
  seq: number;
  /** What the entry records, in the engine's own words (`status`, `branch`…). */
  kind: string;
  /** Which item of that kind it records (an index, a uuid). */
  key: string;
  data: Json;
}

/** A named counter: a field of a job, or of one activity (and dimension) of a job. */
export interface CounterRef {
  job: string;
  /** Absent for a job-level counter such as the collation key. */
  activity?: string;
  /** The dimensional thread, `''` when absent. */
  dimension?: string;
  field: string;
}

/** An activity's stored data, per (job, activity, dimension). */
export interface ActivityRecord {
  job: string;
  activity: string;
  dimension: string;
  /** Its state on the task machine (a retry controller's on the retry machine). */
  status: ActivityState;
  input: Json;
  output: Json;
  error: ErrorRecord | null;
  attempt: number;
  /** When the activity started (epoch ms), null until it has. */
  startedAt: number | null;
  /** When the activity ended (epoch ms), null until it has. */
  finishedAt: number | null;
  updatedAt: number;
}

/** A write to an activity's data; absent fields keep their stored value (or the default). */
export interface ActivityWrite {
  job: string;
  activity: string;
  dimension?: string;
  status?: ActivityState;
  input?: Json;
  output?: Json;
  error?: ErrorRecord | null;
  attempt?: number;
  /** Epoch ms (null clears it). */
  startedAt?: number | null;
  /** Epoch ms (null clears it). */
  finishedAt?: number | null;
}

/** A message to append to a stream. */
export interface NewMessage {
  stream: string;
  payload: Json;
  /** The job this message belongs to, when it belongs to one. */
  job?: string | null;
  /** Not claimable before this epoch-ms time (a delay). */
  availableAt?: number;
  /**
   * Appends it already claimed by `consumer`, as if claimed in the same transaction:
   * delivered once, held until the lease ends (then claimable again, as any lease), and
   * no notice is sent for it, since nobody else could claim it. A worker uses it for work
   * it runs itself right after the commit. A message not yet due (`availableAt` later
   * than now) is not claimed: it is appended as any delayed message, claimable by anyone
   * once its time has come.
   */
  claim?: { consumer: string; leaseMs: number };
}

/** A message in a stream. */
export interface StreamMessage {
  id: string;
  stream: string;
  payload: Json;
  job: string | null;
  /** How many times it has been claimed, this claim included. */
  deliveries: number;
  /** Who holds it, when claimed. */
  consumer: string | null;
  /** When the current lease ends (epoch ms), when claimed. */
  leaseUntil: number | null;
  createdAt: number;
  availableAt: number;
  /** The error it was last given back with ({@link StoreTx.release}), if any. */
  lastError?: ErrorRecord | null;
  /**
   * Set by a claim that took the message over from a holder whose lease ran out (its
   * holder died, or stalled): that holder's consumer id. Absent otherwise.
   */
  previousConsumer?: string;
}

/** Options for claiming messages. */
export interface ClaimOptions {
  /** Who claims; the holder must be named again to ack or extend. */
  consumer: string;
  /** The most messages to claim (default 1). */
  max?: number;
  /** How long the lease lasts, in ms. */
  leaseMs: number;
  /**
   * A message already delivered this many times is moved to the dead-letter stream
   * instead of being delivered again (default: never).
   */
  maxDeliveries?: number;
  /**
   * The most messages of the stream held under a live lease at once, by any consumer,
   * this claim's included: it claims no more than the rest (a task's concurrency across
   * every worker). Claims of one stream with it run one after the other within their
   * transactions; messages appended already claimed are not held back by it.
   */
  maxHeld?: number;
}

/** A message a claim through a queue picked, with the queue key it is held under. */
export interface QueuedPick {
  id: string;
  key: string;
}

/** How a claim through a queue takes its picks. */
export interface QueuedClaimOptions {
  consumer: string;
  leaseMs: number;
  /** The queue whose held attempts they count in while their leases live. */
  queue: string;
}

/** A message moved aside after too many deliveries. */
export interface DeadLetter {
  id: string;
  stream: string;
  payload: Json;
  job: string | null;
  deliveries: number;
  reason: string;
  /** The error the message was last given back with, when one was recorded. */
  lastError: ErrorRecord | null;
  createdAt: number;
  deadAt: number;
}

/** A durable wake-up: at `at`, `message` is appended to its stream. */
export interface NewTimer {
  /** Unique key; scheduling an existing key replaces that timer. */
  key: string;
  at: number;
  message: NewMessage;
}

/** A timer that fired: its message is now in its stream. */
export interface FiredTimer {
  key: string;
  at: number;
  messageId: string;
}

/** A waiter for a signal: when the signal arrives, `message` plus the signal's data is appended. */
export interface NewWaiter {
  /** The signal key, e.g. `<job>:<signal name>`. */
  key: string;
  job?: string | null;
  /** Appended when the signal comes; its payload gains a `signal` field with the data. */
  message: NewMessage;
}

/** What became of a signal or a waiter. */
export interface SignalOutcome {
  /** `delivered`: a waiter took it now; `buffered`: kept until a waiter comes. */
  status: 'delivered' | 'buffered';
  /** The message appended for the waiter, when delivered. */
  messageId?: string;
}

/** A stored workflow definition. */
export interface DefinitionRecord {
  workflow: string;
  version: number;
  model: JobModel;
  /** The compiled, JSON-safe definition. */
  definition: Json;
  /** The text it came from, when it came from a file. */
  source: string | null;
  createdAt: number;
}

/**
 * One line of a job's history, as an engine plans it: what one committed step (a
 * message, an inline step, a decision, a start or a cancel) changed. The store numbers
 * it: `seq` per job (1, 2, 3… in commit order) and `id` across the store.
 */
export interface NewHistoryEntry {
  job: string;
  /** What happened: `start`, `enter`, `task`, `signal`, `decision`, `end`… */
  kind: string;
  /** The activity (graph) or work id (code-first) it is about, when one. */
  activity?: string | null;
  /** The dimensional thread, `''` when absent. */
  dimension?: string;
  /** What changed, as JSON (digits before and after, the key, a status, works added…). */
  change: Json;
  /** Epoch ms; the store's clock when absent. */
  at?: number;
  /** Who committed it: the worker's consumer id; null for a client. */
  worker?: string | null;
}

/** A stored line of a job's history. */
export interface HistoryEntry {
  /** Monotonic across the store (a string, like message ids). */
  id: string;
  job: string;
  /** 1, 2, 3… per job, in commit order. */
  seq: number;
  kind: string;
  activity: string | null;
  dimension: string;
  change: Json;
  at: number;
  worker: string | null;
}

/** Which lines of a job's history to read. */
export interface HistoryQuery {
  /** Only lines after this `seq` (keyset paging). */
  afterSeq?: number;
  /** At most this many (default 1000). */
  limit?: number;
}

/** Jobs by state, for a filter's workflow, parent and time bounds. Absent states are 0. */
export type JobCounts = Partial<Record<FlowState, number>>;

/** One stream's depth as the dashboard and `/metrics` show it. */
export interface StreamStat {
  stream: string;
  /** Messages on the stream (waiting or held). */
  messages: number;
  /** Held by a consumer whose lease has not run out. */
  claimed: number;
  /** Held by a consumer whose lease ran out (a worker that died or stalled). */
  expiredLeases: number;
  /** Dead letters that came from this stream. */
  deadLetters: number;
}

/**
 * Store-wide numbers for `/metrics`: cheap reads only (indexes, a rowid high-water mark),
 * none of which grows with the finished jobs the store keeps.
 */
export interface StoreStats {
  /** Unfinished jobs by state (read over the state index; finished states are absent). */
  jobs: JobCounts;
  streams: StreamStat[];
  /** History lines ever written (the high-water mark of their ids): engine steps so far. */
  steps: number;
}

/** A worker saying it runs, and what it serves (`putWorker`). */
export interface NewWorkerPresence {
  /** The worker's consumer id (the name on its claims and history lines). */
  id: string;
  /** Task names it has handlers for (it claims from `task:<name>`). */
  tasks: string[];
  /** Engine streams it runs steps from (`engine`, `durable`, `decide:<workflow>`). */
  streams: string[];
  /** Code-first workflows it has the code of. */
  workflows: string[];
  /** Epoch ms of this heartbeat. */
  at: number;
}

/** A worker as the store knows it: what it serves, since when, and its last heartbeat. */
export interface WorkerPresence {
  id: string;
  tasks: string[];
  streams: string[];
  workflows: string[];
  /** Its first heartbeat (epoch ms). */
  startedAt: number;
  /** Its last heartbeat (epoch ms). */
  heartbeatAt: number;
}

/** Messages of one stream that nobody holds and that have been claimable for a while (`waitingStreams`). */
export interface WaitingStream {
  stream: string;
  /** How many, counted up to `WAITING_COUNT_CAP` (1,000): a count stops there. */
  messages: number;
  /** When the longest-waiting one became claimable (epoch ms). */
  since: number;
  /** That message's job, when it has one. */
  job: string | null;
}

/** A cron schedule as the store keeps it (`putSchedule`): what it starts, and where it stands. */
export interface ScheduleRecord extends CheckedSchedule {
  /** Every tick's job input. */
  input: Json;
  /** A paused schedule starts nothing; its ticks meanwhile are skipped. */
  paused: boolean;
  /** The first tick not handled yet (epoch ms); null when the expression has no more. */
  nextAt: number | null;
  /** A tick held back (`buffer_one`) until the running job ends. */
  bufferedAt: number | null;
  /** The newest tick handled, started or not. */
  lastTickAt: number | null;
  /** The job of the newest tick started. */
  lastJob: string | null;
  /** Why the newest tick's start failed (a workflow not deployed, an input its schema refuses). */
  lastError: string | null;
  /** Ticks that started a job. */
  runs: number;
  /** Ticks skipped: by the overlap policy, the catch-up window, or a pause. */
  skipped: number;
  /** Who declared it: `cli`, `code` (a worker's `schedules`), `file` (a workflow file) or `api`. */
  source: string;
  createdAt: number;
  updatedAt: number;
}

export type { OverlapPolicy };

/** A queue: how many of its jobs may run at once, per key, and how fast they may start. */
export interface QueueRecord {
  name: string;
  /** Most of its jobs running at once, across every worker (null: no limit). */
  concurrency: number | null;
  /** Most jobs of one key running at once (null: no limit). */
  keyConcurrency: number | null;
  /** Most jobs started per `ratePeriodMs` (null: no limit). */
  rateLimit: number | null;
  ratePeriodMs: number | null;
  /**
   * How long a job may wait before it counts as one priority higher (lower number), and
   * one more for each such time again: what keeps low priorities from starving.
   */
  agingMs: number;
  /** Most jobs of one key started per `keyRatePeriodMs` (null: no limit). */
  keyRateLimit: number | null;
  keyRatePeriodMs: number | null;
  /**
   * What a start beyond a rate limit does: `wait` for its turn (the default), or `drop`:
   * the start is refused (`RATE_LIMITED`) and nothing is stored.
   */
  throttle: QueueThrottle;
  /** The rate limiter's state: the theoretical arrival time of the next start (epoch ms). */
  rateTat: number;
  /** The per-key rate limiter's state, by key: only keys whose next start is still held back. */
  keyTats: Record<string, number>;
  /** The key admitted last: the next admission's turn starts after it (round-robin). */
  lastKey: string | null;
  /** How long its admitted jobs waited, counted as they are admitted. */
  waits: QueueWaits;
  /** Who declared it: `cli`, `code`, `file` or `api`. */
  source: string;
  createdAt: number;
  updatedAt: number;
}

/** What a start beyond a queue's rate limit does. */
export type QueueThrottle = 'wait' | 'drop';

/** A queue's admitted jobs' waits: a count, a sum and a cumulative histogram. */
export interface QueueWaits {
  count: number;
  sumMs: number;
  /** Per bound of `QUEUE_WAIT_BOUNDS_S` (store/queue-rules.ts): how many waited at most that long. */
  buckets: number[];
}

/** A job waiting in a queue or running on its slot (`enqueue`). */
export interface QueueItem {
  job: string;
  queue: string;
  /** Its key for per-key limits (`''` when it has none). */
  key: string;
  /** Lower runs first. */
  priority: number;
  /** Enqueue order, growing across the store: first in, first out within a priority. */
  seq: number;
  state: 'waiting' | 'running';
  enqueuedAt: number;
  /** Not admitted before this (a delayed start). */
  availableAt: number;
  admittedAt: number | null;
}

/** A job to put in a queue: waiting, or (with `admittedAt`) admitted at once. */
export type NewQueueItem = Pick<QueueItem, 'job' | 'queue' | 'key' | 'priority' | 'availableAt'> & {
  admittedAt?: number;
};

/** One queue key's jobs by state, for `weft queues`. */
export interface QueueKeyCount {
  queue: string;
  key: string;
  running: number;
  waiting: number;
  /** When its longest-waiting job was enqueued (epoch ms), or null with none waiting. */
  oldestWaiting: number | null;
  /** Task attempts of this key running through the queue (claimed through it, lease live). */
  attempts?: number;
}

/** A start's claim on an idempotency key (`claimIdempotencyKey`). */
export interface IdempotencyClaim {
  workflow: string;
  key: string;
  /** The job that would hold it. */
  job: string;
  /** When the key is free again (epoch ms). */
  expiresAt: number;
}

/** How a debounced start runs: after the last start in its window, or at the first. */
export type DebounceMode = 'trailing' | 'leading';

/**
 * A debounce window of a workflow's key (`Client.start`'s `debounce`): the job every
 * start in the window gets, and until when the window is open.
 */
export interface DebounceRecord {
  workflow: string;
  key: string;
  /** The job the window's starts get. */
  job: string;
  mode: DebounceMode;
  /** When the window opened (its first start; `maxDelayMs` counts from here). */
  firstAt: number;
  /** When it closes: the job's start time (trailing), or the end of the window (leading). */
  untilAt: number;
  /** How many starts the window has taken. */
  starts: number;
  /** Trailing: the job's first messages, held by timers until `untilAt`. */
  held: NewMessage[];
}

/**
 * A workflow's retention policy as the store keeps it: declared by a deployed file's
 * `retention:` (`file`) or a code-first definition's `retention` option (`code`).
 */
export interface RetentionRecord {
  workflow: string;
  policy: RetentionPolicy;
  source: 'file' | 'code';
  /** Epoch ms; the store's clock when written. */
  updatedAt: number;
}

/** Where a prune went on to (`pruneJobs`): the last job it looked at, in (end time, id) order. */
export interface PruneCursor {
  finishedAt: number;
  id: string;
}

/** Which finished jobs `pruneJobs` removes (see {@link PruneResult}). */
export interface PruneOptions {
  /** Jobs that ended before this (epoch ms); a job's whole family must have. */
  endedBefore: number;
  /** The end states a top job may be in (default every final state). */
  states?: readonly FlowState[];
  /** Only top jobs of this workflow. */
  workflow?: string;
  /** Not the top jobs of these workflows. */
  exceptWorkflows?: readonly string[];
  /** At most this many top jobs are looked at (default 100), each with its descendants. */
  limit?: number;
  /** Only top jobs after this one, in (end time, id) order: the `next` of the call before. */
  after?: PruneCursor;
  /** Count what would be removed, remove nothing. */
  dryRun?: boolean;
}

/** What `pruneJobs` removed (or, dry, would remove). */
export interface PruneResult {
  /** Every job removed, top jobs and their descendants. */
  jobs: string[];
  /** Rows removed per table (its name without `weft_`), every table of `PRUNED_TABLES` (pruned-tables.ts). */
  rows: Record<string, number>;
  /**
   * Present when `limit` top jobs were looked at: more may follow; pass it as `after`.
   * (Top jobs kept, because a descendant still runs, are passed over, not looked at again.)
   */
  next?: PruneCursor;
}
