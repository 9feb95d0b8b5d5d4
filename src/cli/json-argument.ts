/**
 * JSON given on the command line (`--input`, `--data`): parsed here, with a typed error
 * that names the option when it is not valid JSON.
 */
import { ValidationError } from '../core/errors.js';
import type { Json } from '../store/records.js';

/** Parses a JSON option value; undefined stays undefined. */
export function parseJsonArgument(value: string | undefined, option: string): Json | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as Json;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new ValidationError(`is not valid JSON (${reason}): ${value.slice(0, 200)}`, option, {
      cause,
    });
  }
}
