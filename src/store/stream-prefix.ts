/**
 * Streams by name prefix (`task:` for every task stream) as one index range, on either
 * backend: `stream >= prefix AND stream < end`, where `end` is the first string past
 * every name that starts with `prefix`.
 */
import { ValidationError } from '../core/errors.js';

/** `waitingStreams` counts a stream's waiting messages up to this many. */
export const WAITING_COUNT_CAP = 1000;

/** The range `[start, end)` holding exactly the names that start with `prefix`. */
export function prefixRange(prefix: string): { start: string; end: string } {
  if (prefix.length === 0) throw new ValidationError('must not be empty', 'stream prefix');
  const last = prefix.charCodeAt(prefix.length - 1);
  // Names compare by code unit (SQLite's BINARY, PostgreSQL's "C" collation).
  if (last === 0xffff) throw new ValidationError('must not end in U+FFFF', 'stream prefix');
  return { start: prefix, end: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}
