/**
 * The retry policy both models share (core/retry-policy.ts): the defaults, the delays
 * (growing, capped, jittered only upwards), the errors that end retries at once, and the
 * schedule-to-close deadline that leaves no room for another attempt.
 */
import { describe, expect, it } from 'vitest';
import { NonRetryableError, toErrorRecord, ValidationError } from '../../src/core/errors.js';
import {
  DEFAULT_RETRY,
  decideRetry,
  isNonRetryable,
  retryDelay,
  retryPolicy,
} from '../../src/core/retry-policy.js';

const never = () => {
  throw new Error('no random number wanted');
};

describe('retry policy', () => {
  it('defaults to three attempts, 1 s then 2 s apart, no jitter, a cap of 100 × backoff', () => {
    expect(retryPolicy()).toEqual({
      attempts: 3,
      backoffMs: 1000,
      factor: 2,
      maxBackoffMs: 100_000,
      jitter: 0,
      nonRetryable: [],
    });
    expect(DEFAULT_RETRY.attempts).toBe(3);
    expect(retryPolicy({ backoff: 50 }).maxBackoffMs).toBe(5000);
    expect(retryPolicy({ attempts: 1 }).attempts).toBe(1);
  });

  it('grows each delay by the factor and never passes max_backoff', () => {
    const policy = retryPolicy({ backoff: 100, factor: 3, max_backoff: 1000 });
    expect([2, 3, 4, 5, 6].map((n) => retryDelay(policy, n, never))).toEqual([
      100, 300, 900, 1000, 1000,
    ]);
  });

  it('adds jitter from the injected random source, never shortening a delay', () => {
    const policy = retryPolicy({ backoff: 1000, jitter: 0.5 });
    expect(retryDelay(policy, 2, () => 0)).toBe(1000);
    expect(retryDelay(policy, 2, () => 0.5)).toBe(1250);
    expect(retryDelay(policy, 2, () => 0.999)).toBe(1500);
    expect(retryDelay(policy, 3, () => 0.5)).toBe(2500);
    // The cap holds with jitter too.
    const capped = retryPolicy({ backoff: 1000, jitter: 1, max_backoff: 1200 });
    expect(retryDelay(capped, 2, () => 0.9)).toBe(1200);
  });

  it('retries until the attempts run out, saying when the next may start', () => {
    const policy = retryPolicy({ attempts: 3, backoff: 200 });
    const error = { name: 'Error' };
    expect(decideRetry(policy, { attempt: 1, error, now: 10_000 }, never)).toEqual({
      retry: true,
      attempt: 2,
      delayMs: 200,
      at: 10_200,
    });
    expect(decideRetry(policy, { attempt: 2, error, now: 10_000 }, never)).toMatchObject({
      retry: true,
      attempt: 3,
      delayMs: 400,
    });
    expect(decideRetry(policy, { attempt: 3, error, now: 10_000 }, never)).toEqual({
      retry: false,
      reason: 'attempts',
    });
  });

  it('ends at once on a NonRetryableError (any subclass) or an error named in non_retryable', () => {
    const policy = retryPolicy({ non_retryable: ['ValidationError', 'CardDeclined'] });
    class Declined extends NonRetryableError {}
    for (const error of [
      new NonRetryableError('no'),
      new Declined('card declined'),
      new ValidationError('bad input'),
      Object.assign(new Error('declined'), { name: 'CardDeclined' }),
    ]) {
      const record = toErrorRecord(error);
      expect(isNonRetryable(policy, record)).toBe(true);
      expect(decideRetry(policy, { attempt: 1, error: record, now: 0 }, never)).toEqual({
        retry: false,
        reason: 'non_retryable',
      });
    }
    expect(isNonRetryable(policy, toErrorRecord(new Error('ECONNRESET')))).toBe(false);
    expect(isNonRetryable(policy, undefined)).toBe(false);
  });

  it('does not retry when the next attempt could only start at or after the deadline', () => {
    const policy = retryPolicy({ backoff: 1000 });
    const error = { name: 'Error' };
    expect(decideRetry(policy, { attempt: 1, error, now: 0, deadline: 1001 }, never)).toMatchObject(
      { retry: true, at: 1000 },
    );
    expect(decideRetry(policy, { attempt: 1, error, now: 0, deadline: 1000 }, never)).toEqual({
      retry: false,
      reason: 'deadline',
    });
  });
});
