/**
 * package-lock.json is whole, so `npm install` in a fresh clone leaves it unchanged:
 * every optional dependency a locked package declares (the per-platform binaries of
 * biome and esbuild) has its own entry, for every platform, not only the one it was
 * last installed on. Some npm versions drop the other platforms' entries when they
 * rewrite the lock in a tree that already has node_modules; a fresh clone's install then
 * puts them back and the lock shows as changed. Regenerate it in a clean clone (no
 * node_modules) to fix it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface LockedPackage {
  version?: string;
  optionalDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
};
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Where Node would find `name` from the package at `from`: its own node_modules, then up. */
function resolve(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const up = dir.lastIndexOf('/node_modules/');
    dir = up < 0 ? '' : dir.slice(0, up);
  }
}

describe('package-lock.json', () => {
  it('is a version 3 lock of package.json', () => {
    expect(lock.lockfileVersion).toBe(3);
    const root = lock.packages[''] as LockedPackage & { devDependencies?: Record<string, string> };
    expect(root.dependencies).toEqual(manifest.dependencies);
    expect(root.devDependencies).toEqual(manifest.devDependencies);
  });

  it('locks every optional dependency of every locked package, for every platform', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolve(path, name)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
