/**
 * The one parser for numeric command-line options (commander's `argParser`): a whole
 * number written in decimal digits, within a range. Anything else — `abc`, `1.5`, `-3`,
 * `1e3`, an empty value, a number past the range — is refused before the command runs,
 * with commander's usage error naming the option (exit 2):
 *
 *     error: option '--limit <n>' argument 'abc' is invalid. Expected a whole number from 1 up.
 */
import { InvalidArgumentError } from 'commander';

/** The range a numeric option accepts. */
export interface WholeNumberRange {
  /** The smallest value accepted. */
  min: number;
  /** The largest value accepted (default: Number.MAX_SAFE_INTEGER). */
  max?: number;
}

/** A commander argument parser accepting a whole number in `range`. */
export function wholeNumber(range: WholeNumberRange): (value: string) => number {
  const { min, max = Number.MAX_SAFE_INTEGER } = range;
  const expected =
    max === Number.MAX_SAFE_INTEGER
      ? `Expected a whole number from ${min} up.`
      : `Expected a whole number from ${min} to ${max}.`;
  return (value: string) => {
    const text = value.trim();
    const n = Number(text);
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(expected);
    }
    return n;
  };
}

/** A whole number from 1 up: counts, limits, versions, milliseconds. */
export const positiveWholeNumber = wholeNumber({ min: 1 });
