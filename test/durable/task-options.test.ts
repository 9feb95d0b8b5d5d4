/**
 * `defineTask`'s retry and timeout options, checked when the task is defined (the same
 * schema as a graph task's `retry:`), and `.with()`, the per-call override: retry fields
 * given replace the task's own one by one, the rest are kept.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { defineTask } from '../../src/durable/index.js';

const noop = () => null;

describe('defineTask options', () => {
  it('reads durations as strings or milliseconds', () => {
    const task = defineTask('t', noop, {
      retry: { attempts: 4, backoff: '250ms', max_backoff: '1m', jitter: 0.5 },
      timeoutMs: 1000,
      scheduleToCloseTimeoutMs: 60_000,
      heartbeatTimeoutMs: 5000,
    });
    expect(task.retry).toEqual({ attempts: 4, backoff: 250, max_backoff: 60_000, jitter: 0.5 });
    expect(task).toMatchObject({
      timeoutMs: 1000,
      scheduleToCloseTimeoutMs: 60_000,
      heartbeatTimeoutMs: 5000,
    });
    expect(defineTask('u', noop, { retry: { backoff: 30 } }).retry).toEqual({ backoff: 30 });
    expect(defineTask('v', noop).retry).toBeUndefined();
  });

  it.each([
    [{ retry: { backoff: '1 second' } }, /retry\.backoff/],
    [{ retry: { jitter: 2 } }, /retry\.jitter: Too big/],
    [{ retry: { attempts: 0 } }, /retry\.attempts: Too small/],
    [{ retry: { tries: 3 } }, /retry/],
    [
      { retry: { backoff: '1s', max_backoff: '10ms' } },
      /max_backoff \(10ms\) is less than backoff/,
    ],
    [{ timeoutMs: -1 }, /timeoutMs must be whole milliseconds/],
    [{ heartbeatTimeoutMs: 1.5 }, /heartbeatTimeoutMs must be whole milliseconds/],
  ])('refuses %j with a ValidationError naming the field', (options, message) => {
    const define = () => defineTask('bad', noop, options as never);
    expect(define).toThrow(ValidationError);
    expect(define).toThrow(message);
  });

  it('.with() overrides retry fields one by one and timeouts as given, for one call', () => {
    const task = defineTask('t', noop, {
      retry: { attempts: 5, backoff: '1s', non_retryable: ['Declined'] },
      timeoutMs: 1000,
    });
    const once = task.with({ retry: { attempts: 1 }, heartbeatTimeoutMs: 200 });
    expect(once.retry).toEqual({ attempts: 1, backoff: 1000, non_retryable: ['Declined'] });
    expect(once).toMatchObject({ name: 't', timeoutMs: 1000, heartbeatTimeoutMs: 200 });
    expect(once.run).toBe(task.run);
    // The task itself is unchanged.
    expect(task.retry?.attempts).toBe(5);
    expect(task.heartbeatTimeoutMs).toBeUndefined();
    expect(() => task.with({ retry: { factor: 0 } })).toThrow(ValidationError);
  });
});
