/**
 * The parser for duration options (commander's `argParser`): what a workflow file
 * accepts — a whole number of milliseconds, or an integer and a unit (`200ms`, `30s`,
 * `5m`, `1h`, `1d`) — from 1 ms to 1000 days. Anything else is refused before the
 * command runs, with commander's usage error naming the option (exit 2).
 */
import { InvalidArgumentError } from 'commander';
import { DURATION_HINT, parseDuration } from '../graph/durations.js';

/** A duration of at least 1 ms, in ms. */
export function positiveDuration(value: string): number {
  const text = value.trim();
  const ms = parseDuration(/^\d+$/.test(text) ? Number(text) : text);
  if (ms === undefined || ms < 1) {
    throw new InvalidArgumentError(`Expected a duration of more than 0: ${DURATION_HINT}.`);
  }
  return ms;
}

/** A duration of 0 or more, in ms (`0` turns a window off). */
export function duration(value: string): number {
  const text = value.trim();
  if (text === '0') return 0;
  return positiveDuration(text);
}
