/**
 * Redis signals, by the rules of signal-delivery.ts, in the partition the signal key
 * hashes to (partitions.ts `ofKey`): waiters in `weft:{p}:waiters`
 * (signal key → the stored waiter) and signals that came before their waiter in
 * `weft:{p}:signals` (signal key → the list of those buffered, oldest first, each with
 * its expiry). A registration reads the buffer and a delivery reads the waiter, each
 * checked at commit: a waiter and its signal arriving at once conflict, and the one run
 * again finds the other, so the signal is delivered once.
 */
import type { Json, NewWaiter, SignalOutcome } from '../../records.js';
import {
  type StoredWaiter,
  signalExpiry,
  signalMessage,
  storedWaiter,
  waiterMessage,
} from '../../signal-delivery.js';
import { partitionKeys as K } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { noteOwner } from './owned.js';
import { append } from './streams.js';

interface Buffered {
  data: Json;
  expiresAt: number;
}

/** The signals buffered for `key` that live at `now`, as read (and checked at commit). */
async function buffered(tx: RedisTx, key: string, now: number): Promise<Buffered[]> {
  const text = await tx.hgetChecked(K.signals(tx.partitions.ofKey(key)), key);
  const all = text === undefined ? [] : (JSON.parse(text) as Buffered[]);
  return all.filter((b) => b.expiresAt > now);
}

function writeBuffer(tx: RedisTx, key: string, list: Buffered[]): void {
  tx.hset(K.signals(tx.partitions.ofKey(key)), [
    [key, list.length === 0 ? null : JSON.stringify(list)],
  ]);
}

/** Registers a waiter, or delivers it the oldest signal buffered for its key. */
export async function registerWaiter(tx: RedisTx, waiter: NewWaiter): Promise<SignalOutcome> {
  const now = tx.now();
  const [first, ...rest] = await buffered(tx, waiter.key, now);
  if (first) {
    writeBuffer(tx, waiter.key, rest);
    const [messageId] = await append(tx, [signalMessage(waiter.message, first.data)]);
    return { status: 'delivered', messageId: messageId as string };
  }
  writeBuffer(tx, waiter.key, []);
  const stored = storedWaiter(waiter);
  tx.hset(K.waiters(tx.partitions.ofKey(waiter.key)), [[waiter.key, JSON.stringify(stored)]]);
  await noteOwner(tx, stored.job, 'waiter', waiter.key);
  if (stored.messageJob !== stored.job) {
    await noteOwner(tx, stored.messageJob, 'waiter', waiter.key);
  }
  return { status: 'buffered' };
}

/** Removes a waiter; false when none. */
export async function removeWaiter(tx: RedisTx, key: string): Promise<boolean> {
  const P = tx.partitions.ofKey(key);
  if ((await tx.hgetChecked(K.waiters(P), key)) === undefined) return false;
  tx.hset(K.waiters(P), [[key, null]]);
  return true;
}

/** Delivers a signal to its waiter, or keeps it for `ttlMs` for a waiter to come. */
export async function deliverSignal(
  tx: RedisTx,
  key: string,
  data: Json,
  options: { ttlMs?: number } = {},
): Promise<SignalOutcome> {
  const now = tx.now();
  const P = tx.partitions.ofKey(key);
  const text = await tx.hgetChecked(K.waiters(P), key);
  if (text !== undefined) {
    tx.hset(K.waiters(P), [[key, null]]);
    const message = signalMessage(waiterMessage(JSON.parse(text) as StoredWaiter), data);
    const [messageId] = await append(tx, [message]);
    return { status: 'delivered', messageId: messageId as string };
  }
  const list = await buffered(tx, key, now);
  list.push({ data, expiresAt: signalExpiry(now, options.ttlMs) });
  writeBuffer(tx, key, list);
  return { status: 'buffered' };
}
