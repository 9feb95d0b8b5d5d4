/**
 * A start with an idempotency key (`Client.start`'s `idempotencyKey`, `weft start
 * --idempotency-key`): the first start with a key claims it for its workflow until it
 * expires (`idempotencyTtlMs`, 24 hours by default); a start with a key that is held gets,
 * by `onDuplicate`:
 *
 * - `return` (the default): the job that holds it, and starts nothing;
 * - `refuse`: a ConflictError naming that job;
 * - `after_end`: that job while it runs; once it ended, a new job, which takes the key.
 *
 * The claim is made in the start's transaction, so two starts with one key at once are
 * one job, on any number of processes.
 */
import { ConflictError, ValidationError } from '../core/errors.js';
import { isFinalFlowState } from '../core/states.js';
import { MAX_DURATION_MS } from '../graph/durations.js';
import type { JobRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** What a start with a key that is held does. */
export type DuplicatePolicy = 'return' | 'refuse' | 'after_end';

/** The policies, the default first. */
export const DUPLICATE_POLICIES: readonly DuplicatePolicy[] = ['return', 'refuse', 'after_end'];

/** How long a key is held unless a start says: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/** The options of a start with a key. */
export interface IdempotencyOptions {
  /** A key of the caller's (an order id, a webhook's delivery id), up to 200 characters. */
  idempotencyKey?: string;
  /** How long the key is held from this start (default 24 h; up to 1000 days). */
  idempotencyTtlMs?: number;
  /** What a start with a key that is held does (default `return`). */
  onDuplicate?: DuplicatePolicy;
}

/** A checked key. */
export interface CheckedKey {
  key: string;
  ttlMs: number;
  policy: DuplicatePolicy;
}

/** Checks a start's key options; undefined when it has no key. */
export function checkIdempotency(options: IdempotencyOptions): CheckedKey | undefined {
  const { idempotencyKey: key, idempotencyTtlMs: ttlMs, onDuplicate: policy } = options;
  if (key === undefined) {
    if (ttlMs !== undefined || policy !== undefined) {
      throw new ValidationError('idempotencyTtlMs and onDuplicate need an idempotencyKey', 'start');
    }
    return undefined;
  }
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) {
    throw new ValidationError(
      `idempotencyKey ${JSON.stringify(key)} is not a string of 1 to 200 characters`,
      'start',
    );
  }
  if (
    ttlMs !== undefined &&
    (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_DURATION_MS)
  ) {
    throw new ValidationError(
      `idempotencyTtlMs ${JSON.stringify(ttlMs)} is not a whole number of ms from 1 to ${MAX_DURATION_MS} (1000 days)`,
      'start',
    );
  }
  if (policy !== undefined && !DUPLICATE_POLICIES.includes(policy)) {
    throw new ValidationError(
      `onDuplicate ${JSON.stringify(policy)} is not one of ${DUPLICATE_POLICIES.join(', ')}`,
      'start',
    );
  }
  return { key, ttlMs: ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, policy: policy ?? 'return' };
}

/**
 * Claims the key for job `id` of `workflow` in `tx`: undefined when the start goes on
 * (the key was free, or the policy lets a new job take it), or the job to return instead.
 */
export async function claimKey(
  tx: StoreTx,
  workflow: string,
  id: string,
  checked: CheckedKey,
  now: number,
): Promise<JobRecord | undefined> {
  const claim = { workflow, key: checked.key, job: id, expiresAt: now + checked.ttlMs };
  const holder = await tx.claimIdempotencyKey(claim, now);
  if (holder === id) return undefined;
  const held = await tx.getJob(holder);
  const ended = !held || isFinalFlowState(held.state);
  if (checked.policy === 'refuse') {
    throw new ConflictError(
      `idempotency key ${JSON.stringify(checked.key)} of workflow ${workflow} is held by job ${holder} (${held?.state ?? 'gone'}) until it expires`,
      { code: 'DUPLICATE_START' },
    );
  }
  if (held && !(checked.policy === 'after_end' && ended)) return held;
  // The job that held it ended (or is gone): this start takes the key.
  await tx.replaceIdempotencyKey(claim);
  return undefined;
}
