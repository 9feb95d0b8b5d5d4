/**
 * `weft worker --task-concurrency charge=5 --task-worker-concurrency charge=2`: limits on
 * how many attempts of a task run at once, in every worker and in this one
 * (worker/task-limits.ts). Each flag may be given again, and takes `task=n[,task=n…]`.
 * `--task-queue charge=payments [--task-queue-key charge=input.customer]` take
 * `task=text` (task-queue-option.ts reads them).
 */
import { InvalidArgumentError } from 'commander';

/** Collects `task=n` pairs into a map, for a repeatable flag. */
export function taskCountOption(
  value: string,
  previous: Record<string, number> = {},
): Record<string, number> {
  const out = { ...previous };
  for (const pair of value.split(',')) {
    const match = /^([^=\s]+)=(\d+)$/.exec(pair.trim());
    const n = match ? Number(match[2]) : Number.NaN;
    if (!match || !Number.isInteger(n) || n < 1 || n > 1_000_000) {
      throw new InvalidArgumentError('Expected task=n, such as charge=5 (n from 1 to 1000000).');
    }
    out[match[1] as string] = n;
  }
  return out;
}

/** The worker's `taskLimits` from the two flags. */
export function taskLimitsOf(
  concurrency: Record<string, number> = {},
  workerConcurrency: Record<string, number> = {},
): Record<string, { concurrency?: number; workerConcurrency?: number }> {
  const limits: Record<string, { concurrency?: number; workerConcurrency?: number }> = {};
  for (const [task, n] of Object.entries(concurrency)) limits[task] = { concurrency: n };
  for (const [task, n] of Object.entries(workerConcurrency)) {
    limits[task] = { ...limits[task], workerConcurrency: n };
  }
  return limits;
}

/** Collects `task=text` pairs into a map, for a repeatable flag (the text may hold `=`). */
export function taskTextOption(
  value: string,
  previous: Record<string, string> = {},
): Record<string, string> {
  const match = /^([^=\s]+)=(.+)$/s.exec(value.trim());
  if (!match) throw new InvalidArgumentError('Expected task=value, such as charge=payments.');
  return { ...previous, [match[1] as string]: (match[2] as string).trim() };
}
