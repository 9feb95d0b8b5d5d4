/**
 * Whether `dist/` was built after every file it is built from last changed: the sources
 * (their folders too, so a deleted file counts), the build's settings and the bundle
 * script. `npm run build` writes `dist/bundle/inputs.json` last (scripts/bundle.ts), so
 * its time is the build's. `prepare` (scripts/prepare.ts) and the test run's set-up
 * (test/support/build-dist.ts) both build through {@link buildIfStale}.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The files the build reads, under the package root `root`. */
function buildInputs(root: string): string[] {
  const src = join(root, 'src');
  return [
    src,
    ...readdirSync(src, { recursive: true, encoding: 'utf8' }).map((f) => join(src, f)),
    ...['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/bundle.ts'].map((f) =>
      join(root, f),
    ),
  ];
}

/** True when `root`'s `dist/` is newer than everything it is built from. */
export function distIsFresh(root: string): boolean {
  const stamp = join(root, 'dist/bundle/inputs.json');
  if (!existsSync(stamp) || !existsSync(join(root, 'dist/index.d.ts'))) return false;
  const built = statSync(stamp).mtimeMs;
  return buildInputs(root).every((file) => statSync(file).mtimeMs <= built);
}

/** Runs `npm run build` in `root` unless its `dist/` is fresh. */
export function buildIfStale(root: string): void {
  if (!distIsFresh(root)) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}
