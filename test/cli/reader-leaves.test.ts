/**
 * A reader that goes away while the command is still working (`weft list --json | head`
 * while the command closes its store) does not crash it: it ends with its own exit code
 * and prints no stack. The script below ends as the `weft` command ends (bin/weft.js),
 * after a command that writes a megabyte and is still at work when the pipe fails under
 * it, as a command closing its Redis connection after printing was.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MODULE = join(ROOT, 'dist', 'bundle', 'exit-after-output.js');

/** The command: still at work (waiting for stdout to close) when its write fails. */
const COMMAND = `
import(${JSON.stringify(MODULE)}).then(({ exitAfterOutput, letReadersLeave }) => {
  letReadersLeave();
  process.stdout.once('close', () => setImmediate(() => exitAfterOutput(7)));
  process.stdout.write('x'.repeat(1024 * 1024));
});
`;

describe('a reader that leaves early', () => {
  it('leaves the command to end with its own exit code and no stack', async () => {
    const child = spawn(process.execPath, ['-e', COMMAND], { cwd: ROOT });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    // The reader takes the first chunk and goes away, as `head -c 10` does.
    let first = '';
    child.stdout.once('data', (chunk: Buffer) => {
      first = chunk.toString('utf8', 0, 10);
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(first).toBe('x'.repeat(10));
    expect(err).toBe('');
    expect(code).toBe(7);
  });
});
