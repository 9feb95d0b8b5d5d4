/** `weft --version` prints the package's version, as a real subprocess. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

describe('weft --version', () => {
  it.each(['--version', '-V'])('%s prints the version and exits 0', async (flag) => {
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/weft.js', flag], {
      cwd: ROOT,
    });
    expect(stdout).toBe(`${version}\n`);
  });
});
