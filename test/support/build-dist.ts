/**
 * Vitest global set-up: builds `dist/` before any test file runs, so tests that start
 * the CLI as a user does (`node bin/weft.js …`, `npx weft …`) run today's source, not
 * whatever an earlier build left behind.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsFresh } from '../../scripts/dist-fresh.js';

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
  if (!distIsFresh(ROOT)) {
    const run = (script: string, ...args: string[]) =>
      execFileSync(process.execPath, [join(ROOT, script), ...args], {
        cwd: ROOT,
        stdio: 'inherit',
      });
    run('node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json');
    run('node_modules/tsx/dist/cli.mjs', 'scripts/bundle.ts');
  }
  process.env.WEFT_TEST_DIST_BUILT = String(process.pid);
}
