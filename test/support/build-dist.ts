/**
 * Vitest global set-up: builds `dist/` once before any test file runs, so tests that
 * start the CLI as a user does (`node bin/weft.js …`, `npx weft …`) run today's source,
 * not whatever an earlier build left behind.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs the package build (`tsc -p tsconfig.build.json`). */
export default function buildDist(): void {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}
