/**
 * The SQLite operation groups of one connection, and how they become a {@link StoreTx}:
 * each contract method is a synchronous operation run through an `invoke` that decides
 * the transaction around it (its own, or the caller's open one).
 */
import type { StoreTx } from '../store.js';
import { SqliteActivities } from './ops/activities.js';
import type { OpsContext } from './ops/context.js';
import { SqliteCounters } from './ops/counters.js';
import { SqliteDefinitions } from './ops/definitions.js';
import { SqliteJobs } from './ops/jobs.js';
import { SqliteSignals } from './ops/signals.js';
import { SqliteStreams } from './ops/streams.js';
import { SqliteTimers } from './ops/timers.js';

/** Every operation group, sharing one connection and its prepared statements. */
export interface SqliteOps {
  jobs: SqliteJobs;
  definitions: SqliteDefinitions;
  counters: SqliteCounters;
  activities: SqliteActivities;
  streams: SqliteStreams;
  timers: SqliteTimers;
  signals: SqliteSignals;
}

/** Prepares every statement once. */
export function createSqliteOps(ctx: OpsContext): SqliteOps {
  const streams = new SqliteStreams(ctx);
  return {
    jobs: new SqliteJobs(ctx),
    definitions: new SqliteDefinitions(ctx),
    counters: new SqliteCounters(ctx),
    activities: new SqliteActivities(ctx),
    streams,
    timers: new SqliteTimers(ctx, streams),
    signals: new SqliteSignals(ctx, streams),
  };
}

/** Runs a synchronous operation; `write` says whether it needs the write lock. */
export type Invoke = <T>(write: boolean, op: () => T) => Promise<T>;

const R = false;
const W = true;

/** The contract's methods over `ops`, each run through `invoke`. */
export function bindStoreTx(ops: SqliteOps, invoke: Invoke): StoreTx {
  const { jobs, definitions, counters, activities, streams, timers, signals } = ops;
  return {
    createJob: (job) => invoke(W, () => jobs.createJob(job)),
    getJob: (id) => invoke(R, () => jobs.getJob(id)),
    lockJob: (id) => invoke(W, () => jobs.getJob(id)),
    setJobState: (id, from, to, patch) => invoke(W, () => jobs.setJobState(id, from, to, patch)),
    updateJob: (id, patch) => invoke(W, () => jobs.updateJob(id, patch)),
    listJobs: (filter) => invoke(R, () => jobs.listJobs(filter)),

    putDefinition: (def) => invoke(W, () => definitions.putDefinition(def)),
    getDefinition: (workflow, version) =>
      invoke(R, () => definitions.getDefinition(workflow, version)),
    listDefinitions: () => invoke(R, () => definitions.listDefinitions()),

    addCounter: (ref, delta, initial) => invoke(W, () => counters.addCounter(ref, delta, initial)),
    getCounter: (ref) => invoke(R, () => counters.getCounter(ref)),
    listCounters: (job) => invoke(R, () => counters.listCounters(job)),

    putActivity: (write) => invoke(W, () => activities.putActivity(write)),
    getActivity: (job, activity, dimension) =>
      invoke(R, () => activities.getActivity(job, activity, dimension)),
    listActivities: (job) => invoke(R, () => activities.listActivities(job)),

    append: (messages) => invoke(W, () => streams.append(messages)),
    claim: (stream, options) => invoke(W, () => streams.claim(stream, options)),
    ack: (stream, id, consumer) => invoke(W, () => streams.ack(stream, id, consumer)),
    extendLease: (stream, ids, consumer, leaseMs) =>
      invoke(W, () => streams.extendLease(stream, ids, consumer, leaseMs)),
    release: (stream, id, consumer, delayMs) =>
      invoke(W, () => streams.release(stream, id, consumer, delayMs)),
    remove: (stream, ids) => invoke(W, () => streams.remove(stream, ids)),
    reclaimExpired: (stream, options) => invoke(W, () => streams.reclaimExpired(stream, options)),
    countMessages: (stream) => invoke(R, () => streams.countMessages(stream)),
    peek: (stream, limit) => invoke(R, () => streams.peek(stream, limit)),
    listDeadLetters: (stream, limit) => invoke(R, () => streams.listDeadLetters(stream, limit)),
    requeueDeadLetter: (id) => invoke(W, () => streams.requeueDeadLetter(id)),

    scheduleTimer: (timer) => invoke(W, () => timers.scheduleTimer(timer)),
    cancelTimer: (key) => invoke(W, () => timers.cancelTimer(key)),
    fireDueTimers: (now, max) => invoke(W, () => timers.fireDueTimers(now, max)),
    nextTimerAt: () => invoke(R, () => timers.nextTimerAt()),

    registerWaiter: (waiter) => invoke(W, () => signals.registerWaiter(waiter)),
    removeWaiter: (key) => invoke(W, () => signals.removeWaiter(key)),
    deliverSignal: (key, data, options) =>
      invoke(W, () => signals.deliverSignal(key, data, options)),
  };
}
