/**
 * The rules both engines revert by (core/revert-order.ts) and TaskFlow's retry
 * controllers' decisions (core/retry-controller.ts), as pure functions.
 */
import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../../src/core/errors.js';
import { decideRetry, type RetryController, retryValue } from '../../src/core/retry-controller.js';
import {
  isRevertFailure,
  nextRevert,
  revertedFlowState,
  revertFailedError,
  revertInput,
  revertLabel,
  revertMove,
} from '../../src/core/revert-order.js';

describe('revert order', () => {
  it('picks the unreverted finished run with the highest completion number', () => {
    const runs = [
      { ref: 'a', state: 'REVERTED' as const, seq: 5 },
      { ref: 'b', state: 'SUCCESS' as const, seq: 2 },
      { ref: 'c', state: 'FAILURE' as const, seq: 4 },
      { ref: 'd', state: 'REVERT_FAILURE' as const, seq: 6 },
      { ref: 'e', state: 'SUCCESS' as const, seq: 1 },
    ];
    expect(nextRevert(runs)?.ref).toBe('c');
    expect(nextRevert(runs.filter((r) => r.ref !== 'c'))?.ref).toBe('b');
    expect(nextRevert([{ ref: 'x', state: 'REVERTED' as const, seq: 1 }])).toBeUndefined();
  });

  it('moves task states only along the task machine', () => {
    expect(revertMove('SUCCESS', 'start')).toBe('REVERTING');
    expect(revertMove('FAILURE', 'start')).toBe('REVERTING');
    expect(revertMove('REVERTING', 'success')).toBe('REVERTED');
    expect(revertMove('REVERTING', 'failure')).toBe('REVERT_FAILURE');
    expect(() => revertMove('RUNNING', 'start')).toThrow(InvalidStateError);
    expect(() => revertMove('PENDING', 'success')).toThrow(InvalidStateError);
  });

  it('gives the handler its run, and ends REVERTED unless a revert failed', () => {
    expect(revertInput({ input: 1, output: 2 })).toEqual({ input: 1, output: 2, error: null });
    const original = { name: 'Error', message: 'no courier' };
    const failed = revertFailedError(
      'charge',
      { name: 'Error', message: 'refund broke' },
      original,
    );
    expect(failed).toMatchObject({ code: 'REVERT_FAILURE', activity: 'charge' });
    expect(failed.message).toBe(
      'revert of charge failed: refund broke (while reverting after: no courier)',
    );
    expect(isRevertFailure(failed)).toBe(true);
    expect(revertedFlowState(failed)).toBe('FAILURE');
    expect(revertedFlowState(original)).toBe('REVERTED');
    expect(revertLabel('REVERTED')).toBe('Reverted');
    expect(revertLabel('SUCCESS')).toBeUndefined();
  });
});

describe('retry controllers', () => {
  it('times: RETRY until the last run, then REVERT; the value is the run number', () => {
    const times = { kind: 'times', times: 3 } as const;
    expect([1, 2, 3].map((n) => decideRetry(times, n, []))).toEqual(['RETRY', 'RETRY', 'REVERT']);
    expect(retryValue(times, 2, [])).toBe(2);
  });

  it('for_each: one run per value, then REVERT', () => {
    const values = ['a', 'b'];
    const each: RetryController = { kind: 'for_each', values };
    expect(decideRetry(each, 1, values)).toBe('RETRY');
    expect(decideRetry(each, 2, values)).toBe('REVERT');
    expect(retryValue(each, 2, values)).toBe('b');
    expect(decideRetry({ kind: 'for_each', expression: 'input.x' }, 1, [])).toBe('REVERT');
  });

  it('revert and revert_all decide at once; a REVERT_ALL from inside overrides any', () => {
    expect(decideRetry({ kind: 'revert' }, 1, [])).toBe('REVERT');
    expect(decideRetry({ kind: 'revert_all' }, 1, [])).toBe('REVERT_ALL');
    expect(decideRetry({ kind: 'times', times: 9 }, 1, [], true)).toBe('REVERT_ALL');
    expect(retryValue({ kind: 'revert' }, 1, [])).toBeNull();
  });
});
