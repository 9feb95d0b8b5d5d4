/**
 * The SQLite operation groups of one connection, and how they become a {@link StoreTx}:
 * each contract method is a synchronous operation run through an `invoke` that decides
 * the transaction around it (its own, or the caller's open one).
 */
import type { FlowState } from '../../core/states.js';
import type {
  ActivityKey,
  ActivityWrite,
  ClaimOptions,
  CounterAdd,
  CounterRef,
  DebounceRecord,
  DefinitionRecord,
  ErrorRecord,
  HistoryQuery,
  IdempotencyClaim,
  JobFilter,
  JobPatch,
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
  QueuedClaimOptions,
  QueuedPick,
  QueueRecord,
  RetentionRecord,
  ScheduleRecord,
  StoreTx,
  StreamMessage,
} from '../store.js';
import { SqliteActivities } from './ops/activities.js';
import type { OpsContext } from './ops/context.js';
import { SqliteCounters } from './ops/counters.js';
import { SqliteDebounces } from './ops/debounces.js';
import { SqliteDefinitions } from './ops/definitions.js';
import { SqliteHistory } from './ops/history.js';
import { SqliteIdempotency } from './ops/idempotency.js';
import { SqliteJobs } from './ops/jobs.js';
import { SqliteJournal } from './ops/journal.js';
import { SqliteQueues } from './ops/queues.js';
import { SqliteRetention } from './ops/retention.js';
import { SqliteSchedules } from './ops/schedules.js';
import { SqliteSignals } from './ops/signals.js';
import { SqliteStats } from './ops/stats.js';
import { SqliteStreams } from './ops/streams.js';
import { SqliteTimers } from './ops/timers.js';
import { SqliteWorkers } from './ops/workers.js';

/** Every operation group, sharing one connection and its prepared statements. */
export interface SqliteOps {
  jobs: SqliteJobs;
  journal: SqliteJournal;
  definitions: SqliteDefinitions;
  counters: SqliteCounters;
  activities: SqliteActivities;
  streams: SqliteStreams;
  timers: SqliteTimers;
  signals: SqliteSignals;
  history: SqliteHistory;
  stats: SqliteStats;
  workers: SqliteWorkers;
  schedules: SqliteSchedules;
  queues: SqliteQueues;
  idempotency: SqliteIdempotency;
  debounces: SqliteDebounces;
  retention: SqliteRetention;
}

/** Prepares every statement once. */
export function createSqliteOps(ctx: OpsContext): SqliteOps {
  const streams = new SqliteStreams(ctx);
  const queues = new SqliteQueues(ctx);
  return {
    jobs: new SqliteJobs(ctx, queues),
    journal: new SqliteJournal(ctx),
    definitions: new SqliteDefinitions(ctx),
    counters: new SqliteCounters(ctx),
    activities: new SqliteActivities(ctx),
    streams,
    timers: new SqliteTimers(ctx, streams),
    signals: new SqliteSignals(ctx, streams),
    history: new SqliteHistory(ctx),
    stats: new SqliteStats(ctx),
    workers: new SqliteWorkers(ctx),
    schedules: new SqliteSchedules(ctx),
    queues,
    idempotency: new SqliteIdempotency(ctx),
    debounces: new SqliteDebounces(ctx),
    retention: new SqliteRetention(ctx),
  };
}

/** Runs a synchronous operation; `write` says whether it needs the write lock. */
export type Invoke = <T>(write: boolean, op: () => T) => Promise<T>;

const R = false;
const W = true;

/**
 * Rows a set-based call inside a transaction writes or reads per synchronous operation: a
 * spread's hundred thousand rows go in chunks, each call through `invoke` (which yields
 * to the event loop when a turn is due), instead of one stretch of seconds.
 */
export const CHUNK_ROWS = 1000;

/**
 * The contract's methods over `ops`, each run through `invoke`. A class, so a transaction's
 * handle is one small object (its methods live on the prototype).
 */
export class BoundStoreTx implements StoreTx {
  constructor(
    private readonly ops: SqliteOps,
    private readonly invoke: Invoke,
    /**
     * True for a transaction's handle: set-based calls may then run as several operations
     * ({@link CHUNK_ROWS} rows each), as atomic as one inside the open transaction. A
     * call on the Store itself stays one operation, so it stays its own transaction.
     */
    private readonly chunked = false,
  ) {}

  /** `run` over `items`, in chunks when this handle may split a call. */
  private async inChunks<I, O>(write: boolean, items: I[], run: (chunk: I[]) => O[]): Promise<O[]> {
    if (!this.chunked || items.length <= CHUNK_ROWS) return this.invoke(write, () => run(items));
    const out: O[] = [];
    for (let i = 0; i < items.length; i += CHUNK_ROWS) {
      const chunk = items.slice(i, i + CHUNK_ROWS);
      for (const o of await this.invoke(write, () => run(chunk))) out.push(o);
    }
    return out;
  }

  createJob(job: NewJob) {
    return this.invoke(W, () => this.ops.jobs.createJob(job));
  }
  getJob(id: string) {
    return this.invoke(R, () => this.ops.jobs.getJob(id));
  }
  lockJob(id: string) {
    return this.invoke(W, () => this.ops.jobs.getJob(id));
  }
  lockJobs(ids: string[]) {
    return this.invoke(W, () =>
      [...new Set(ids)]
        .sort()
        .map((id) => this.ops.jobs.getJob(id))
        .filter((job) => job !== undefined),
    );
  }
  setJobState(id: string, from: FlowState, to: FlowState, patch?: JobPatch) {
    return this.invoke(W, () => this.ops.jobs.setJobState(id, from, to, patch));
  }
  updateJob(id: string, patch: JobPatch) {
    return this.invoke(W, () => this.ops.jobs.updateJob(id, patch));
  }
  updateJobs(patches: { id: string; patch: JobPatch }[]) {
    return this.invoke(W, () => this.ops.jobs.updateJobs(patches));
  }
  setJobInput(id: string, input: Json) {
    return this.invoke(W, () => this.ops.jobs.setJobInput(id, input));
  }
  listJobs(filter?: JobFilter) {
    return this.invoke(R, () => this.ops.jobs.listJobs(filter));
  }
  countJobs(filter?: JobFilter) {
    return this.invoke(R, () => this.ops.stats.countJobs(filter));
  }
  storeStats(now: number) {
    return this.invoke(R, () => this.ops.stats.storeStats(now));
  }
  lastStep() {
    return this.invoke(R, () => this.ops.stats.lastStep());
  }
  appendJournal(entries: JournalEntry[]) {
    return this.invoke(W, () => this.ops.journal.appendJournal(entries));
  }
  readJournal(job: string, afterSeq?: number) {
    return this.invoke(R, () => this.ops.journal.readJournal(job, afterSeq));
  }
  journalsOfJobs(jobs: string[]) {
    return this.invoke(R, () => this.ops.journal.journalsOfJobs(jobs));
  }
  putDefinition(def: Omit<DefinitionRecord, 'createdAt'>) {
    return this.invoke(W, () => this.ops.definitions.putDefinition(def));
  }
  getDefinition(workflow: string, version?: number) {
    return this.invoke(R, () => this.ops.definitions.getDefinition(workflow, version));
  }
  listDefinitions() {
    return this.invoke(R, () => this.ops.definitions.listDefinitions());
  }
  addCounter(ref: CounterRef, delta: bigint, initial?: bigint) {
    return this.invoke(W, () => this.ops.counters.addCounter(ref, delta, initial));
  }
  getCounters(refs: CounterRef[]) {
    return this.inChunks(R, refs, (chunk) => chunk.map((ref) => this.ops.counters.getCounter(ref)));
  }
  addCounters(adds: CounterAdd[]) {
    return this.inChunks(W, adds, (chunk) =>
      chunk.map((a) => this.ops.counters.addCounter(a.ref, a.delta, a.initial)),
    );
  }
  getCounter(ref: CounterRef) {
    return this.invoke(R, () => this.ops.counters.getCounter(ref));
  }
  listCounters(job: string) {
    return this.invoke(R, () => this.ops.counters.listCounters(job));
  }
  countersOfJobs(jobs: string[], dimensions?: string[]) {
    return this.invoke(R, () => this.ops.counters.countersOfJobs(jobs, dimensions));
  }
  putActivity(write: ActivityWrite) {
    return this.invoke(W, () => this.ops.activities.putActivity(write));
  }
  async putActivities(writes: ActivityWrite[]) {
    await this.inChunks(W, writes, (chunk) => {
      this.ops.activities.putActivities(chunk);
      return [];
    });
  }
  getActivities(keys: ActivityKey[]) {
    return this.inChunks(R, keys, (chunk) =>
      chunk.map((k) => this.ops.activities.getActivity(k.job, k.activity, k.dimension)),
    );
  }
  getActivity(job: string, activity: string, dimension?: string) {
    return this.invoke(R, () => this.ops.activities.getActivity(job, activity, dimension));
  }
  listActivities(job: string) {
    return this.invoke(R, () => this.ops.activities.listActivities(job));
  }
  activitiesOfJobs(jobs: string[], dimensions?: string[]) {
    return this.invoke(R, () =>
      [...new Set(jobs)].flatMap((job) =>
        dimensions
          ? this.ops.activities.activitiesInDimensions(job, dimensions)
          : this.ops.activities.listActivities(job),
      ),
    );
  }
  newestActivities(job: string, activities?: string[]) {
    return this.invoke(R, () => this.ops.activities.newestActivities(job, activities));
  }
  append(messages: NewMessage[]) {
    return this.inChunks(W, messages, (chunk) => this.ops.streams.append(chunk));
  }
  claim(stream: string, options: ClaimOptions) {
    return this.invoke(W, () => this.ops.streams.claim(stream, options));
  }
  claimableMessages(
    stream: string,
    now: number,
    limit: number,
    after?: Pick<StreamMessage, 'id' | 'availableAt'>,
  ) {
    return this.invoke(R, () => this.ops.streams.claimableMessages(stream, now, limit, after));
  }
  claimQueued(stream: string, picks: readonly QueuedPick[], options: QueuedClaimOptions) {
    return this.invoke(W, () => this.ops.streams.claimQueued(stream, picks, options));
  }
  queueHeld(queue: string, now: number) {
    return this.invoke(R, () => this.ops.streams.queueHeld(queue, now));
  }
  ack(stream: string, id: string, consumer: string) {
    return this.invoke(W, () => this.ops.streams.ack(stream, id, consumer));
  }
  ackMany(stream: string, ids: string[], consumer: string) {
    return this.inChunks(W, ids, (chunk) =>
      chunk.filter((id) => this.ops.streams.ack(stream, id, consumer)),
    );
  }
  extendLease(stream: string, ids: string[], consumer: string, leaseMs: number) {
    return this.invoke(W, () => this.ops.streams.extendLease(stream, ids, consumer, leaseMs));
  }
  release(stream: string, id: string, consumer: string, delayMs?: number, lastError?: ErrorRecord) {
    return this.invoke(W, () => this.ops.streams.release(stream, id, consumer, delayMs, lastError));
  }
  deadLetter(
    stream: string,
    id: string,
    consumer: string,
    reason: string,
    lastError?: ErrorRecord,
  ) {
    return this.invoke(W, () =>
      this.ops.streams.deadLetter(stream, id, consumer, reason, lastError),
    );
  }
  remove(stream: string, ids: string[]) {
    return this.invoke(W, () => this.ops.streams.remove(stream, ids));
  }
  reclaimExpired(stream: string, options?: { maxDeliveries?: number }) {
    return this.invoke(W, () => this.ops.streams.reclaimExpired(stream, options));
  }
  countMessages(stream?: string) {
    return this.invoke(R, () => this.ops.streams.countMessages(stream));
  }
  jobMessages(job: string) {
    return this.invoke(R, () => this.ops.streams.jobMessages(job));
  }
  parkMessages(job: string, into: string) {
    return this.invoke(W, () => this.ops.streams.parkMessages(job, into));
  }
  unparkMessages(job: string, from: string) {
    return this.invoke(W, () => this.ops.streams.unparkMessages(job, from));
  }
  peek(stream: string, limit?: number) {
    return this.invoke(R, () => this.ops.streams.peek(stream, limit));
  }
  listDeadLetters(stream?: string, limit?: number) {
    return this.invoke(R, () => this.ops.streams.listDeadLetters(stream, limit));
  }
  getDeadLetter(id: string) {
    return this.invoke(R, () => this.ops.streams.getDeadLetter(id));
  }
  requeueDeadLetter(id: string) {
    return this.invoke(W, () => this.ops.streams.requeueDeadLetter(id));
  }
  scheduleTimer(timer: NewTimer) {
    return this.invoke(W, () => this.ops.timers.scheduleTimer(timer));
  }
  cancelTimer(key: string) {
    return this.invoke(W, () => this.ops.timers.cancelTimer(key));
  }
  fireDueTimers(now: number, max?: number) {
    return this.invoke(W, () => this.ops.timers.fireDueTimers(now, max));
  }
  nextTimerAt() {
    return this.invoke(R, () => this.ops.timers.nextTimerAt());
  }
  registerWaiter(waiter: NewWaiter) {
    return this.invoke(W, () => this.ops.signals.registerWaiter(waiter));
  }
  removeWaiter(key: string) {
    return this.invoke(W, () => this.ops.signals.removeWaiter(key));
  }
  deliverSignal(key: string, data: Json, options?: { ttlMs?: number }) {
    return this.invoke(W, () => this.ops.signals.deliverSignal(key, data, options));
  }
  async appendHistory(entries: NewHistoryEntry[]) {
    await this.inChunks(W, entries, (chunk) => {
      this.ops.history.appendHistory(chunk);
      return [];
    });
  }
  historyOfJob(job: string, query?: HistoryQuery) {
    return this.invoke(R, () => this.ops.history.historyOfJob(job, query));
  }
  putWorker(worker: NewWorkerPresence) {
    return this.invoke(W, () => this.ops.workers.putWorker(worker));
  }
  removeWorker(id: string) {
    return this.invoke(W, () => this.ops.workers.removeWorker(id));
  }
  listWorkers(since?: number) {
    return this.invoke(R, () => this.ops.workers.listWorkers(since));
  }
  pruneWorkers(before: number) {
    return this.invoke(W, () => this.ops.workers.pruneWorkers(before));
  }
  waitingStreams(prefix: string, before: number, skip?: readonly string[]) {
    return this.invoke(R, () => this.ops.workers.waitingStreams(prefix, before, skip));
  }
  putSchedule(schedule: ScheduleRecord) {
    return this.invoke(W, () => this.ops.schedules.putSchedule(schedule));
  }
  getSchedule(name: string) {
    return this.invoke(R, () => this.ops.schedules.getSchedule(name));
  }
  lockSchedule(name: string) {
    return this.invoke(W, () => this.ops.schedules.getSchedule(name));
  }
  listSchedules() {
    return this.invoke(R, () => this.ops.schedules.listSchedules());
  }
  deleteSchedule(name: string) {
    return this.invoke(W, () => this.ops.schedules.deleteSchedule(name));
  }
  dueSchedules(now: number, limit: number) {
    return this.invoke(R, () => this.ops.schedules.dueSchedules(now, limit));
  }
  nextScheduleAt() {
    return this.invoke(R, () => this.ops.schedules.nextScheduleAt());
  }
  putQueue(queue: QueueRecord) {
    return this.invoke(W, () => this.ops.queues.putQueue(queue));
  }
  getQueue(name: string) {
    return this.invoke(R, () => this.ops.queues.getQueue(name));
  }
  lockQueue(name: string) {
    return this.invoke(W, () => this.ops.queues.getQueue(name));
  }
  listQueues() {
    return this.invoke(R, () => this.ops.queues.listQueues());
  }
  deleteQueue(name: string) {
    return this.invoke(W, () => this.ops.queues.deleteQueue(name));
  }
  enqueue(item: NewQueueItem) {
    return this.invoke(W, () => this.ops.queues.enqueue(item));
  }
  getQueueItem(job: string) {
    return this.invoke(R, () => this.ops.queues.getQueueItem(job));
  }
  waitingItems(queue: string, now: number, limit: number) {
    return this.invoke(R, () => this.ops.queues.waitingItems(queue, now, limit));
  }
  runningKeys(queue: string) {
    return this.invoke(R, () => this.ops.queues.runningKeys(queue));
  }
  admitItems(jobs: readonly string[], now: number) {
    return this.invoke(W, () => this.ops.queues.admitItems(jobs, now));
  }
  queuesWaiting(now: number) {
    return this.invoke(R, () => this.ops.queues.queuesWaiting(now));
  }
  queueCounts() {
    return this.invoke(R, () => this.ops.queues.queueCounts());
  }
  claimIdempotencyKey(claim: IdempotencyClaim, now: number) {
    return this.invoke(W, () => this.ops.idempotency.claimIdempotencyKey(claim, now));
  }
  replaceIdempotencyKey(claim: IdempotencyClaim) {
    return this.invoke(W, () => this.ops.idempotency.replaceIdempotencyKey(claim));
  }
  pruneIdempotencyKeys(now: number) {
    return this.invoke(W, () => this.ops.idempotency.pruneIdempotencyKeys(now));
  }
  claimDebounce(window: DebounceRecord) {
    return this.invoke(W, () => this.ops.debounces.claimDebounce(window));
  }
  putDebounce(window: DebounceRecord) {
    return this.invoke(W, () => this.ops.debounces.putDebounce(window));
  }
  pruneDebounces(before: number) {
    return this.invoke(W, () => this.ops.debounces.pruneDebounces(before));
  }
  putRetention(record: Omit<RetentionRecord, 'updatedAt'>) {
    return this.invoke(W, () => this.ops.retention.putRetention(record));
  }
  deleteRetention(workflow: string, source?: RetentionRecord['source']) {
    return this.invoke(W, () => this.ops.retention.deleteRetention(workflow, source));
  }
  listRetentions() {
    return this.invoke(R, () => this.ops.retention.listRetentions());
  }
  pruneJobs(options: PruneOptions) {
    return this.invoke(options.dryRun ? R : W, () => this.ops.retention.pruneJobs(options));
  }
}
