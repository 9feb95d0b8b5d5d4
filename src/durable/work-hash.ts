/**
 * The hash identifying a work inside a branch: over its kind and name, its input, its
 * position on the branch and whether the branch waits for it (Zenaton's
 * `(name, input, position, sync)`). Replay compares it to detect modified code.
 */
import { createHash } from 'node:crypto';
import type { Json } from '../store/records.js';
import { stableStringify } from './stable-json.js';

/** Hex digest of a work's identity. Equal identities give equal hashes in any process. */
export function workHash(
  type: string,
  name: string,
  input: Json,
  position: string,
  sync: boolean,
): string {
  const text = stableStringify([`${type}:${name}`, input, position, sync]);
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
