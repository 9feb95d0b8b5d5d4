/**
 * A task's retry policy, the same for graph tasks and code-first tasks: how many attempts,
 * how long to wait before each retry (a delay growing by a factor, capped, with optional
 * jitter), which errors end the retries at once, and whether a deadline across all
 * attempts (schedule-to-close) leaves room for another one.
 *
 * Pure: the caller passes the time, the deadline and a random source (for jitter).
 */

/** A retry policy, durations in milliseconds. */
export interface RetryPolicy {
  /** Total attempts, the first included (1 = no retry). */
  attempts: number;
  /** Delay before the second attempt. */
  backoffMs: number;
  /** Each further delay is the previous one times this. */
  factor: number;
  /** No delay exceeds this. */
  maxBackoffMs: number;
  /**
   * Up to this fraction of a delay is added to it at random (0 = none, 1 = up to double),
   * so many failures at once do not all come back at the same instant. Never shortens a
   * delay: `backoff` stays the least wait.
   */
  jitter: number;
  /** Error names that end the retries at once (beside a `NonRetryableError`). */
  nonRetryable: readonly string[];
}

/** A retry policy as written (a graph task's `retry:`, `defineTask`'s `retry`), in ms. */
export interface RetrySettings {
  attempts?: number;
  backoff?: number;
  factor?: number;
  max_backoff?: number;
  jitter?: number;
  non_retryable?: readonly string[];
}

/**
 * The default for every task of both models: three attempts, 1 s then 2 s apart, no
 * jitter. Users of Temporal and Inngest expect a task to be retried with exponential
 * backoff unless they say otherwise (one `ECONNRESET` should not fail a job); three
 * attempts keep a handler that always fails from holding its job long.
 */
export const DEFAULT_RETRY: Readonly<Required<Omit<RetrySettings, 'max_backoff'>>> = {
  attempts: 3,
  backoff: 1_000,
  factor: 2,
  jitter: 0,
  non_retryable: [],
};

/** Without `max_backoff`, no delay exceeds this many times `backoff` (Temporal's rule). */
export const DEFAULT_MAX_BACKOFF_FACTOR = 100;

/** The code of {@link NonRetryableError} (`core/errors.ts`), which ends retries whatever its name. */
export const NON_RETRYABLE_CODE = 'NON_RETRYABLE';

/** A policy from written settings: absent fields take {@link DEFAULT_RETRY}'s values. */
export function retryPolicy(settings: RetrySettings = {}): RetryPolicy {
  const backoffMs = settings.backoff ?? DEFAULT_RETRY.backoff;
  return {
    attempts: settings.attempts ?? DEFAULT_RETRY.attempts,
    backoffMs,
    factor: settings.factor ?? DEFAULT_RETRY.factor,
    maxBackoffMs: settings.max_backoff ?? backoffMs * DEFAULT_MAX_BACKOFF_FACTOR,
    jitter: settings.jitter ?? DEFAULT_RETRY.jitter,
    nonRetryable: [...(settings.non_retryable ?? DEFAULT_RETRY.non_retryable)],
  };
}

/** One attempt, no retry: what a policy of `{ attempts: 1 }` is. */
export const NO_RETRY: RetryPolicy = retryPolicy({ attempts: 1 });

/** A random number in [0, 1). */
export type RandomSource = () => number;

/**
 * The delay before attempt `next` (2 = the first retry): `backoff × factor^(next-2)`,
 * plus up to `jitter` of itself at random, never above `maxBackoff`.
 */
export function retryDelay(policy: RetryPolicy, next: number, random: RandomSource): number {
  const base = policy.backoffMs * policy.factor ** Math.max(0, next - 2);
  const jittered = policy.jitter > 0 ? base * (1 + policy.jitter * random()) : base;
  return Math.round(Math.min(policy.maxBackoffMs, jittered));
}

/** What a failed attempt was, as far as retrying goes. */
export interface AttemptFailure {
  /** The attempt that failed (1 = the first). */
  attempt: number;
  /** Its error's name and code (a `NonRetryableError` has the code {@link NON_RETRYABLE_CODE}). */
  error: { name: string; code?: string } | null | undefined;
  /** When it failed (epoch ms). */
  now: number;
  /** The schedule-to-close deadline (epoch ms): no attempt starts at or after it. */
  deadline?: number | undefined;
}

/** What happens after a failed attempt. */
export type RetryDecision =
  | {
      retry: true;
      /** The next attempt's number. */
      attempt: number;
      delayMs: number;
      /** When it may start (epoch ms): `now + delayMs`. */
      at: number;
    }
  | {
      retry: false;
      /** Why not: no attempts left, an error that is not retried, or no time left. */
      reason: 'attempts' | 'non_retryable' | 'deadline';
    };

/** True when `error` ends the retries at once under `policy`. */
export function isNonRetryable(
  policy: RetryPolicy,
  error: { name: string; code?: string } | null | undefined,
): boolean {
  if (!error) return false;
  return error.code === NON_RETRYABLE_CODE || policy.nonRetryable.includes(error.name);
}

/** Decides whether a failed attempt is retried, and when. */
export function decideRetry(
  policy: RetryPolicy,
  failure: AttemptFailure,
  random: RandomSource,
): RetryDecision {
  if (isNonRetryable(policy, failure.error)) return { retry: false, reason: 'non_retryable' };
  if (failure.attempt >= policy.attempts) return { retry: false, reason: 'attempts' };
  const attempt = failure.attempt + 1;
  const delayMs = retryDelay(policy, attempt, random);
  const at = failure.now + delayMs;
  if (failure.deadline !== undefined && at >= failure.deadline) {
    return { retry: false, reason: 'deadline' };
  }
  return { retry: true, attempt, delayMs, at };
}
