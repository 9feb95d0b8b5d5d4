/**
 * Applies a {@link UnitOfWork} in one transaction: the ack, the child jobs, the messages,
 * the counter adds, the data writes, the timers, the waiters, the job moves and the lines
 * they leave in their jobs' histories commit together or not at all. The ack goes first,
 * so a unit whose message another consumer now holds changes nothing; a counter whose
 * stored result is not the one the planner expected fails the unit, so a plan made from
 * stale reads never commits.
 */
import { InvalidStateError, LeaseLostError, WeftError } from '../core/errors.js';
import { counterKeyText } from './counter-key.js';
import { Issued } from './issued.js';
import { chargeEnqueued } from './queue-admission.js';
import type { CounterRef, Store, StoreTx, UnitOfWork } from './store.js';
import { yieldIfDue } from './yield-point.js';

/** What a committed unit returns: the new value of each counter, in the unit's order. */
export interface UnitResult {
  counters: bigint[];
  messageIds: string[];
}

function describe(ref: CounterRef): string {
  const where = ref.activity
    ? ` of activity ${ref.activity}${ref.dimension ? `/${ref.dimension}` : ''}`
    : '';
  return `counter ${ref.field}${where} of job ${ref.job}`;
}

/**
 * Whether no two items have the same key. A spread's unit has hundreds of thousands of
 * them: the event loop gets a turn now and then (yield-point.ts).
 */
async function unique<T>(items: readonly T[], key: (item: T) => string): Promise<boolean> {
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    if (i % 1024 === 1023) await yieldIfDue();
    const k = key(items[i] as T);
    if (seen.has(k)) return false;
    seen.add(k);
  }
  return true;
}

/**
 * Applies a unit inside an open transaction. Every write is issued in the unit's order
 * before any is awaited, so a store whose connection pipelines (PostgreSQL) sends them
 * together; the checks on what they return come after, and any that fails rolls the
 * whole transaction back, so issuing the later writes first changes nothing.
 */
export async function applyUnit(tx: StoreTx, unit: UnitOfWork): Promise<UnitResult> {
  const adds = unit.counters ?? [];
  const writes = unit.activities ?? [];
  // Set-based statements when each counter and record appears once, else one by one.
  const addsOnce = adds.length > 0 && (await unique(adds, (a) => counterKeyText(a.ref)));
  const writesOnce = await unique(
    writes,
    (w) => `${w.job}\u0000${w.activity}\u0000${w.dimension ?? ''}`,
  );
  const patches = unit.jobPatches ?? [];
  const patchesOnce = patches.length > 1 && (await unique(patches, (p) => p.id));
  const issued = new Issued();
  const acked = unit.ack
    ? issued.add(tx.ack(unit.ack.stream, unit.ack.id, unit.ack.consumer))
    : null;
  for (const job of unit.jobs ?? []) issued.add(tx.createJob(job));
  if (unit.journal?.length) issued.add(tx.appendJournal(unit.journal));
  const appended = unit.append?.length ? issued.add(tx.append(unit.append)) : Promise.resolve([]);
  for (const item of unit.enqueue ?? []) issued.add(tx.enqueue(item));
  const added: Promise<bigint[]> | Promise<bigint>[] = addsOnce
    ? issued.add(tx.addCounters(adds))
    : adds.map((c) => issued.add(tx.addCounter(c.ref, c.delta, c.initial)));
  if (writesOnce) {
    if (writes.length > 0) issued.add(tx.putActivities(writes));
  } else {
    for (const write of writes) issued.add(tx.putActivity(write));
  }
  for (const key of unit.cancelTimers ?? []) issued.add(tx.cancelTimer(key));
  for (const timer of unit.timers ?? []) issued.add(tx.scheduleTimer(timer));
  for (const key of unit.removeWaiters ?? []) issued.add(tx.removeWaiter(key));
  for (const waiter of unit.waiters ?? []) issued.add(tx.registerWaiter(waiter));
  if (patchesOnce) {
    issued.add(tx.updateJobs(patches));
  } else {
    for (const { id, patch } of patches) issued.add(tx.updateJob(id, patch));
  }
  const moved = (unit.jobStates ?? []).map((move) =>
    issued.add(tx.setJobState(move.id, move.from, move.to, move.patch)),
  );
  if (unit.history?.length) issued.add(tx.appendHistory(unit.history));
  await issued.settled();
  if (unit.enqueue?.length) await chargeEnqueued(tx, unit.enqueue);

  if (acked && !(await acked)) {
    const { stream, id, consumer } = unit.ack as NonNullable<UnitOfWork['ack']>;
    throw new LeaseLostError(stream, id, consumer);
  }
  const counters = Array.isArray(added) ? await Promise.all(added) : await added;
  for (const [i, c] of adds.entries()) {
    const value = counters[i] as bigint;
    if (c.expect !== undefined && value !== c.expect) {
      throw new WeftError(
        'INTERNAL',
        `${describe(c.ref)} is ${value}, expected ${c.expect}: it changed while its job was locked`,
      );
    }
  }
  for (const [i, move] of (unit.jobStates ?? []).entries()) {
    if (!(await moved[i])) {
      throw new InvalidStateError('flow', move.from, move.to, `job ${move.id} is not ${move.from}`);
    }
  }
  return { counters, messageIds: await appended };
}

/** Commits a unit in its own transaction. */
export function commitUnit(store: Store, unit: UnitOfWork): Promise<UnitResult> {
  return store.transaction((tx) => applyUnit(tx, unit));
}

/** Several units as one: each list the concatenation of theirs, in order. */
export function mergeUnits(units: UnitOfWork[]): UnitOfWork {
  if (units.length === 1) return units[0] as UnitOfWork;
  const merged: Record<string, unknown[]> = {};
  for (const unit of units) {
    for (const [name, value] of Object.entries(unit)) {
      if (name === 'ack') throw new WeftError('INTERNAL', 'units with an ack do not merge');
      if (!Array.isArray(value) || value.length === 0) continue;
      const list = merged[name] ?? [];
      list.push(...value);
      merged[name] = list;
    }
  }
  return merged as UnitOfWork;
}
