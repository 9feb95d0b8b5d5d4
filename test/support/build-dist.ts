/**
 * Vitest global set-up: builds `dist/` once before any test file runs, so tests that
 * start the CLI as a user does (`node bin/weft.js …`, `npx weft …`) run today's source,
 * not whatever an earlier build left behind.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Runs the package build (`tsc -p tsconfig.build.json`), once per vitest run. The root
 * config's global set-up also runs once for each project that extends it (vitest merges
 * it into every project), so without the mark below a full run built `dist/` once for
 * the root and once more for each project, one after another, before the first test.
 */
export default function buildDist(): void {
  if (process.env.WEFT_TEST_DIST_BUILT === String(process.pid)) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  process.env.WEFT_TEST_DIST_BUILT = String(process.pid);
}
