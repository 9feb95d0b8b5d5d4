/**
 * What a person reads while a job runs and after, each command its own process: a task
 * that fails its three attempts under `weft run` is one log line per attempt and one
 * stack (the final failure's, your frames only) — every attempt's stack with `--verbose`;
 * log lines and key lines read in the order things happened; `weft status` of a job that
 * succeeded after an error path prints no stack.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { REPO_ROOT, runWeft, WEFT_BIN, type WeftRun, weftEnv } from '../../support/weft-cli.js';

let location: TestStoreLocation;
let dir: string;
beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-quiet-'));
});
afterEach(async () => {
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `weft …args` with its stderr into its stdout, as a terminal shows both: one text, in order. */
function weftOneStream(args: string[]): Promise<{ code: number; lines: string[] }> {
  const quoted = [process.execPath, WEFT_BIN, ...args].map((a) => `'${a}'`).join(' ');
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', `${quoted} 2>&1`],
      { cwd: REPO_ROOT, env: weftEnv(location.url), timeout: 60_000 },
      (error, out) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, lines: out.trimEnd().split('\n') });
      },
    );
  });
}

const DECLINED = `
workflow: declined
activities:
  start: { kind: trigger }
  charge: { kind: task, retry: { attempts: 3, backoff: 10ms } }
transitions:
  start: [charge]
`;
const DECLINED_HANDLERS =
  "export default { charge: async () => { throw new Error('card declined'); } };\n";

const FRAME = /^ {4}at /;

describe.skipIf(skipBackend)('quiet output', () => {
  it('`weft run`: a task failing three attempts is three lines and one stack', async () => {
    const workflow = file('declined.yaml', DECLINED);
    const handlers = file('declined.mjs', DECLINED_HANDLERS);
    const run = await weftOneStream(['run', workflow, '--handlers', handlers]);
    expect(run.code).toBe(1);
    const text = run.lines.join('\n');
    // The job line, 4 key lines, 3 attempts, the end, a blank line, the job (header, times,
    // key, a 4-line table), the stack (1 line and 1 frame) and the error: 21.
    expect(run.lines.length, text).toBeLessThanOrEqual(22);
    const attempts = run.lines.filter((l) => / WARN: task charge failed /.test(l));
    expect(attempts).toHaveLength(3);
    attempts.forEach((line, i) => {
      expect(line).toMatch(
        new RegExp(`activity charge, attempt ${i + 1}\\): Error: card declined$`),
      );
    });
    // One stack: the final failure's, down to the handler's line, without weft's frames.
    expect(run.lines.filter((l) => FRAME.test(l))).toEqual([
      expect.stringMatching(/^ {4}at charge \(file:\/\/\S*declined\.mjs:1:\d+\)$/),
    ]);
    expect(text).not.toMatch(/"stack"|error: \{/);
    // In order: the key that errored `charge`, then the line saying the job ended.
    const errored = run.lines.findIndex((l) => /^charge +Errored +7/.test(l));
    const ended = run.lines.findIndex((l) => / ERROR: job \S+ declined ended FAILURE/.test(l));
    expect(errored).toBeGreaterThan(-1);
    expect(ended).toBeGreaterThan(errored);

    // --verbose: every attempt's stack too.
    const verbose = await weftOneStream(['run', workflow, '--handlers', handlers, '--verbose']);
    expect(verbose.code).toBe(1);
    const frames = verbose.lines.filter((l) => /^ {4}at charge \(/.test(l));
    expect(frames.length).toBeGreaterThanOrEqual(4);
  });

  it('`weft run`: the key that ends a job prints before the line saying it ended', async () => {
    const run = await weftOneStream([
      'run',
      'examples/quick-brown-fox.yaml',
      '--handlers',
      'examples/quick-brown-fox.js',
    ]);
    expect(run.code, run.lines.join('\n')).toBe(0);
    const released = run.lines.findIndex((l) => /^ate +Released +466366000000000$/.test(l));
    const ended = run.lines.findIndex((l) =>
      / INFO: job \S+ quick-brown-fox ended SUCCESS$/.test(l),
    );
    expect(released).toBeGreaterThan(-1);
    expect(ended).toBeGreaterThan(released);
  });

  it('`weft status` of a job that succeeded after an error path prints no stack', async () => {
    const workflow = file(
      'fallback.yaml',
      [
        'workflow: fallback',
        'activities:',
        '  start: { kind: trigger }',
        '  charge: { kind: task, retry: { attempts: 1 } }',
        '  invoice: { kind: task }',
        'transitions:',
        '  start: [charge]',
        '  charge:',
        '    - { to: invoice, on: error }',
        '',
      ].join('\n'),
    );
    const handlers = file(
      'fallback.mjs',
      "export default { charge: async () => { throw new Error('card declined'); }, invoice: async () => ({ sent: true }) };\n",
    );
    const run = await weft(['run', workflow, '--handlers', handlers]);
    expect(run.code, run.err).toBe(0);
    const id = (run.out.match(/^job (\S+)/) as RegExpMatchArray)[1] as string;
    const status = await weft(['status', id]);
    expect(status.out).toMatch(/^\| 1 \| charge +\| Completed .*\| Error: card declined \|$/m);
    expect(status.out.split('\n').filter((l) => FRAME.test(l) || l.startsWith('error'))).toEqual(
      [],
    );
    // --verbose shows it.
    const verbose = await weft(['status', id, '--verbose']);
    expect(verbose.out).toContain('error in charge (attempt 1): Error: card declined');
    expect(verbose.out).toMatch(/^ {4}at charge \(file:\/\/\S*fallback\.mjs:1:\d+\)$/m);
  });
});
