import { describe, expect, it } from 'vitest';
import { InvalidStateError, ValidationError } from '../../src/core/errors.js';
import {
  formatSemaphore,
  isLeg2Closed,
  isLeg2Open,
  LEG1_ENTRY,
  LEG1_EXIT,
  LEG2_ENTRY,
  LEG2_FINAL_EXIT,
  LEG2_PENDING_EXIT,
  parseSemaphore,
  readLeg1Entry,
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
    let v = SEMAPHORE_INITIAL + LEG1_ENTRY;
    expect(fmt(v)).toBe('899000000000000');
    expect(readLeg1Entry(v)).toBe('run');

    v += LEG1_EXIT;
    expect(fmt(v)).toBe('889000000000000');
    expect(isLeg2Open(v)).toBe(true);

    v += LEG2_ENTRY;
    expect(fmt(v)).toBe('889000001000000');
    v += LEG2_PENDING_EXIT;
    expect(fmt(v)).toBe('889000001000001');
    expect(isLeg2Open(v)).toBe(true);

    v += LEG2_ENTRY;
    expect(fmt(v)).toBe('889000002000001');
    v += LEG2_FINAL_EXIT;
    expect(fmt(v)).toBe('888000002000002');
    expect(isLeg2Closed(v)).toBe(true);

    // A further Leg2 input after it closed: the add is made, the reading refuses it.
    v += LEG2_ENTRY;
    expect(fmt(v)).toBe('888000003000002');
    expect(isLeg2Closed(v)).toBe(true);
  });

  it('parses all five fields', () => {
    expect(parseSemaphore(888000002000002n)).toEqual({
      leg1Entry: 8,
      leg1Exit: 8,
      leg2Exit: 8,
      leg2Entries: 2,
      leg2Exits: 2,
    });
    expect(() => parseSemaphore(-1n)).toThrow(ValidationError);
    expect(() => parseSemaphore(10n ** 15n)).toThrow(ValidationError);
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
