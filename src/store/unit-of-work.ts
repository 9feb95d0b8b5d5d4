/**
 * Applies a {@link UnitOfWork} in one transaction: the ack, the child messages, the
 * counter adds, the data writes and the timers commit together or not at all. The ack
 * goes first, so a unit whose message another consumer now holds changes nothing.
 */
import { LeaseLostError } from '../core/errors.js';
import type { Store, StoreTx, UnitOfWork } from './store.js';

/** What a committed unit returns: the new value of each counter, in the unit's order. */
export interface UnitResult {
  counters: bigint[];
  messageIds: string[];
}

/** Applies a unit inside an open transaction. */
export async function applyUnit(tx: StoreTx, unit: UnitOfWork): Promise<UnitResult> {
  if (unit.ack) {
    const { stream, id, consumer } = unit.ack;
    if (!(await tx.ack(stream, id, consumer))) throw new LeaseLostError(stream, id, consumer);
  }
  const messageIds = unit.append?.length ? await tx.append(unit.append) : [];
  const counters: bigint[] = [];
  for (const c of unit.counters ?? [])
    counters.push(await tx.addCounter(c.ref, c.delta, c.initial));
  for (const write of unit.activities ?? []) await tx.putActivity(write);
  for (const timer of unit.timers ?? []) await tx.scheduleTimer(timer);
  return { counters, messageIds };
}

/** Commits a unit in its own transaction. */
export function commitUnit(store: Store, unit: UnitOfWork): Promise<UnitResult> {
  return store.transaction((tx) => applyUnit(tx, unit));
}
