/**
 * Which prunes a retention sweep runs: each workflow's policy for the end states it
 * names, the worker's default for the rest (leaving out, per state, the workflows whose
 * policy names it), `forever` none; and how often it sweeps.
 */
import { describe, expect, it } from 'vitest';
import type { RetentionRecord } from '../../src/store/records.js';
import { retentionPasses, sweepEveryMs } from '../../src/worker/retention-sweep.js';

const record = (workflow: string, policy: RetentionRecord['policy']): RetentionRecord => ({
  workflow,
  policy,
  source: 'file',
  updatedAt: 0,
});

describe('retentionPasses', () => {
  it('prunes nothing with no policy and no default', () => {
    expect(retentionPasses([], {}, 1_000)).toEqual([]);
    expect(sweepEveryMs([], {})).toBe(60_000);
  });

  it('applies a default to every workflow, states with one duration in one pass', () => {
    expect(retentionPasses([], { SUCCESS: 100, FAILURE: 100, REVERTED: 300 }, 1_000)).toEqual([
      { states: ['SUCCESS', 'FAILURE'], endedBefore: 900 },
      { states: ['REVERTED'], endedBefore: 700 },
    ]);
  });

  it('gives workflows their own, and the default the rest', () => {
    const policies = [record('a', { SUCCESS: 10, FAILURE: null }), record('b', { REVERTED: 20 })];
    expect(retentionPasses(policies, { SUCCESS: 100, FAILURE: 100, REVERTED: 100 }, 1_000)).toEqual(
      [
        { workflow: 'a', states: ['SUCCESS'], endedBefore: 990 },
        { workflow: 'b', states: ['REVERTED'], endedBefore: 980 },
        { states: ['SUCCESS', 'FAILURE'], endedBefore: 900, exceptWorkflows: ['a'] },
        { states: ['REVERTED'], endedBefore: 900, exceptWorkflows: ['b'] },
      ],
    );
    expect(sweepEveryMs(policies, {})).toBe(250);
    expect(sweepEveryMs([], { SUCCESS: 3_600_000 })).toBe(60_000);
    expect(sweepEveryMs([], { FAILURE: 8_000 })).toBe(2_000);
  });
});
