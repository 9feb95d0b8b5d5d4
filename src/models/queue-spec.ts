/**
 * A queue as a user declares it — in code (`defineQueue`, a worker's `queues`), or on
 * the command line (`weft queue create`) — checked once, and stored. Declaring a queue
 * again replaces its limits and keeps its rate limiter's state.
 */
import { ValidationError } from '../core/errors.js';
import type { QueueRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** A queue's name: letters, digits and `. _ : -`, not first, up to 128. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** How long a job waits before it counts as one priority higher, unless a queue says: 1 minute. */
export const DEFAULT_AGING_MS = 60_000;

/** The longest period or aging weft takes: 1000 days. */
const MAX_MS = 1000 * 86_400_000;

/** What a queue is, as declared. */
export interface QueueSpec {
  name: string;
  /** Most of its jobs running at once, across every worker (default: no limit). */
  concurrency?: number;
  /** Most jobs of one key running at once (default: no limit). */
  keyConcurrency?: number;
  /** Most starts per period; the excess waits (default: no limit). */
  rateLimit?: { limit: number; periodMs: number };
  /** A waiting job counts as one priority higher after this long, and again (default 60000). */
  agingMs?: number;
}

/** A checked declaration. */
export type CheckedQueue = Pick<
  QueueRecord,
  'name' | 'concurrency' | 'keyConcurrency' | 'rateLimit' | 'ratePeriodMs' | 'agingMs'
>;

function wholeNumber(value: unknown, field: string, where: string, min: number, max: number) {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw new ValidationError(
      `${field} ${JSON.stringify(value)} is not a whole number from ${min} to ${max}`,
      where,
    );
  }
  return value as number;
}

/** Checks a declaration; a field that is wrong is a ValidationError naming it. */
export function checkQueue(spec: QueueSpec, where = `queue ${spec?.name}`): CheckedQueue {
  if (typeof spec?.name !== 'string' || !NAME.test(spec.name)) {
    throw new ValidationError(
      `name ${JSON.stringify(spec?.name)} is not a queue name: letters, digits and . _ : - (not first), up to 128`,
      where,
    );
  }
  const limit = (v: unknown, field: string) =>
    v === undefined ? null : wholeNumber(v, field, where, 1, 1_000_000);
  const rate = spec.rateLimit;
  return {
    name: spec.name,
    concurrency: limit(spec.concurrency, 'concurrency'),
    keyConcurrency: limit(spec.keyConcurrency, 'keyConcurrency'),
    rateLimit:
      rate === undefined ? null : wholeNumber(rate?.limit, 'rateLimit.limit', where, 1, 1_000_000),
    ratePeriodMs:
      rate === undefined
        ? null
        : wholeNumber(rate?.periodMs, 'rateLimit.periodMs', where, 1, MAX_MS),
    agingMs:
      spec.agingMs === undefined
        ? DEFAULT_AGING_MS
        : wholeNumber(spec.agingMs, 'agingMs', where, 0, MAX_MS),
  };
}

/** A queue declared in code, marked so a worker module's exports are found. */
export type QueueDefinition = CheckedQueue & { readonly kind: 'queue' };

/** Declares a queue in code, checked at once. Give it to a worker's `queues`, or export it from a `weft worker --handlers` module. */
export function defineQueue(spec: QueueSpec): QueueDefinition {
  return Object.freeze({ ...checkQueue(spec), kind: 'queue' as const });
}

/** What declaring did. */
export type QueueDeclareStatus = 'created' | 'updated' | 'unchanged';

/** Stores a checked queue in `tx`. */
export async function declareQueue(
  tx: StoreTx,
  spec: CheckedQueue,
  now: number,
  source: string,
): Promise<{ queue: QueueRecord; status: QueueDeclareStatus }> {
  const stored = await tx.lockQueue(spec.name);
  const fields = ['concurrency', 'keyConcurrency', 'rateLimit', 'ratePeriodMs', 'agingMs'] as const;
  if (stored && fields.every((f) => stored[f] === spec[f])) {
    return { queue: stored, status: 'unchanged' };
  }
  const queue: QueueRecord = {
    name: spec.name,
    concurrency: spec.concurrency,
    keyConcurrency: spec.keyConcurrency,
    rateLimit: spec.rateLimit,
    ratePeriodMs: spec.ratePeriodMs,
    agingMs: spec.agingMs,
    rateTat: stored?.rateTat ?? 0,
    lastKey: stored?.lastKey ?? null,
    source,
    createdAt: stored?.createdAt ?? now,
    updatedAt: now,
  };
  await tx.putQueue(queue);
  return { queue, status: stored ? 'updated' : 'created' };
}
