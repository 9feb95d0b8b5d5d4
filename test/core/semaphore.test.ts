import { describe, expect, it } from 'vitest';
import { CounterOverflowError, InvalidStateError, ValidationError } from '../../src/core/errors.js';
import {
  applySemaphoreStep,
  buildSemaphore,
  checkedSemaphoreDelta,
  formatSemaphore,
  isLeg2Closed,
  isLeg2Open,
  LEG1_ENTRY,
  LEG1_EXIT,
  LEG2_ENTRY,
  LEG2_FINAL_EXIT,
  LEG2_PENDING_EXIT,
  leg2Thread,
  parseSemaphore,
  readLeg1Entry,
  readLeg2Entry,
  readLeg2Exit,
  SEMAPHORE_DELTAS,
  SEMAPHORE_INITIAL,
} from '../../src/core/semaphore.js';

const fmt = formatSemaphore;

describe('semaphore: seed 001, value by value', () => {
  it('uses exactly the seed deltas', () => {
    expect(SEMAPHORE_INITIAL).toBe(999000000000000n);
    expect(LEG1_ENTRY).toBe(-100000000000000n);
    expect(LEG1_EXIT).toBe(-10000000000000n);
    expect(LEG2_ENTRY).toBe(1000000n);
    expect(LEG2_PENDING_EXIT).toBe(1n);
    expect(LEG2_FINAL_EXIT).toBe(-999999999999n);
  });

  it('walks Leg1 and Leg2 through every value of the seed', () => {
    let v = SEMAPHORE_INITIAL;
    v = applySemaphoreStep(v, 'leg1Entry');
    expect(fmt(v)).toBe('899000000000000');
    expect(readLeg1Entry(v)).toBe('run');

    v = applySemaphoreStep(v, 'leg1Exit');
    expect(fmt(v)).toBe('889000000000000');
    expect(isLeg2Open(v)).toBe(true);

    v = applySemaphoreStep(v, 'leg2Entry');
    expect(fmt(v)).toBe('889000001000000');
    expect(readLeg2Entry(v)).toEqual({ admitted: true, thread: 1 });

    v = applySemaphoreStep(v, 'leg2Pending');
    expect(fmt(v)).toBe('889000001000001');
    expect(readLeg2Exit(v)).toEqual({ closed: false, exits: 1 });

    v = applySemaphoreStep(v, 'leg2Entry');
    expect(fmt(v)).toBe('889000002000001');
    expect(readLeg2Entry(v)).toEqual({ admitted: true, thread: 2 });
    expect(leg2Thread(v)).toBe(2);

    v = applySemaphoreStep(v, 'leg2Final');
    expect(fmt(v)).toBe('888000002000002');
    expect(readLeg2Exit(v)).toEqual({ closed: true, exits: 2 });
    expect(isLeg2Closed(v)).toBe(true);

    v = applySemaphoreStep(v, 'leg2Entry');
    expect(fmt(v)).toBe('888000003000002');
    const reading = readLeg2Entry(v);
    expect(reading).toEqual({ admitted: false, rollback: -1000000n });
    if (reading.admitted) throw new Error('unreachable');
    v += reading.rollback;
    expect(fmt(v)).toBe('888000002000002');
  });

  it('parses all five fields and builds them back', () => {
    const fields = parseSemaphore(888000002000002n);
    expect(fields).toEqual({
      leg1Entry: 8,
      leg1Exit: 8,
      leg2Exit: 8,
      leg2Entries: 2,
      leg2Exits: 2,
    });
    expect(buildSemaphore(fields)).toBe(888000002000002n);
    expect(() => buildSemaphore({ ...fields, leg2Entries: 1_000_000 })).toThrow(ValidationError);
    expect(() => buildSemaphore({ ...fields, leg1Exit: 10 })).toThrow(ValidationError);
  });
});

describe('semaphore: crash recovery readings after the Leg1 entry add', () => {
  it('799… means Leg1 began but crashed: re-run', () => {
    const crashed = SEMAPHORE_INITIAL + LEG1_ENTRY; // entered, then the process died
    const again = crashed + LEG1_ENTRY;
    expect(fmt(again)).toBe('799000000000000');
    expect(readLeg1Entry(again)).toBe('rerun');
    expect(readLeg1Entry(again + LEG1_ENTRY)).toBe('rerun'); // 699…: a third try
  });

  it('789… means Leg1 finished before the ack: do not re-run', () => {
    const finished = SEMAPHORE_INITIAL + LEG1_ENTRY + LEG1_EXIT;
    const redelivered = finished + LEG1_ENTRY;
    expect(fmt(redelivered)).toBe('789000000000000');
    expect(readLeg1Entry(redelivered)).toBe('done');
  });

  it('refuses to read an entry that was never added', () => {
    expect(() => readLeg1Entry(SEMAPHORE_INITIAL)).toThrow(InvalidStateError);
  });
});

describe('semaphore: counters never wrap silently', () => {
  const full = buildSemaphore({
    leg1Entry: 8,
    leg1Exit: 8,
    leg2Exit: 9,
    leg2Entries: 999_999,
    leg2Exits: 999_999,
  });

  it('refuses an add at the 999,999 limit before it is made', () => {
    expect(() => checkedSemaphoreDelta(full, 'leg2Entry')).toThrow(CounterOverflowError);
    expect(() => checkedSemaphoreDelta(full, 'leg2Pending')).toThrow(CounterOverflowError);
    expect(() => checkedSemaphoreDelta(full, 'leg2Final')).toThrow(CounterOverflowError);
    let caught: unknown;
    try {
      checkedSemaphoreDelta(full, 'leg2Entry');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      name: 'CounterOverflowError',
      counter: 'semaphore leg2 entries',
      limit: 999_999,
    });
  });

  it('refuses a status digit driven past 0', () => {
    const spent = buildSemaphore({ ...parseSemaphore(full), leg1Entry: 0 });
    expect(() => checkedSemaphoreDelta(spent, 'leg1Entry')).toThrow(CounterOverflowError);
    expect(() => checkedSemaphoreDelta(SEMAPHORE_INITIAL, 'leg2Rollback')).toThrow(
      InvalidStateError,
    );
  });

  it('detects a wrap after an unchecked store add', () => {
    expect(() => readLeg2Entry(full + LEG2_ENTRY)).toThrow(CounterOverflowError);
    expect(() => readLeg2Exit(full + LEG2_PENDING_EXIT)).toThrow(CounterOverflowError);
    expect(() => parseSemaphore(-1n)).toThrow(ValidationError);
    expect(() => parseSemaphore(10n ** 15n)).toThrow(ValidationError);
  });

  it('every step delta is the checked delta when nothing is at a limit', () => {
    const middle = 889000005000003n;
    for (const step of ['leg1Exit', 'leg2Entry', 'leg2Pending', 'leg2Final'] as const) {
      expect(checkedSemaphoreDelta(middle, step)).toBe(SEMAPHORE_DELTAS[step]);
    }
  });
});
