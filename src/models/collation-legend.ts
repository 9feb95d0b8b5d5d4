/**
 * What the numbers on a graph job's page mean, for its legend: each digit an activity's
 * place in the collation key can hold (read off core/collation-digits.ts, so the legend
 * never disagrees with the engine), and the fields of an activity's 15-digit semaphore
 * (core/semaphore.ts, seed 001). Also the words a page shows for one activity's digit,
 * which tell a reverted activity (3, its effect undone) from a skipped one (3, never ran),
 * and whether the activity failed.
 */
import {
  ACTIVE_DIGITS,
  COLLATION_DIGITS,
  type CollationDigit,
  DIGIT_LABELS,
} from '../core/collation-digits.js';

/** One digit of the collation key, explained. */
export interface DigitLegendRow {
  digit: CollationDigit;
  /** Its name (as `weft status` prints it). */
  label: string;
  /** What an activity on it is doing, in a sentence. */
  meaning: string;
  /** True when an activity on it is still active (the job has not ended). */
  active: boolean;
}

/** One field of an activity's semaphore, explained. */
export interface SemaphoreLegendRow {
  /** 1-based digit positions, from the left, e.g. `1` or `4–9`. */
  digits: string;
  field: string;
  meaning: string;
}

/** The legend of a graph job's page. */
export interface CollationLegend {
  /** How an activity finds its digit in the key. */
  positions: string;
  digits: DigitLegendRow[];
  semaphore: SemaphoreLegendRow[];
}

const MEANINGS: Readonly<Record<CollationDigit, string>> = {
  9: 'not started yet',
  8: 'running (a task handler, a sleep, a child job; or its compensation while reverting)',
  7: 'failed, and no error or timeout transition took the failure: the job ends in FAILURE (also a failed compensation)',
  6: 'completed (also a failure that an on: error or on: timeout transition took)',
  5: 'paused: a hook or await finished its first leg and waits to be released (a signal)',
  4: 'released: a paused hook or await that went on',
  3: 'skipped (a branch not taken), or reverted (its effect undone by its compensation); the page names which',
  2: 'right bookend of a child job inside a compositional key',
  1: 'left bookend of a child job inside a compositional key',
  0: 'no activity at this position (past the last one)',
};

/** The legend: every digit the key can hold, 9 down to 0, and the semaphore's fields. */
export function collationLegend(): CollationLegend {
  const digits = (Object.values(COLLATION_DIGITS) as CollationDigit[])
    .slice()
    .sort((a, b) => b - a)
    .map((digit) => ({
      digit,
      label: DIGIT_LABELS[digit],
      meaning: MEANINGS[digit],
      active: ACTIVE_DIGITS.includes(digit),
    }));
  return {
    positions:
      'One digit per activity: the activity ids sorted in plain code-unit order, the first id owns the leftmost digit. A job whose key holds a 7 failed; one with no 9, 8 or 5 left is complete.',
    digits,
    semaphore: [
      {
        digits: '1',
        field: 'Leg1 entry',
        meaning:
          '9 until Leg1 is entered, then one less per entry (8 once; 7 means it was entered again after a crash)',
      },
      { digits: '2', field: 'Leg1 exit', meaning: '9 while Leg1 runs, 8 once it completed' },
      {
        digits: '3',
        field: 'Leg2 exit',
        meaning: '9 while Leg2 is open, 8 once it closed (no more inputs taken)',
      },
      {
        digits: '4–9',
        field: 'Leg2 entries',
        meaning: 'dimensional threads (inputs) that entered Leg2',
      },
      { digits: '10–15', field: 'Leg2 exits', meaning: 'dimensional threads that left Leg2' },
    ],
  };
}

/** How an activity failed, when it did. */
export type ActivityFailure =
  /** Its digit is 7: nothing handled the failure, and it ends (or ended) the job in FAILURE. */
  | 'unhandled'
  /** Its record says FAILURE but an on: error / on: timeout transition took it (digit 6 or 4). */
  | 'handled'
  | null;

/**
 * The words for one activity's digit: the digit's name, except that a 3 whose record was
 * reverted reads Reverted (and a 7 whose compensation failed, Revert failed), and whether
 * it failed.
 */
export function activityReading(
  digit: CollationDigit,
  status: string | null,
): { state: string; failure: ActivityFailure } {
  let state = DIGIT_LABELS[digit];
  if (digit === 3 && status === 'REVERTED') state = 'Reverted';
  else if (digit === 7 && status === 'REVERT_FAILURE') state = 'Revert failed';
  else if (digit === 8 && status === 'REVERTING') state = 'Reverting';
  const failure: ActivityFailure =
    digit === 7
      ? 'unhandled'
      : status === 'FAILURE' && (digit === 6 || digit === 4)
        ? 'handled'
        : null;
  return { state, failure };
}
