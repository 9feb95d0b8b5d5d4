/**
 * Applies a {@link UnitOfWork} in one transaction: the ack, the child jobs, the messages,
 * the counter adds, the data writes, the timers, the waiters, the job moves and the lines
 * they leave in their jobs' histories commit together or not at all. The ack goes first,
 * so a unit whose message another consumer now holds changes nothing; a counter whose
 * stored result is not the one the planner expected fails the unit, so a plan made from
 * stale reads never commits.
 */
import { InvalidStateError, LeaseLostError, WeftError } from '../core/errors.js';
import { counterKey } from './counter-key.js';
import type { CounterAdd, CounterRef, Store, StoreTx, UnitOfWork } from './store.js';
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

function refKey(ref: CounterRef): string {
  return counterKey(ref).join('\u0000');
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

/** The adds as one set-based statement when each counter appears once, else one by one. */
async function addAll(tx: StoreTx, adds: CounterAdd[]): Promise<bigint[]> {
  if (adds.length === 0) return [];
  if (await unique(adds, (a) => refKey(a.ref))) return tx.addCounters(adds);
  const out: bigint[] = [];
  for (const c of adds) out.push(await tx.addCounter(c.ref, c.delta, c.initial));
  return out;
}

/** Applies a unit inside an open transaction. */
export async function applyUnit(tx: StoreTx, unit: UnitOfWork): Promise<UnitResult> {
  if (unit.ack) {
    const { stream, id, consumer } = unit.ack;
    if (!(await tx.ack(stream, id, consumer))) throw new LeaseLostError(stream, id, consumer);
  }
  for (const job of unit.jobs ?? []) await tx.createJob(job);
  if (unit.journal?.length) await tx.appendJournal(unit.journal);
  const messageIds = unit.append?.length ? await tx.append(unit.append) : [];
  const adds = unit.counters ?? [];
  const counters = await addAll(tx, adds);
  for (const [i, c] of adds.entries()) {
    const value = counters[i] as bigint;
    if (c.expect !== undefined && value !== c.expect) {
      throw new WeftError(
        'INTERNAL',
        `${describe(c.ref)} is ${value}, expected ${c.expect}: it changed while its job was locked`,
      );
    }
  }
  const writes = unit.activities ?? [];
  if (await unique(writes, (w) => `${w.job}\u0000${w.activity}\u0000${w.dimension ?? ''}`)) {
    await tx.putActivities(writes);
  } else {
    for (const write of writes) await tx.putActivity(write);
  }
  for (const key of unit.cancelTimers ?? []) await tx.cancelTimer(key);
  for (const timer of unit.timers ?? []) await tx.scheduleTimer(timer);
  for (const key of unit.removeWaiters ?? []) await tx.removeWaiter(key);
  for (const waiter of unit.waiters ?? []) await tx.registerWaiter(waiter);
  for (const { id, patch } of unit.jobPatches ?? []) await tx.updateJob(id, patch);
  for (const move of unit.jobStates ?? []) {
    if (!(await tx.setJobState(move.id, move.from, move.to, move.patch))) {
      throw new InvalidStateError('flow', move.from, move.to, `job ${move.id} is not ${move.from}`);
    }
  }
  if (unit.history?.length) await tx.appendHistory(unit.history);
  return { counters, messageIds };
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
