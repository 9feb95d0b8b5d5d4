/**
 * What a queue declaration may say, checked the same wherever it is made — in code
 * (`defineQueue`, a worker's `queues`), on the command line (`weft queue create`), or in a
 * workflow file (`queue:`): its name, its limits and what a start beyond its rate does.
 */
import { ValidationError } from './errors.js';

/** A queue's name: letters, digits and `. _ : -`, not first, up to 128. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** How long a job waits before it counts as one priority higher, unless a queue says: 1 minute. */
/** Throws a ValidationError naming `where` unless `name` is a queue name. */
export function checkQueueName(name: unknown, where: string): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new ValidationError(
      `name ${JSON.stringify(name)} is not a queue name: letters, digits and . _ : - (not first), up to 128`,
      where,
    );
  }
}

export const DEFAULT_AGING_MS = 60_000;

/** The longest period or aging weft takes: 1000 days. */
const MAX_MS = 1000 * 86_400_000;

/** What a start beyond a rate limit does: waits its turn, or is refused. */
export const THROTTLE_POLICIES = ['wait', 'drop'] as const;
export type ThrottlePolicy = (typeof THROTTLE_POLICIES)[number];

/** A rate: at most `limit` starts per `periodMs`. */
export interface RateSpec {
  limit: number;
  periodMs: number;
}

/** What a queue is, as declared. */
export interface QueueSpec {
  name: string;
  /** Most of its jobs running at once, across every worker (default: no limit). */
  concurrency?: number;
  /** Most jobs of one key running at once (default: no limit). */
  keyConcurrency?: number;
  /** Most starts per period; the excess waits (default: no limit). */
  rateLimit?: RateSpec;
  /** Most starts of one key per period; the excess of that key waits (default: no limit). */
  keyRateLimit?: RateSpec;
  /** A start beyond a rate limit: `wait` (the default) or `drop` (refused, `RATE_LIMITED`). */
  throttle?: ThrottlePolicy;
  /** A waiting job counts as one priority higher after this long, and again (default 60000). */
  agingMs?: number;
}

/** A checked declaration: each limit, or null for none. */
export interface CheckedQueue {
  name: string;
  concurrency: number | null;
  keyConcurrency: number | null;
  rateLimit: number | null;
  ratePeriodMs: number | null;
  keyRateLimit: number | null;
  keyRatePeriodMs: number | null;
  throttle: ThrottlePolicy;
  agingMs: number;
}

/** The fields a declaration sets (the rest of a queue's row is its state). */
export const QUEUE_LIMITS = [
  'concurrency',
  'keyConcurrency',
  'rateLimit',
  'ratePeriodMs',
  'keyRateLimit',
  'keyRatePeriodMs',
  'throttle',
  'agingMs',
] as const;

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
  checkQueueName(spec?.name, where);
  const limit = (v: unknown, field: string) =>
    v === undefined ? null : wholeNumber(v, field, where, 1, 1_000_000);
  const rate = (r: RateSpec | undefined, field: string) =>
    r === undefined
      ? { limit: null, periodMs: null }
      : {
          limit: wholeNumber(r?.limit, `${field}.limit`, where, 1, 1_000_000),
          periodMs: wholeNumber(r?.periodMs, `${field}.periodMs`, where, 1, MAX_MS),
        };
  const queueRate = rate(spec.rateLimit, 'rateLimit');
  const keyRate = rate(spec.keyRateLimit, 'keyRateLimit');
  const throttle = spec.throttle ?? 'wait';
  if (!THROTTLE_POLICIES.includes(throttle)) {
    throw new ValidationError(
      `throttle ${JSON.stringify(spec.throttle)} is not one of ${THROTTLE_POLICIES.join(', ')}`,
      where,
    );
  }
  return {
    name: spec.name,
    concurrency: limit(spec.concurrency, 'concurrency'),
    keyConcurrency: limit(spec.keyConcurrency, 'keyConcurrency'),
    rateLimit: queueRate.limit,
    ratePeriodMs: queueRate.periodMs,
    keyRateLimit: keyRate.limit,
    keyRatePeriodMs: keyRate.periodMs,
    throttle,
    agingMs:
      spec.agingMs === undefined
        ? DEFAULT_AGING_MS
        : wholeNumber(spec.agingMs, 'agingMs', where, 0, MAX_MS),
  };
}
