/**
 * Vitest global set-up: builds `dist/` before any test file runs, so tests that start
 * the CLI as a user does (`node bin/weft.js …`, `npx weft …`) run today's source, not
 * whatever an earlier build left behind.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../../scripts/dist-fresh.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Runs the package build (`npm run build`: the declarations by `tsc`, the JavaScript
 * bundled by scripts/bundle.ts) unless `dist/` is newer than everything it is built
 * from: on a fresh clone `npm install` has just built it (`prepare`), and building it
 * again cost the run about 10 s before its first test. The root config's global set-up
 * also runs once for each project that extends it (vitest merges it into every
 * project); the mark below keeps that to one check, and one build, per run.
 */
export default function buildDist(): void {
  if (process.env.WEFT_TEST_DIST_BUILT === String(process.pid)) return;
  buildIfStale(ROOT);
  process.env.WEFT_TEST_DIST_BUILT = String(process.pid);
}
