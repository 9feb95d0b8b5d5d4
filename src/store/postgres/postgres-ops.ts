/**
 * The contract's methods over the PostgreSQL operation groups. Each method hands its
 * operation to an `invoke` that decides where it runs: on the open transaction's client,
 * or directly on the pool (`atomic` operations — those of several statements that must
 * commit together — get a short transaction of their own there).
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
import { activities } from './ops/activities.js';
import type { Db } from './ops/context.js';
import { counters } from './ops/counters.js';
import { deadLetters } from './ops/dead-letters.js';
import { debounces } from './ops/debounces.js';
import { definitions } from './ops/definitions.js';
import { history } from './ops/history.js';
import { idempotency } from './ops/idempotency.js';
import { jobs } from './ops/jobs.js';
import { journal } from './ops/journal.js';
import { queues } from './ops/queues.js';
import { retention } from './ops/retention.js';
import { schedules } from './ops/schedules.js';
import { signals } from './ops/signals.js';
import { stats } from './ops/stats.js';
import { streams } from './ops/streams.js';
import { timers } from './ops/timers.js';
import { workers } from './ops/workers.js';

/** Runs an operation; `atomic` says its statements must share one transaction. */
export type Invoke = <T>(atomic: boolean, op: (db: Db) => Promise<T>) => Promise<T>;

const ONE = false;
const ATOMIC = true;

/** The contract over `invoke`: a class, so a transaction's handle is one small object. */
export class PostgresStoreTx implements StoreTx {
  /**
   * `deferHistory` takes history lines a transaction writes with its COMMIT (true), or
   * leaves them to be written now (false).
   */
  constructor(
    private readonly invoke: Invoke,
    private readonly deferHistory: (entries: NewHistoryEntry[]) => boolean = () => false,
  ) {}

  createJob(job: NewJob) {
    return this.invoke(ONE, (db) => jobs.createJob(db, job));
  }
  getJob(id: string) {
    return this.invoke(ONE, (db) => jobs.getJob(db, id));
  }
  lockJob(id: string) {
    return this.invoke(ONE, (db) => jobs.lockJob(db, id));
  }
  lockJobs(ids: string[]) {
    return this.invoke(ONE, (db) => jobs.lockJobs(db, ids));
  }
  setJobState(id: string, from: FlowState, to: FlowState, patch?: JobPatch) {
    return this.invoke(ONE, (db) => jobs.setJobState(db, id, from, to, patch));
  }
  updateJob(id: string, patch: JobPatch) {
    return this.invoke(ONE, (db) => jobs.updateJob(db, id, patch));
  }
  updateJobs(patches: { id: string; patch: JobPatch }[]) {
    return this.invoke(ONE, (db) => jobs.updateJobs(db, patches));
  }
  setJobInput(id: string, input: Json) {
    return this.invoke(ONE, (db) => jobs.setJobInput(db, id, input));
  }
  listJobs(filter?: JobFilter) {
    return this.invoke(ONE, (db) => jobs.listJobs(db, filter));
  }
  countJobs(filter?: JobFilter) {
    return this.invoke(ONE, (db) => stats.countJobs(db, filter));
  }
  storeStats(now: number) {
    return this.invoke(ONE, (db) => stats.storeStats(db, now));
  }
  lastStep() {
    return this.invoke(ONE, (db) => stats.lastStep(db));
  }
  appendJournal(entries: JournalEntry[]) {
    return this.invoke(ONE, (db) => journal.appendJournal(db, entries));
  }
  readJournal(job: string, afterSeq?: number) {
    return this.invoke(ONE, (db) => journal.readJournal(db, job, afterSeq));
  }
  journalsOfJobs(jobs: string[]) {
    return this.invoke(ONE, (db) => journal.journalsOfJobs(db, jobs));
  }
  putDefinition(def: Omit<DefinitionRecord, 'createdAt'>) {
    return this.invoke(ONE, (db) => definitions.putDefinition(db, def));
  }
  getDefinition(workflow: string, version?: number) {
    return this.invoke(ONE, (db) => definitions.getDefinition(db, workflow, version));
  }
  listDefinitions() {
    return this.invoke(ONE, (db) => definitions.listDefinitions(db));
  }
  addCounter(ref: CounterRef, delta: bigint, initial?: bigint) {
    return this.invoke(ONE, (db) => counters.addCounter(db, ref, delta, initial));
  }
  getCounter(ref: CounterRef) {
    return this.invoke(ONE, (db) => counters.getCounter(db, ref));
  }
  countersOfJobs(jobs: string[], dimensions?: string[]) {
    return this.invoke(ONE, (db) => counters.countersOfJobs(db, jobs, dimensions));
  }
  getCounters(refs: CounterRef[]) {
    return this.invoke(ONE, (db) => counters.getCounters(db, refs));
  }
  addCounters(adds: CounterAdd[]) {
    return this.invoke(ATOMIC, (db) => counters.addCounters(db, adds));
  }
  listCounters(job: string) {
    return this.invoke(ONE, (db) => counters.listCounters(db, job));
  }
  putActivity(write: ActivityWrite) {
    return this.invoke(ONE, (db) => activities.putActivity(db, write));
  }
  getActivity(job: string, activity: string, dimension?: string) {
    return this.invoke(ONE, (db) => activities.getActivity(db, job, activity, dimension));
  }
  activitiesOfJobs(jobs: string[], dimensions?: string[]) {
    return this.invoke(ONE, (db) => activities.activitiesOfJobs(db, jobs, dimensions));
  }
  newestActivities(job: string, names?: string[]) {
    return this.invoke(ONE, (db) => activities.newestActivities(db, job, names));
  }
  getActivities(keys: ActivityKey[]) {
    return this.invoke(ONE, (db) => activities.getActivities(db, keys));
  }
  putActivities(writes: ActivityWrite[]) {
    return this.invoke(ONE, (db) => activities.putActivities(db, writes));
  }
  listActivities(job: string) {
    return this.invoke(ONE, (db) => activities.listActivities(db, job));
  }
  append(messages: NewMessage[]) {
    return this.invoke(ONE, (db) => streams.append(db, messages));
  }
  claim(stream: string, options: ClaimOptions) {
    return this.invoke(ONE, (db) => streams.claim(db, stream, options));
  }
  claimableMessages(
    stream: string,
    now: number,
    limit: number,
    after?: Pick<StreamMessage, 'id' | 'availableAt'>,
  ) {
    return this.invoke(ONE, (db) => streams.claimableMessages(db, stream, now, limit, after));
  }
  claimQueued(stream: string, picks: readonly QueuedPick[], options: QueuedClaimOptions) {
    return this.invoke(ONE, (db) => streams.claimQueued(db, stream, picks, options));
  }
  queueHeld(queue: string, now: number) {
    return this.invoke(ONE, (db) => streams.queueHeld(db, queue, now));
  }
  ack(stream: string, id: string, consumer: string) {
    return this.invoke(ONE, (db) => streams.ack(db, stream, id, consumer));
  }
  ackMany(stream: string, ids: string[], consumer: string) {
    return this.invoke(ONE, (db) => streams.ackMany(db, stream, ids, consumer));
  }
  extendLease(stream: string, ids: string[], consumer: string, leaseMs: number) {
    return this.invoke(ONE, (db) => streams.extendLease(db, stream, ids, consumer, leaseMs));
  }
  release(stream: string, id: string, consumer: string, delayMs?: number, lastError?: ErrorRecord) {
    return this.invoke(ONE, (db) => streams.release(db, stream, id, consumer, delayMs, lastError));
  }
  deadLetter(
    stream: string,
    id: string,
    consumer: string,
    reason: string,
    lastError?: ErrorRecord,
  ) {
    return this.invoke(ONE, (db) =>
      deadLetters.deadLetter(db, stream, id, consumer, reason, lastError),
    );
  }
  remove(stream: string, ids: string[]) {
    return this.invoke(ONE, (db) => streams.remove(db, stream, ids));
  }
  reclaimExpired(stream: string, options?: { maxDeliveries?: number }) {
    return this.invoke(ONE, (db) => streams.reclaimExpired(db, stream, options));
  }
  countMessages(stream?: string) {
    return this.invoke(ONE, (db) => streams.countMessages(db, stream));
  }
  jobMessages(job: string) {
    return this.invoke(ONE, (db) => streams.jobMessages(db, job));
  }
  parkMessages(job: string, into: string) {
    return this.invoke(ONE, (db) => streams.parkMessages(db, job, into));
  }
  unparkMessages(job: string, from: string) {
    return this.invoke(ATOMIC, (db) => streams.unparkMessages(db, job, from));
  }
  peek(stream: string, limit?: number) {
    return this.invoke(ONE, (db) => streams.peek(db, stream, limit));
  }
  listDeadLetters(stream?: string, limit?: number) {
    return this.invoke(ONE, (db) => deadLetters.listDeadLetters(db, stream, limit));
  }
  getDeadLetter(id: string) {
    return this.invoke(ONE, (db) => deadLetters.getDeadLetter(db, id));
  }
  requeueDeadLetter(id: string) {
    return this.invoke(ONE, (db) => deadLetters.requeueDeadLetter(db, id));
  }
  scheduleTimer(timer: NewTimer) {
    return this.invoke(ONE, (db) => timers.scheduleTimer(db, timer));
  }
  cancelTimer(key: string) {
    return this.invoke(ONE, (db) => timers.cancelTimer(db, key));
  }
  fireDueTimers(now: number, max?: number) {
    return this.invoke(ONE, (db) => timers.fireDueTimers(db, now, max));
  }
  nextTimerAt() {
    return this.invoke(ONE, (db) => timers.nextTimerAt(db));
  }
  registerWaiter(waiter: NewWaiter) {
    return this.invoke(ATOMIC, (db) => signals.registerWaiter(db, waiter));
  }
  removeWaiter(key: string) {
    return this.invoke(ONE, (db) => signals.removeWaiter(db, key));
  }
  deliverSignal(key: string, data: Json, options?: { ttlMs?: number }) {
    return this.invoke(ATOMIC, (db) => signals.deliverSignal(db, key, data, options));
  }
  appendHistory(entries: NewHistoryEntry[]) {
    try {
      if (this.deferHistory(entries)) return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.invoke(ONE, (db) => history.appendHistory(db, entries));
  }
  historyOfJob(job: string, query?: HistoryQuery) {
    return this.invoke(ONE, (db) => history.historyOfJob(db, job, query));
  }
  putWorker(worker: NewWorkerPresence) {
    return this.invoke(ONE, (db) => workers.putWorker(db, worker));
  }
  removeWorker(id: string) {
    return this.invoke(ONE, (db) => workers.removeWorker(db, id));
  }
  listWorkers(since?: number) {
    return this.invoke(ONE, (db) => workers.listWorkers(db, since));
  }
  pruneWorkers(before: number) {
    return this.invoke(ONE, (db) => workers.pruneWorkers(db, before));
  }
  waitingStreams(prefix: string, before: number, skip?: readonly string[]) {
    return this.invoke(ONE, (db) => workers.waitingStreams(db, prefix, before, skip));
  }
  putSchedule(schedule: ScheduleRecord) {
    return this.invoke(ONE, (db) => schedules.putSchedule(db, schedule));
  }
  getSchedule(name: string) {
    return this.invoke(ONE, (db) => schedules.getSchedule(db, name));
  }
  lockSchedule(name: string) {
    return this.invoke(ONE, (db) => schedules.lockSchedule(db, name));
  }
  listSchedules() {
    return this.invoke(ONE, (db) => schedules.listSchedules(db));
  }
  deleteSchedule(name: string) {
    return this.invoke(ONE, (db) => schedules.deleteSchedule(db, name));
  }
  dueSchedules(now: number, limit: number) {
    return this.invoke(ONE, (db) => schedules.dueSchedules(db, now, limit));
  }
  nextScheduleAt() {
    return this.invoke(ONE, (db) => schedules.nextScheduleAt(db));
  }
  putQueue(queue: QueueRecord) {
    return this.invoke(ONE, (db) => queues.putQueue(db, queue));
  }
  getQueue(name: string) {
    return this.invoke(ONE, (db) => queues.getQueue(db, name));
  }
  lockQueue(name: string) {
    return this.invoke(ONE, (db) => queues.lockQueue(db, name));
  }
  listQueues() {
    return this.invoke(ONE, (db) => queues.listQueues(db));
  }
  deleteQueue(name: string) {
    return this.invoke(ONE, (db) => queues.deleteQueue(db, name));
  }
  enqueue(item: NewQueueItem) {
    return this.invoke(ONE, (db) => queues.enqueue(db, item));
  }
  getQueueItem(job: string) {
    return this.invoke(ONE, (db) => queues.getQueueItem(db, job));
  }
  waitingItems(queue: string, now: number, limit: number) {
    return this.invoke(ONE, (db) => queues.waitingItems(db, queue, now, limit));
  }
  runningKeys(queue: string) {
    return this.invoke(ONE, (db) => queues.runningKeys(db, queue));
  }
  admitItems(jobs: readonly string[], now: number) {
    return this.invoke(ONE, (db) => queues.admitItems(db, jobs, now));
  }
  queuesWaiting(now: number) {
    return this.invoke(ONE, (db) => queues.queuesWaiting(db, now));
  }
  queueCounts() {
    return this.invoke(ONE, (db) => queues.queueCounts(db));
  }
  claimIdempotencyKey(claim: IdempotencyClaim, now: number) {
    return this.invoke(ONE, (db) => idempotency.claimIdempotencyKey(db, claim, now));
  }
  replaceIdempotencyKey(claim: IdempotencyClaim) {
    return this.invoke(ONE, (db) => idempotency.replaceIdempotencyKey(db, claim));
  }
  pruneIdempotencyKeys(now: number) {
    return this.invoke(ONE, (db) => idempotency.pruneIdempotencyKeys(db, now));
  }
  claimDebounce(window: DebounceRecord) {
    return this.invoke(ONE, (db) => debounces.claimDebounce(db, window));
  }
  putDebounce(window: DebounceRecord) {
    return this.invoke(ONE, (db) => debounces.putDebounce(db, window));
  }
  pruneDebounces(before: number) {
    return this.invoke(ONE, (db) => debounces.pruneDebounces(db, before));
  }
  putRetention(record: Omit<RetentionRecord, 'updatedAt'>) {
    return this.invoke(ONE, (db) => retention.putRetention(db, record));
  }
  deleteRetention(workflow: string, source?: RetentionRecord['source']) {
    return this.invoke(ONE, (db) => retention.deleteRetention(db, workflow, source));
  }
  listRetentions() {
    return this.invoke(ONE, (db) => retention.listRetentions(db));
  }
  pruneJobs(options: PruneOptions) {
    return this.invoke(ATOMIC, (db) => retention.pruneJobs(db, options));
  }
}
