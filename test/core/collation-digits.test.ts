import { describe, expect, it } from 'vitest';
import {
  ACTIVE_DIGITS,
  ACTIVITY_STATE_DIGITS,
  type ActivityState,
  COLLATION_DIGITS,
  COLLATION_MOVES,
  type CollationDigit,
  DIGIT_LABELS,
  digitOfState,
  findMove,
  isActiveDigit,
  isCollationDigit,
  isMoveAllowed,
} from '../../src/core/collation-digits.js';
import { TASK_STATES, TASK_TRANSITIONS } from '../../src/core/states.js';

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
    expect(isActiveDigit(5)).toBe(true);
    expect(isActiveDigit(4)).toBe(false);
    expect(isCollationDigit(9)).toBe(true);
    expect(isCollationDigit(10)).toBe(false);
    expect(isCollationDigit(1.5)).toBe(false);
  });

  it('map activity states to digits in one table', () => {
    expect(ACTIVITY_STATE_DIGITS).toEqual({
      PENDING: 9,
      RUNNING: 8,
      SUCCESS: 6,
      FAILURE: 7,
      IGNORE: 3,
      REVERTING: 8,
      REVERTED: 3,
      REVERT_FAILURE: 7,
      paused: 5,
      released: 4,
    });
    for (const state of TASK_STATES) expect(isCollationDigit(digitOfState(state))).toBe(true);
  });

  it('allow exactly the listed moves', () => {
    const pairs: [CollationDigit, CollationDigit][] = [];
    for (const rule of Object.values(COLLATION_MOVES)) {
      for (const from of rule.from) pairs.push([from, rule.to]);
    }
    expect(pairs.map(([a, b]) => `${a}${b}`).sort()).toEqual(
      // 38: an older thread of a re-entered activity reverts after its newer one ended on 3.
      [
        '98',
        '86',
        '87',
        '57',
        '65',
        '54',
        '93',
        '69',
        '79',
        '49',
        '39',
        '68',
        '78',
        '38',
        '83',
      ].sort(),
    );
    expect(isMoveAllowed('start', 9)).toBe(true);
    expect(isMoveAllowed('start', 8)).toBe(false);
    expect(findMove(5, 4)).toBe('release');
    expect(findMove(9, 6)).toBeUndefined();
  });

  it('give every legal task-machine move a legal collation move', () => {
    for (const from of TASK_STATES) {
      for (const to of TASK_TRANSITIONS[from]) {
        const move = findMove(digitOfState(from), digitOfState(to));
        expect(move, `${from} -> ${to}`).toBeDefined();
      }
    }
    const extra: [ActivityState, ActivityState][] = [
      ['SUCCESS', 'paused'],
      ['paused', 'released'],
      ['released', 'PENDING'],
    ];
    for (const [from, to] of extra) {
      expect(findMove(digitOfState(from), digitOfState(to)), `${from} -> ${to}`).toBeDefined();
    }
  });
});
