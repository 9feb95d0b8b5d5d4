/**
 * JSON given on the command line (`--input`, `--data`): parsed here, with a typed error
 * that names the option when it is not valid JSON or nests too deeply, and never quotes
 * the value back (it may hold a secret).
 */
import { parseJsonText } from '../core/json-text.js';
import type { Json } from '../store/records.js';

/** Parses a JSON option value; undefined stays undefined. */
export function parseJsonArgument(value: string | undefined, option: string): Json | undefined {
  if (value === undefined) return undefined;
  return parseJsonText(value, option) as Json;
}
