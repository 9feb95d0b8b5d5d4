/**
 * The layers are checked, not only stated: for every layer biome.json restricts, a file
 * in that layer importing any higher layer — directly or a module nested inside it, as
 * `../engine/kinds/index.js` — fails the lint, and importing a lower layer does not.
 * The probes are linted in a scratch folder holding a copy of biome.json, so nothing is
 * written under src/.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIOME = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');

interface Override {
  includes: string[];
  linter?: {
    rules?: {
      style?: {
        noRestrictedImports?: { options: { patterns: { group: string[]; message: string }[] } };
      };
    };
  };
}

const config = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8')) as {
  overrides: Override[];
};
const layers = config.overrides.flatMap((o) => {
  const rule = o.linter?.rules?.style?.noRestrictedImports;
  const folder = /^src\/([a-z]+)\/\*\*$/.exec(o.includes[0] ?? '')?.[1];
  if (!rule || !folder) return [];
  const above = rule.options.patterns.flatMap((p) =>
    p.group.map((g) => /^\*\*\/([a-z]+)\/\*\*$/.exec(g)?.[1] ?? g),
  );
  return [{ folder, above }];
});

const scratch = mkdtempSync(join(tmpdir(), 'weft-layers-'));
copyFileSync(join(ROOT, 'biome.json'), join(scratch, 'biome.json'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Lints `source` as `src/<folder>/probe.ts`; the exit code and output. */
function lint(folder: string, source: string): Promise<{ code: number; output: string }> {
  mkdirSync(join(scratch, 'src', folder), { recursive: true });
  writeFileSync(join(scratch, 'src', folder, 'probe.ts'), source);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIOME, 'lint', '--max-diagnostics=200', `src/${folder}/probe.ts`],
      { cwd: scratch },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe('the layer rule', () => {
  it('covers every layer below cli', () => {
    expect(layers.map((l) => l.folder)).toEqual(
      expect.arrayContaining(['core', 'store', 'graph', 'engine', 'durable', 'worker', 'client']),
    );
    for (const layer of layers) expect(layer.above).toContain('cli');
  });

  for (const { folder, above } of layers) {
    it(`fails src/${folder}/ importing ${above.join(', ')}, nested or not`, async () => {
      const imports = above.flatMap((higher, i) => [
        `import * as a${i} from '../${higher}/x.js';`,
        `import * as b${i} from '../${higher}/inner/y.js';`,
      ]);
      const uses = `export const all = [${above.map((_, i) => `a${i}, b${i}`).join(', ')}];`;
      const { code, output } = await lint(folder, `${imports.join('\n')}\n${uses}\n`);
      expect(code).not.toBe(0);
      expect(output.match(/the layers import downward only/g)?.length).toBe(above.length * 2);
    }, 30_000);
  }

  it('lets a layer import the layers below it', async () => {
    const { code, output } = await lint(
      'engine',
      "import { z } from '../graph/kind-spec.js';\nimport { y } from '../core/x.js';\nexport const all = [z, y];\n",
    );
    expect(output).not.toMatch(/downward only/);
    expect(code).toBe(0);
  }, 30_000);
});
