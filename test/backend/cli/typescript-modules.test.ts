/**
 * TypeScript modules in an ordinary npm project, as a user meets them: a fresh
 * `npm init -y` project (CommonJS) and an ESM one, each with the package linked into its
 * node_modules, run `weft run wf.ts` as a separate process. A module that fails to import
 * prints its own file and line.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { REPO_ROOT, runWeft, type WeftRun } from '../../support/weft-cli.js';

/** The name users import the package by. */
const PACKAGE = 'weft-engine';

let location: TestStoreLocation;
let project: string;
beforeEach(async () => {
  location = await freshStoreUrl();
  project = mkdtempSync(join(tmpdir(), 'weft-ts-project-'));
  execFileSync('npm', ['init', '-y'], { cwd: project, stdio: 'ignore' });
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(REPO_ROOT, join(project, 'node_modules', PACKAGE));
});
afterEach(async () => {
  await location.cleanup();
  rmSync(project, { recursive: true, force: true });
});

/** Runs `node bin/weft.js …args` in the project, its output as printed. */
function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: project, trim: false });
}

const WORKFLOW = `
import { defineTask, defineWorkflow, Workflow } from '${PACKAGE}';
import { polite } from './polite';

export const greet = defineTask('greet', async (name: string) => polite(name));

export default defineWorkflow(
  'hello',
  class extends Workflow {
    async handle(name: string) {
      return this.execute(greet, name);
    }
  },
);
`;

describe.skipIf(skipBackend)('weft run wf.ts in an npm project', () => {
  for (const kind of ['commonjs', 'module'] as const) {
    it(`runs in a ${kind} package, with a relative TypeScript import`, async () => {
      if (kind === 'module') {
        const pkg = join(project, 'package.json');
        const json = JSON.parse(readFileSync(pkg, 'utf8'));
        writeFileSync(pkg, JSON.stringify({ ...json, type: 'module' }));
      }
      writeFileSync(join(project, 'wf.ts'), WORKFLOW);
      writeFileSync(
        join(project, 'polite.ts'),
        "export const polite = (name: string): string => 'hello ' + name;\n",
      );
      const ran = await weft(['run', 'wf.ts', '--input', '"ana"']);
      expect(ran.err).not.toMatch(/cycle|could not be imported/);
      expect(ran.code, ran.err).toBe(0);
      expect(ran.out).toContain('output "hello ana"');
    });
  }

  it('names the file and line of a syntax error', async () => {
    writeFileSync(join(project, 'bad.ts'), 'export const x = ;\n');
    const ran = await weft(['run', 'bad.ts']);
    expect(ran.code).toBe(1);
    expect(ran.err).toContain(`${join(project, 'bad.ts')}:1:17`);
  });

  it('shows the stack of a module that throws while it loads, in its own file', async () => {
    writeFileSync(
      join(project, 'handlers.ts'),
      'const ready = false;\nif (!ready) throw new Error("no API key");\nexport default {};\n',
    );
    const ran = await weft(['worker', '--handlers', 'handlers.ts']);
    expect(ran.code).toBe(1);
    expect(ran.err).toContain('could not be imported: no API key');
    expect(ran.err).toMatch(new RegExp(`at .*${join(project, 'handlers.ts')}:2:`));
  });
});
