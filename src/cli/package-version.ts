/**
 * The installed package's version, read from its package.json (two folders up from this
 * module in src/cli and dist/cli alike), for `weft --version`.
 */
import { readFileSync } from 'node:fs';

/** The `version` field of weft's own package.json. */
export function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
  return version;
}
