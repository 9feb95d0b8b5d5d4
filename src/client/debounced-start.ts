/**
 * A debounced start (`Client.start`'s `debounce`, `weft start --debounce-key`): the starts
 * of one workflow with one debounce key within a window get one job, and every caller
 * gets its id. By `mode`:
 *
 * - `trailing` (the default): the job starts `delayMs` after the last start of the
 *   window, with that start's input; each start in the window moves its start time again,
 *   until `maxDelayMs` after the window's first start, when it starts however many came.
 *   The job exists from the first start (its view says when it starts, a cancel ends
 *   it); its first step's messages are held by timers (`debounce:<job>:<n>`) until then.
 * - `leading`: the first start runs at once, with its input; the starts that follow
 *   within `delayMs` of the one before (and within `maxDelayMs` of the first) get that
 *   job and start nothing.
 *
 * A window is a row of `weft_debounces`, locked by the start that reads it, so starts
 * with one key on any number of processes take turns. A trailing window is open while
 * its timers have not fired: a start cancels them before it changes the job, so a job
 * that has begun is never given another input.
 */
import { ValidationError } from '../core/errors.js';
import { isFinalFlowState } from '../core/states.js';
import { startAtRef } from '../engine/job-deadline.js';
import { MAX_DURATION_MS } from '../graph/durations.js';
import type {
  DebounceMode,
  DebounceRecord,
  JobRecord,
  Json,
  NewMessage,
} from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import { DEBOUNCE_MODES } from './debounce-modes.js';

export { DEBOUNCE_MODES } from './debounce-modes.js';

/** A start's `debounce` option. */
export interface DebounceOption {
  /** The key the window is kept by, per workflow (a user id, a document id), 1 to 200 characters. */
  key: string;
  /** How long after a start the window stays open (trailing: the job's start), 1 ms to 1000 days. */
  delayMs: number;
  /** The longest a window stays open from its first start (default: no limit). */
  maxDelayMs?: number;
  /** Which start runs: the last (`trailing`, the default) or the first (`leading`). */
  mode?: DebounceMode;
}

/** The options of a debounced start. */
export interface DebounceOptions {
  debounce?: DebounceOption;
}

/** A checked debounce. */
export interface CheckedDebounce {
  key: string;
  delayMs: number;
  /** Infinity when not limited. */
  maxDelayMs: number;
  mode: DebounceMode;
}

const isDuration = (ms: unknown): ms is number =>
  Number.isSafeInteger(ms) && (ms as number) >= 1 && (ms as number) <= MAX_DURATION_MS;

/**
 * Checks a start's debounce; undefined when it has none. A debounce decides when its job
 * starts, so it takes no `startAt` or `delayMs`, and a trailing one no queue (its job
 * would start from its timers, not from a slot).
 */
export function checkDebounce(
  options: DebounceOptions & { startAt?: unknown; delayMs?: unknown; queue?: unknown },
): CheckedDebounce | undefined {
  const d = options.debounce;
  if (d === undefined) return undefined;
  const where = 'start';
  if (typeof d !== 'object' || d === null) {
    throw new ValidationError('debounce is not an object { key, delayMs }', where);
  }
  if (typeof d.key !== 'string' || d.key.length === 0 || d.key.length > 200) {
    throw new ValidationError(
      `debounce.key ${JSON.stringify(d.key)} is not a string of 1 to 200 characters`,
      where,
    );
  }
  if (!isDuration(d.delayMs)) {
    throw new ValidationError(
      `debounce.delayMs ${JSON.stringify(d.delayMs)} is not a whole number of ms from 1 to ${MAX_DURATION_MS} (1000 days)`,
      where,
    );
  }
  if (d.maxDelayMs !== undefined && (!isDuration(d.maxDelayMs) || d.maxDelayMs < d.delayMs)) {
    throw new ValidationError(
      `debounce.maxDelayMs ${JSON.stringify(d.maxDelayMs)} is not a whole number of ms from delayMs (${d.delayMs}) to ${MAX_DURATION_MS}`,
      where,
    );
  }
  const mode = d.mode ?? 'trailing';
  if (!DEBOUNCE_MODES.includes(mode)) {
    throw new ValidationError(
      `debounce.mode ${JSON.stringify(d.mode)} is not one of ${DEBOUNCE_MODES.join(', ')}`,
      where,
    );
  }
  if (options.startAt !== undefined || options.delayMs !== undefined) {
    throw new ValidationError(
      'a debounced start takes no startAt or delayMs: its window decides when it starts',
      where,
    );
  }
  if (mode === 'trailing' && options.queue !== undefined) {
    throw new ValidationError(
      'a trailing debounce takes no queue (its job starts when its window closes); use mode leading with a queue',
      where,
    );
  }
  return { key: d.key, delayMs: d.delayMs, maxDelayMs: d.maxDelayMs ?? Infinity, mode };
}

/** What a debounced start needs of the start it is part of. */
export interface DebounceStart {
  workflow: string;
  /** The id a new window's job gets. */
  id: string;
  input: Json;
  now: number;
  /** Creates the job, delayed to `startAt` when given (idempotent by id). */
  create(startAt?: number): Promise<{ job: JobRecord; created: boolean }>;
  /** Gives a job that has not begun the input; false when it has. */
  replaceInput(job: JobRecord, input: Json): Promise<boolean>;
}

/** The key of the timer that holds message `n` of a trailing window's job. */
export function heldTimerKey(job: string, n: number): string {
  return `debounce:${job}:${n}`;
}

/**
 * Starts, or joins the open window of, `start.workflow`'s key `d.key`, in `tx`: a new
 * window's job is created (`created: true`); a start that joins a window gets the
 * window's job (`created: false`), with its input when the window is trailing.
 */
export async function debouncedStart(
  tx: StoreTx,
  d: CheckedDebounce,
  start: DebounceStart,
): Promise<{ job: JobRecord; created: boolean }> {
  const { now } = start;
  const fresh: DebounceRecord = {
    workflow: start.workflow,
    key: d.key,
    job: start.id,
    mode: d.mode,
    firstAt: now,
    untilAt: now + d.delayMs,
    starts: 1,
    held: [],
  };
  const window = await tx.claimDebounce(fresh);
  if (window.job !== start.id) {
    const joined =
      window.mode === 'leading'
        ? await joinLeading(tx, d, window, now)
        : await joinTrailing(tx, d, window, start);
    if (joined) return { job: joined, created: false };
  }
  // A new window: its job, held until the window closes when trailing.
  const startAt = d.mode === 'trailing' ? fresh.untilAt : undefined;
  const started = await start.create(startAt);
  if (!started.created) return started;
  const held = startAt === undefined ? [] : await holdFirstMessages(tx, start.id, startAt);
  await tx.putDebounce({ ...fresh, held });
  return started;
}

/** When a window that opened at `firstAt` closes after a start at `now`. */
const closesAt = (d: CheckedDebounce, firstAt: number, now: number) =>
  Math.min(now + d.delayMs, firstAt + d.maxDelayMs);

/** A leading window's job while the window is open (and moves its end), else undefined. */
async function joinLeading(
  tx: StoreTx,
  d: CheckedDebounce,
  window: DebounceRecord,
  now: number,
): Promise<JobRecord | undefined> {
  if (now >= window.untilAt) return undefined;
  const job = await tx.getJob(window.job);
  if (!job) return undefined;
  const untilAt = Math.max(window.untilAt, closesAt(d, window.firstAt, now));
  await tx.putDebounce({ ...window, untilAt, starts: window.starts + 1 });
  return job;
}

/**
 * A trailing window's job with `start.input`, its start moved to `delayMs` from now (not
 * past `maxDelayMs` from the first start), while its timers have not fired; else
 * undefined, and nothing changed.
 */
async function joinTrailing(
  tx: StoreTx,
  d: CheckedDebounce,
  window: DebounceRecord,
  start: DebounceStart,
): Promise<JobRecord | undefined> {
  const job = await tx.lockJob(window.job);
  if (!job || isFinalFlowState(job.state) || window.held.length === 0) return undefined;
  const cancelled: boolean[] = [];
  for (const [n] of window.held.entries()) {
    cancelled.push(await tx.cancelTimer(heldTimerKey(job.id, n)));
  }
  const open = cancelled.every(Boolean) && (await start.replaceInput(job, start.input as Json));
  const untilAt = open ? closesAt(d, window.firstAt, start.now) : window.untilAt;
  // A timer that fired already started the job: the ones cancelled go back as they were.
  for (const [n, message] of window.held.entries()) {
    if (cancelled[n]) {
      await tx.scheduleTimer({ key: heldTimerKey(job.id, n), at: untilAt, message });
    }
  }
  if (!open) return undefined;
  await tx.addCounter(startAtRef(job.id), BigInt(untilAt - window.untilAt));
  await tx.putDebounce({ ...window, untilAt, starts: window.starts + 1 });
  return tx.getJob(job.id);
}

/**
 * Moves the first messages of job `id`, just created with its start at `at`, from their
 * streams into timers due at `at`; returns them.
 */
async function holdFirstMessages(tx: StoreTx, id: string, at: number): Promise<NewMessage[]> {
  const messages = await tx.jobMessages(id);
  const held: NewMessage[] = messages.map((m) => ({
    stream: m.stream,
    job: m.job,
    payload: m.payload,
  }));
  for (const stream of new Set(messages.map((m) => m.stream))) {
    const ids = messages.filter((m) => m.stream === stream).map((m) => m.id);
    await tx.remove(stream, ids);
  }
  for (const [n, message] of held.entries()) {
    await tx.scheduleTimer({ key: heldTimerKey(id, n), at, message });
  }
  return held;
}
