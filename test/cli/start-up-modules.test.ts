/**
 * What a `weft` process loads before its command needs it. Every command is a new Node
 * process, and loading modules is most of what a short one costs: `weft --version` and
 * `weft --help` load the CLI alone, not the engines, the expression language or the
 * schema library, which the commands that run workflows load when they run. The commands
 * that only read jobs (`status`, `list`, `result`, `history`, `signal`) open the store
 * and read the stored workflow, and load none of them either.
 *
 * weft's own code and its bundled dependencies run from the chunks of `dist/bundle/`
 * (scripts/bundle.ts); `dist/bundle/inputs.json` says which source files each chunk
 * holds, so what a process loads is read as source files: `src/…` and
 * `node_modules/…` paths.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HOOK = join(ROOT, 'test/fixtures/module-log.mjs');

/** The source files each output of `dist/bundle/` holds (written by the build), read once. */
let inputs: Record<string, string[]> | undefined;
function bundleInputs(): Record<string, string[]> {
  inputs ??= JSON.parse(readFileSync(join(ROOT, 'dist/bundle/inputs.json'), 'utf8')) as Record<
    string,
    string[]
  >;
  return inputs;
}

/**
 * The files a process loaded, from its `loaded <url>` lines, relative to the repository:
 * a file of `dist/bundle/` as itself and as each source file it holds.
 */
function sources(stderr: string): string[] {
  const held = bundleInputs();
  return [...stderr.matchAll(/^loaded file:\/\/(.*)$/gm)].flatMap((m) => {
    const file = (m[1] as string).replace(`${ROOT}/`, '');
    const from = file.startsWith('dist/bundle/') ? held[file.slice('dist/bundle/'.length)] : [];
    return [file, ...(from ?? [])];
  });
}

/** What `node bin/weft.js …args` loads, relative to the repository (see above). */
async function loaded(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const { stderr } = await promisify(execFile)(
    process.execPath,
    ['--import', HOOK, 'bin/weft.js', ...args],
    { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', ...env } },
  );
  return sources(stderr);
}

const HEAVY = [/^src\/engine\//, /^src\/durable\//, /node_modules\/(zod|jsonata)\//];

describe('what a weft process loads first', () => {
  it.each([['--version'], ['--help']])('weft %s loads no engine, jsonata or zod', async (flag) => {
    const modules = await loaded([flag]);
    expect(modules).toContain('dist/bundle/main.js');
    expect(modules).toContain('src/cli/main.ts');
    expect(modules.filter((m) => HEAVY.some((re) => re.test(m)))).toEqual([]);
  });
});

/**
 * What reading a job must not load: the engines, the activity kinds (with their schemas),
 * the expression language (loaded with `require`, so named by its module here), the
 * schema libraries. Small modules of engine/ and durable/ (the collation counter's name,
 * a stored workflow's layout, a stored instance) are what a view reads.
 */
const ENGINES = [
  /^src\/engine\/graph-engine\.ts$/,
  /^src\/durable\/durable-engine\.ts$/,
  /^src\/engine\/kinds\//,
  /^src\/graph\/jsonata-module\.ts$/,
  /node_modules\/(zod|jsonata|@cfworker\/json-schema)\//,
];

describe('what a weft command that reads jobs loads', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const weft = (args: string[]) =>
    promisify(execFile)(process.execPath, ['bin/weft.js', ...args], { cwd: ROOT, env });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weft-start-up-'));
    env = { ...process.env, NODE_OPTIONS: '', WEFT_STORE: `sqlite:${join(dir, 'weft.db')}` };
    await weft(['deploy', 'examples/order.yaml']);
    // A graph job, and a code-first one (a name no process has registered yet).
    await weft(['start', 'order', '--input', '{"id":"o1","amount":5}', '--id', 'graph-1']);
    await weft(['start', 'not-registered', '--id', 'code-first-1']);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['status', 'graph-1'],
    ['status', 'code-first-1'],
    ['list'],
    ['result', 'graph-1'],
    ['history', 'graph-1'],
    ['signal', 'graph-1', 'no-such-hook'],
  ])('weft %s %s opens the store and loads no engine, jsonata or zod', async (...args) => {
    const modules = await loaded(args, env).catch(
      // A refused signal exits 1; what it loaded is on stderr all the same.
      (error: { stderr: string }) => sources(error.stderr),
    );
    expect(modules.some((m) => /^src\/store\/sqlite\//.test(m))).toBe(true);
    expect(modules.filter((m) => ENGINES.some((re) => re.test(m)))).toEqual([]);
  });
});
