/**
 * What a `weft` process loads before its command needs it. Every command is a new Node
 * process, and loading modules is most of what a short one costs: `weft --version` and
 * `weft --help` load the CLI alone, not the engines, the expression language or the
 * schema library, which the commands that run workflows load when they run.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HOOK = join(ROOT, 'test/fixtures/module-log.mjs');

/** The module files `node bin/weft.js …args` loads, relative to the repository. */
async function loaded(args: string[]): Promise<string[]> {
  const { stderr } = await promisify(execFile)(
    process.execPath,
    ['--import', HOOK, 'bin/weft.js', ...args],
    { cwd: ROOT },
  );
  return [...stderr.matchAll(/^loaded file:\/\/(.*)$/gm)].map((m) =>
    (m[1] as string).replace(`${ROOT}/`, ''),
  );
}

const HEAVY = [/^dist\/engine\//, /^dist\/durable\//, /node_modules\/(zod|jsonata)\//];

describe('what a weft process loads first', () => {
  it.each([['--version'], ['--help']])('weft %s loads no engine, jsonata or zod', async (flag) => {
    const modules = await loaded([flag]);
    expect(modules).toContain('dist/cli/main.js');
    expect(modules.filter((m) => HEAVY.some((re) => re.test(m)))).toEqual([]);
  });
});
