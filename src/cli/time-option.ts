/**
 * The parser for time options (commander's `argParser`): an ISO 8601 time with a date
 * (`2026-11-27T03:00:00Z`, `2026-11-27T04:00+01:00`; no offset means UTC, as
 * `Date.parse` reads a date-time without one in local time, which a script on another
 * machine would not expect). Anything else is refused before the command runs, with
 * commander's usage error naming the option (exit 2).
 */
import { InvalidArgumentError } from 'commander';

const ISO_TIME = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/;

/** An ISO time, in epoch ms. */
export function isoTimeOption(value: string): number {
  const text = value.trim();
  const match = ISO_TIME.exec(text);
  const zoned = match && (match[1] === undefined || match[4] !== undefined);
  const at = match ? Date.parse(zoned ? text : `${text}Z`) : Number.NaN;
  if (Number.isNaN(at)) {
    throw new InvalidArgumentError(
      'Expected an ISO time such as 2026-11-27T03:00:00Z (UTC unless it names an offset).',
    );
  }
  return at;
}
