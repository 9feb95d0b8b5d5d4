import { describe, expect, it } from 'vitest';
import {
  ACTIVE_DIGITS,
  COLLATION_DIGITS,
  COLLATION_MOVES,
  type CollationDigit,
  DIGIT_LABELS,
  findMove,
  isMoveAllowed,
} from '../../src/core/collation-digits.js';

describe('collation digits', () => {
  it('mean what seed 000 says', () => {
    expect(COLLATION_DIGITS).toEqual({
      pending: 9,
      started: 8,
      errored: 7,
      completed: 6,
      paused: 5,
      released: 4,
      skipped: 3,
      awaitRight: 2,
      awaitLeft: 1,
      none: 0,
    });
    expect(DIGIT_LABELS[6]).toBe('Completed');
    expect([...ACTIVE_DIGITS].sort()).toEqual([5, 8, 9]);
  });

  it('allow exactly the listed moves', () => {
    const pairs: [CollationDigit, CollationDigit][] = [];
    for (const rule of Object.values(COLLATION_MOVES)) {
      for (const from of rule.from) pairs.push([from, rule.to]);
    }
    expect(pairs.map(([a, b]) => `${a}${b}`).sort()).toEqual(
      ['98', '86', '87', '57', '65', '54', '93', '69', '79', '49', '39', '68', '78', '83'].sort(),
    );
    expect(isMoveAllowed('start', 9)).toBe(true);
    expect(isMoveAllowed('start', 8)).toBe(false);
    expect(findMove(5, 4)).toBe('release');
    expect(findMove(9, 6)).toBeUndefined();
  });
});
