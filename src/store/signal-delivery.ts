/**
 * The signal rules both backends follow, kept above them (Zenaton's buffer): a waiter
 * stores the message to append when its signal comes; a signal delivered to a waiter
 * appends that message with the signal's data added to its payload as `signal`; a signal
 * that comes before its waiter is kept for `ttlMs` (default 7 days) and handed to the first
 * waiter that registers for its key while it lives. The backends keep the SQL: storing,
 * taking and pruning rows under their own locks.
 */
import type { Json, NewMessage, NewWaiter } from './records.js';

/** How long a signal with no waiter is kept when the caller does not say: 7 days. */
export const DEFAULT_SIGNAL_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A waiter as stored: the message to append when its signal comes. */
export interface StoredWaiter {
  key: string;
  /** The job waiting, when one is. */
  job: string | null;
  stream: string;
  /** The job of the message to append. */
  messageJob: string | null;
  payload: Json;
  availableAt: number | null;
}

/** What to store for a waiter that found no signal waiting. */
export function storedWaiter(waiter: NewWaiter): StoredWaiter {
  const m = waiter.message;
  return {
    key: waiter.key,
    job: waiter.job ?? null,
    stream: m.stream,
    messageJob: m.job ?? null,
    payload: m.payload,
    availableAt: m.availableAt ?? null,
  };
}

/** The waiter's payload with the signal's data added as `signal` (wrapped when not an object). */
export function withSignal(payload: Json, data: Json): Json {
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    return { ...payload, signal: data };
  }
  return { payload, signal: data };
}

/** The message a stored waiter appends when its signal comes (before the signal is added). */
export function waiterMessage(waiter: StoredWaiter): NewMessage {
  return {
    stream: waiter.stream,
    job: waiter.messageJob,
    payload: waiter.payload,
    ...(waiter.availableAt === null ? {} : { availableAt: waiter.availableAt }),
  };
}

/** The message a signal appends for a waiter: the waiter's own, its payload gaining `signal`. */
export function signalMessage(message: NewMessage, data: Json): NewMessage {
  return { ...message, payload: withSignal(message.payload, data) };
}

/** When a signal buffered at `now` expires: after `ttlMs` (never negative), default 7 days. */
export function signalExpiry(now: number, ttlMs?: number): number {
  return now + Math.max(0, ttlMs ?? DEFAULT_SIGNAL_TTL_MS);
}
