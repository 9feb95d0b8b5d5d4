/**
 * A workflow file's `retention:`: each wrong value is reported at its line (the shape
 * check has already refused what is no duration at all; this adds what it cannot say, such
 * as a retention of 0).
 */
import type { ProblemList } from './problem-list.js';
import { retentionProblems } from './retention.js';

/** Adds a problem for each wrong part of the file's `retention:` (nothing when absent). */
export function checkFileRetention(value: unknown, problems: ProblemList): void {
  if (value === undefined) return;
  for (const problem of retentionProblems(value)) {
    problems.add(['retention', ...problem.path], `retention: ${problem.message}`);
  }
}
