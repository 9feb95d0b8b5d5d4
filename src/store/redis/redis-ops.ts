/**
 * The Store operations on Redis, each run through `invoke`: inside an open transaction
 * on its attempt ({@link RedisTx}), else in a transaction of its own.
 */
import type { FlowState } from '../../core/states.js';
import type { NewDefinition } from '../definition-version.js';
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
} from '../records.js';
import type { ActivityKey, CounterAdd, StoreTx } from '../store.js';
import * as activities from './ops/activities.js';
import * as counters from './ops/counters.js';
import * as definitions from './ops/definitions.js';
import * as history from './ops/history.js';
import * as jobs from './ops/jobs.js';
import * as journal from './ops/journal.js';
import * as prune from './ops/prune.js';
import * as queues from './ops/queues.js';
import * as retention from './ops/retention.js';
import * as schedules from './ops/schedules.js';
import * as signals from './ops/signals.js';
import * as startKeys from './ops/start-keys.js';
import * as stats from './ops/stats.js';
import * as streams from './ops/streams.js';
import * as timers from './ops/timers.js';
import * as workers from './ops/workers.js';
import type { RedisTx } from './redis-tx.js';

/** Runs an operation on the open transaction's attempt, or in one of its own. */
export type Invoke = <T>(op: (tx: RedisTx) => Promise<T> | T) => Promise<T>;

/** Every operation of the contract, on Redis. */
export class RedisOps implements StoreTx {
  constructor(protected readonly invoke: Invoke) {}

  // ── jobs ──
  createJob(job: NewJob): Promise<{ job: JobRecord; created: boolean }> {
    return this.invoke((tx) => jobs.createJob(tx, job));
  }
  getJob(id: string): Promise<JobRecord | undefined> {
    return this.invoke((tx) => jobs.getJob(tx, id));
  }
  lockJob(id: string): Promise<JobRecord | undefined> {
    return this.invoke((tx) => jobs.lockJob(tx, id));
  }
  lockJobs(ids: string[]): Promise<JobRecord[]> {
    return this.invoke((tx) => jobs.lockJobs(tx, ids));
  }
  setJobState(id: string, from: FlowState, to: FlowState, patch?: JobPatch): Promise<boolean> {
    return this.invoke((tx) => jobs.setJobState(tx, id, from, to, patch));
  }
  updateJob(id: string, patch: JobPatch): Promise<void> {
    return this.invoke((tx) => jobs.updateJob(tx, id, patch));
  }
  updateJobs(patches: { id: string; patch: JobPatch }[]): Promise<void> {
    return this.invoke((tx) => jobs.updateJobs(tx, patches));
  }
  setJobInput(id: string, input: Json): Promise<void> {
    return this.invoke((tx) => jobs.setJobInput(tx, id, input));
  }
  listJobs(filter?: JobFilter): Promise<JobRecord[]> {
    return this.invoke((tx) => jobs.listJobs(tx, filter));
  }
  countJobs(filter?: JobFilter): Promise<JobCounts> {
    return this.invoke((tx) => jobs.countJobs(tx, filter));
  }
  storeStats(now: number): Promise<StoreStats> {
    return this.invoke((tx) => stats.storeStats(tx, now));
  }
  waitingStreams(
    prefix: string,
    before: number,
    skip?: readonly string[],
  ): Promise<WaitingStream[]> {
    return this.invoke((tx) => stats.waitingStreams(tx, prefix, before, skip));
  }
  lastStep(): Promise<number> {
    return this.invoke((tx) => history.lastStep(tx));
  }

  // ── journals ──
  appendJournal(entries: JournalEntry[]): Promise<void> {
    return this.invoke((tx) => journal.appendJournal(tx, entries));
  }
  readJournal(job: string, afterSeq?: number): Promise<JournalEntry[]> {
    return this.invoke((tx) => journal.readJournal(tx, job, afterSeq));
  }
  journalsOfJobs(jobs: string[]): Promise<JournalEntry[]> {
    return this.invoke((tx) => journal.journalsOfJobs(tx, jobs));
  }

  // ── definitions ──
  putDefinition(def: NewDefinition): Promise<DefinitionRecord> {
    return this.invoke((tx) => definitions.putDefinition(tx, def));
  }
  getDefinition(workflow: string, version?: number): Promise<DefinitionRecord | undefined> {
    return this.invoke((tx) => definitions.getDefinition(tx, workflow, version));
  }
  listDefinitions(): Promise<DefinitionRecord[]> {
    return this.invoke((tx) => definitions.listDefinitions(tx));
  }

  // ── counters ──
  addCounter(ref: CounterRef, delta: bigint, initial?: bigint): Promise<bigint> {
    return this.invoke((tx) => counters.addCounter(tx, ref, delta, initial));
  }
  getCounter(ref: CounterRef): Promise<bigint | undefined> {
    return this.invoke((tx) => counters.getCounter(tx, ref));
  }
  listCounters(job: string): Promise<Map<string, bigint>> {
    return this.invoke((tx) => counters.listCounters(tx, job));
  }
  countersOfJobs(
    jobIds: string[],
    dimensions?: string[],
  ): Promise<{ ref: CounterRef; value: bigint }[]> {
    return this.invoke((tx) => counters.countersOfJobs(tx, jobIds, dimensions));
  }
  getCounters(refs: CounterRef[]): Promise<(bigint | undefined)[]> {
    return this.invoke((tx) => counters.getCounters(tx, refs));
  }
  addCounters(adds: CounterAdd[]): Promise<bigint[]> {
    return this.invoke((tx) => counters.addCounters(tx, adds));
  }

  // ── activities ──
  putActivity(write: ActivityWrite): Promise<void> {
    return this.invoke((tx) => activities.putActivities(tx, [write]));
  }
  putActivities(writes: ActivityWrite[]): Promise<void> {
    return this.invoke((tx) => activities.putActivities(tx, writes));
  }
  async getActivity(
    job: string,
    activity: string,
    dimension?: string,
  ): Promise<ActivityRecord | undefined> {
    const [record] = await this.invoke((tx) =>
      activities.getActivities(tx, [{ job, activity, dimension: dimension ?? '' }]),
    );
    return record;
  }
  getActivities(keys: ActivityKey[]): Promise<(ActivityRecord | undefined)[]> {
    return this.invoke((tx) => activities.getActivities(tx, keys));
  }
  listActivities(job: string): Promise<ActivityRecord[]> {
    return this.invoke((tx) => activities.listActivities(tx, job));
  }
  activitiesOfJobs(jobIds: string[], dimensions?: string[]): Promise<ActivityRecord[]> {
    return this.invoke((tx) => activities.activitiesOfJobs(tx, jobIds, dimensions));
  }
  newestActivities(job: string, names?: string[]): Promise<ActivityRecord[]> {
    return this.invoke((tx) => activities.newestActivities(tx, job, names));
  }

  // ── streams ──
  append(messages: NewMessage[]): Promise<string[]> {
    return this.invoke((tx) => streams.append(tx, messages));
  }
  claim(stream: string, options: ClaimOptions): Promise<StreamMessage[]> {
    return this.invoke((tx) => streams.claim(tx, stream, options));
  }
  claimableMessages(
    stream: string,
    now: number,
    limit: number,
    after?: Pick<StreamMessage, 'id' | 'availableAt'>,
  ): Promise<StreamMessage[]> {
    return this.invoke((tx) => streams.claimableMessages(tx, stream, now, limit, after));
  }
  ack(stream: string, id: string, consumer: string): Promise<boolean> {
    return this.invoke((tx) => streams.ack(tx, stream, id, consumer));
  }
  ackMany(stream: string, ids: string[], consumer: string): Promise<string[]> {
    return this.invoke((tx) => streams.ackMany(tx, stream, ids, consumer));
  }
  extendLease(stream: string, ids: string[], consumer: string, leaseMs: number): Promise<string[]> {
    return this.invoke((tx) => streams.extendLease(tx, stream, ids, consumer, leaseMs));
  }
  release(
    stream: string,
    id: string,
    consumer: string,
    delayMs?: number,
    lastError?: ErrorRecord,
  ): Promise<boolean> {
    return this.invoke((tx) => streams.release(tx, stream, id, consumer, delayMs, lastError));
  }
  remove(stream: string, ids: string[]): Promise<number> {
    return this.invoke((tx) => streams.remove(tx, stream, ids));
  }
  reclaimExpired(
    stream: string,
    options?: { maxDeliveries?: number },
  ): Promise<{ reclaimed: number; deadLettered: number }> {
    return this.invoke((tx) => streams.reclaimExpired(tx, stream, options));
  }
  deadLetter(
    stream: string,
    id: string,
    consumer: string,
    reason: string,
    lastError?: ErrorRecord,
  ): Promise<DeadLetter | undefined> {
    return this.invoke((tx) => streams.deadLetter(tx, stream, id, consumer, reason, lastError));
  }
  listDeadLetters(stream?: string, limit?: number): Promise<DeadLetter[]> {
    return this.invoke((tx) => streams.listDeadLetters(tx, stream, limit));
  }
  getDeadLetter(id: string): Promise<DeadLetter | undefined> {
    return this.invoke((tx) => streams.getDeadLetter(tx, id));
  }
  requeueDeadLetter(id: string): Promise<string | undefined> {
    return this.invoke((tx) => streams.requeueDeadLetter(tx, id));
  }
  parkMessages(job: string, into: string): Promise<number> {
    return this.invoke((tx) => streams.parkMessages(tx, job, into));
  }
  unparkMessages(job: string, from: string): Promise<number> {
    return this.invoke((tx) => streams.unparkMessages(tx, job, from));
  }
  countMessages(stream?: string): Promise<number> {
    return this.invoke((tx) => streams.countMessages(tx, stream));
  }
  peek(stream: string, limit?: number): Promise<StreamMessage[]> {
    return this.invoke((tx) => streams.peek(tx, stream, limit));
  }
  jobMessages(job: string): Promise<StreamMessage[]> {
    return this.invoke((tx) => streams.jobMessages(tx, job));
  }

  // ── timers ──
  scheduleTimer(timer: NewTimer): Promise<void> {
    return this.invoke((tx) => timers.scheduleTimer(tx, timer));
  }
  cancelTimer(key: string): Promise<boolean> {
    return this.invoke((tx) => timers.cancelTimer(tx, key));
  }
  fireDueTimers(now: number, max?: number): Promise<FiredTimer[]> {
    return this.invoke((tx) => timers.fireDueTimers(tx, now, max));
  }
  nextTimerAt(): Promise<number | undefined> {
    return this.invoke((tx) => timers.nextTimerAt(tx));
  }

  // ── signals ──
  registerWaiter(waiter: NewWaiter): Promise<SignalOutcome> {
    return this.invoke((tx) => signals.registerWaiter(tx, waiter));
  }
  removeWaiter(key: string): Promise<boolean> {
    return this.invoke((tx) => signals.removeWaiter(tx, key));
  }
  deliverSignal(key: string, data: Json, options?: { ttlMs?: number }): Promise<SignalOutcome> {
    return this.invoke((tx) => signals.deliverSignal(tx, key, data, options));
  }

  // ── idempotency keys and debounce windows ──
  claimIdempotencyKey(claim: IdempotencyClaim, now: number): Promise<string> {
    return this.invoke((tx) => startKeys.claimIdempotencyKey(tx, claim, now));
  }
  replaceIdempotencyKey(claim: IdempotencyClaim): Promise<void> {
    return this.invoke((tx) => startKeys.replaceIdempotencyKey(tx, claim));
  }
  pruneIdempotencyKeys(now: number): Promise<number> {
    return this.invoke((tx) => startKeys.pruneIdempotencyKeys(tx, now));
  }
  claimDebounce(window: DebounceRecord): Promise<DebounceRecord> {
    return this.invoke((tx) => startKeys.claimDebounce(tx, window));
  }
  putDebounce(window: DebounceRecord): Promise<void> {
    return this.invoke((tx) => startKeys.putDebounce(tx, window));
  }
  pruneDebounces(before: number): Promise<number> {
    return this.invoke((tx) => startKeys.pruneDebounces(tx, before));
  }

  // ── queues ──
  putQueue(queue: QueueRecord): Promise<void> {
    return this.invoke((tx) => queues.putQueue(tx, queue));
  }
  getQueue(name: string): Promise<QueueRecord | undefined> {
    return this.invoke((tx) => queues.getQueue(tx, name));
  }
  lockQueue(name: string): Promise<QueueRecord | undefined> {
    return this.invoke((tx) => queues.lockQueue(tx, name));
  }
  listQueues(): Promise<QueueRecord[]> {
    return this.invoke((tx) => queues.listQueues(tx));
  }
  deleteQueue(name: string): Promise<boolean> {
    return this.invoke((tx) => queues.deleteQueue(tx, name));
  }
  enqueue(item: NewQueueItem): Promise<void> {
    return this.invoke((tx) => queues.enqueue(tx, item));
  }
  getQueueItem(job: string): Promise<QueueItem | undefined> {
    return this.invoke((tx) => queues.getQueueItem(tx, job));
  }
  waitingItems(queue: string, now: number, limit: number): Promise<QueueItem[]> {
    return this.invoke((tx) => queues.waitingItems(tx, queue, now, limit));
  }
  runningKeys(queue: string): Promise<{ key: string; running: number }[]> {
    return this.invoke((tx) => queues.runningKeys(tx, queue));
  }
  admitItems(jobIds: readonly string[], now: number): Promise<number> {
    return this.invoke((tx) => queues.admitItems(tx, jobIds, now));
  }
  queuesWaiting(now: number): Promise<string[]> {
    return this.invoke((tx) => queues.queuesWaiting(tx, now));
  }
  queueCounts(): Promise<QueueKeyCount[]> {
    return this.invoke((tx) => queues.queueCounts(tx));
  }
  claimQueued(
    stream: string,
    picks: readonly QueuedPick[],
    options: QueuedClaimOptions,
  ): Promise<StreamMessage[]> {
    return this.invoke((tx) => queues.claimQueued(tx, stream, picks, options));
  }
  queueHeld(queue: string, now: number): Promise<{ key: string; running: number }[]> {
    return this.invoke((tx) => queues.queueHeld(tx, queue, now));
  }

  // ── schedules ──
  putSchedule(schedule: ScheduleRecord): Promise<void> {
    return this.invoke((tx) => schedules.putSchedule(tx, schedule));
  }
  getSchedule(name: string): Promise<ScheduleRecord | undefined> {
    return this.invoke((tx) => schedules.getSchedule(tx, name));
  }
  lockSchedule(name: string): Promise<ScheduleRecord | undefined> {
    return this.invoke((tx) => schedules.lockSchedule(tx, name));
  }
  listSchedules(): Promise<ScheduleRecord[]> {
    return this.invoke((tx) => schedules.listSchedules(tx));
  }
  deleteSchedule(name: string): Promise<boolean> {
    return this.invoke((tx) => schedules.deleteSchedule(tx, name));
  }
  dueSchedules(now: number, limit: number): Promise<string[]> {
    return this.invoke((tx) => schedules.dueSchedules(tx, now, limit));
  }
  nextScheduleAt(): Promise<number | undefined> {
    return this.invoke((tx) => schedules.nextScheduleAt(tx));
  }

  // ── retention ──
  putRetention(record: Omit<RetentionRecord, 'updatedAt'>): Promise<void> {
    return this.invoke((tx) => retention.putRetention(tx, record));
  }
  deleteRetention(workflow: string, source?: RetentionRecord['source']): Promise<boolean> {
    return this.invoke((tx) => retention.deleteRetention(tx, workflow, source));
  }
  listRetentions(): Promise<RetentionRecord[]> {
    return this.invoke((tx) => retention.listRetentions(tx));
  }
  pruneJobs(options: PruneOptions): Promise<PruneResult> {
    return this.invoke((tx) => prune.pruneJobs(tx, options));
  }

  // ── workers ──
  putWorker(worker: NewWorkerPresence): Promise<void> {
    return this.invoke((tx) => workers.putWorker(tx, worker));
  }
  removeWorker(id: string): Promise<boolean> {
    return this.invoke((tx) => workers.removeWorker(tx, id));
  }
  listWorkers(since?: number): Promise<WorkerPresence[]> {
    return this.invoke((tx) => workers.listWorkers(tx, since));
  }
  pruneWorkers(before: number): Promise<number> {
    return this.invoke((tx) => workers.pruneWorkers(tx, before));
  }

  // ── history ──
  appendHistory(entries: NewHistoryEntry[]): Promise<void> {
    return this.invoke((tx) => history.appendHistory(tx, entries));
  }
  historyOfJob(job: string, query?: HistoryQuery): Promise<HistoryEntry[]> {
    return this.invoke((tx) => history.historyOfJob(tx, job, query));
  }
}

/** A {@link StoreTx} on Redis whose operations run through `invoke`. */
export function redisStoreTx(invoke: Invoke): StoreTx {
  return new RedisOps(invoke);
}
