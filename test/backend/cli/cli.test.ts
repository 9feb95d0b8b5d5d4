/**
 * The `weft` CLI as a script would use it: `--json` prints one JSON object, exit 0 means
 * success, bad input is a typed error naming what and where.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { freshStoreUrl, type TestStoreLocation } from '../../support/store-under-test.js';

let location: TestStoreLocation;
let dir: string;
beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-cli-'));
});
afterEach(async () => location.cleanup());

async function weft(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    ['node', 'weft', ...args, ...(needsStore(args[0]) ? ['--store', location.url] : [])],
    {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    },
  );
  return { code, out: out.join('\n'), err: err.join('\n'), lines: out };
}
const needsStore = (command?: string) => command !== undefined && command !== 'validate';

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const approval = `
workflow: approval
activities:
  start:   { kind: trigger }
  approve: { kind: hook, signal: approve }
transitions:
  start: [approve]
output: "approve.output"
`;

describe('weft run', () => {
  it('runs the shipped example to SUCCESS and prints the job as one JSON object', async () => {
    const r = await weft(
      'run',
      'examples/quick-brown-fox.yaml',
      '--handlers',
      'examples/quick-brown-fox.js',
      '--json',
    );
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    const job = JSON.parse(r.out);
    expect(Object.keys(job)).toEqual(
      expect.arrayContaining([
        'id',
        'workflow',
        'version',
        'state',
        'collation',
        'compositional',
        'activities',
        'output',
        'error',
        'children',
      ]),
    );
    expect(job).toMatchObject({
      workflow: 'quick-brown-fox',
      version: 1,
      state: 'SUCCESS',
      collation: '466366000000000',
    });
    expect(job.activities[0]).toMatchObject({
      id: 'quick',
      kind: 'trigger',
      position: 5,
      state: 'Completed',
      digit: 6,
      status: 'SUCCESS',
      error: null,
    });
    // A task's row: its attempts and ISO start and finish times.
    expect(job.activities.find((a: { id: string }) => a.id === 'fox')).toMatchObject({
      position: 3,
      attempts: 1,
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      finishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(job.output).toEqual({ path: 'slept', meal: { dish: 'grapes' } });
  });

  it('prints each new collation key as the job moves, then the seed-style table', async () => {
    const r = await weft(
      'run',
      'examples/quick-brown-fox.yaml',
      '--handlers',
      'examples/quick-brown-fox.js',
      '--input',
      '{"path":"jumped"}',
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('999969000000000');
    expect(r.out).toContain('968969000000000');
    expect(r.out).toContain('366863000000000');
    // Each key beside the activity that moved and its new state.
    expect(r.out).toMatch(/^job\s+RUNNING\s+999999000000000$/m);
    expect(r.out).toMatch(/^fox\s+Started\s+968969000000000$/m);
    expect(r.out).toMatch(/^jumped\s+Completed\s+366663000000000$/m);
    // The table reads against the key: by digit position, with attempts and times.
    expect(r.out).toMatch(
      /^\| # \| Activity \| State\s+\| Digit \| Attempts \| Started\s+\| Finished\s+\|$/m,
    );
    expect(r.out).toMatch(
      /^\| 4 \| jumped\s+\| Completed \| 6\s+\| 1\s+\| \d\d:\d\d:\d\d\.\d{3} \|/m,
    );
  });

  it('exits 1 when the job fails', async () => {
    const wf = file(
      'boom.yaml',
      'workflow: boom\nactivities:\n  start: { kind: trigger }\n  fail: { kind: task }\ntransitions:\n  start: [fail]\n',
    );
    const handlers = file(
      'boom.mjs',
      "export default { fail: async () => { throw new Error('nope'); } };\n",
    );
    const r = await weft('run', wf, '--handlers', handlers, '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ state: 'FAILURE', error: { activity: 'fail' } });
  });

  it('refuses a task with no handler, naming the file, line, activity and task', async () => {
    const wf = file(
      'missing.yaml',
      'workflow: missing\nactivities:\n  start: { kind: trigger }\n  pay: { kind: task, task: charge }\ntransitions:\n  start: [pay]\n',
    );
    const r = await weft('run', wf);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/missing\.yaml:4/);
    expect(r.err).toMatch(/activity pay runs task "charge"/);
  });

  it('names --input when it is not JSON, and stores nothing', async () => {
    const r = await weft(
      'run',
      'examples/quick-brown-fox.yaml',
      '--handlers',
      'examples/quick-brown-fox.js',
      '--input',
      '{oops',
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/--input/);
    expect(JSON.parse((await weft('list', '--json')).out)).toEqual([]);
  });
});

describe('weft validate', () => {
  it('accepts a valid file', async () => {
    const r = await weft('validate', 'examples/quick-brown-fox.yaml');
    expect(r.code).toBe(0);
  });
  it('names the file, line and activity of what is wrong', async () => {
    const bad = file(
      'bad.yaml',
      'workflow: bad\nactivities:\n  start: { kind: trigger }\n  x: { kind: teleport }\ntransitions:\n  start: [x]\n',
    );
    const r = await weft('validate', bad);
    expect(r.code).toBe(1);
    expect(r.err).toContain('bad.yaml');
    expect(r.err).toMatch(/bad\.yaml:4/);
    expect(r.err).toContain('"x"');
  });
});

describe('job commands', () => {
  it('deploy, start (id on the last line), signal, result --wait, status, list, cancel', async () => {
    expect((await weft('deploy', file('approval.yaml', approval))).out).toBe(
      'deployed approval version 1',
    );
    const started = await weft('start', 'approval', '--input', '{"order":1}');
    expect(started.code).toBe(0);
    const id = started.lines.at(-1) as string;
    expect(id).toMatch(/^[0-9A-Z]{26}$/);
    expect(JSON.parse((await weft('status', id, '--json')).out)).toMatchObject({
      id,
      state: 'RUNNING',
    });
    expect((await weft('result', id)).code).toBe(3);
    const signalled = await weft('signal', id, 'approve', '--data', '{"ok":true}', '--json');
    expect(JSON.parse(signalled.out)).toMatchObject({ status: 'buffered' });
    // A worker (here in this process) runs the job; the buffered signal releases the hook.
    const worker = weft('worker');
    const result = await weft('result', id, '--wait', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ state: 'SUCCESS', output: { ok: true } });
    const again = await weft('start', 'approval', '--id', 'order-2', '--json');
    expect(JSON.parse(again.out)).toMatchObject({ id: 'order-2', state: 'RUNNING' });
    expect(JSON.parse((await weft('start', 'approval', '--id', 'order-2', '--json')).out).id).toBe(
      'order-2',
    );
    const list = JSON.parse((await weft('list', '--json')).out);
    expect(list.map((j: { id: string }) => j.id).sort()).toEqual([id, 'order-2'].sort());
    expect(JSON.parse((await weft('cancel', 'order-2', '--json')).out)).toMatchObject({
      state: 'FAILURE',
    });
    expect(JSON.parse((await weft('list', '--state', 'FAILURE', '--json')).out)).toHaveLength(1);
    process.emit('SIGTERM');
    expect((await worker).code).toBe(0);
  });

  it('reports an unknown job, a bad state filter and a wrong store URL as typed errors', async () => {
    const missing = await weft('status', 'nope', '--json');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.out).error).toMatchObject({
      name: 'NotFoundError',
      code: 'NOT_FOUND',
    });
    expect((await weft('list', '--state', 'DONE')).err).toMatch(/--state DONE/);
    const out: string[] = [];
    const code = await main(['node', 'weft', 'list', '--store', 'mysql://x'], {
      out: (t) => out.push(t),
      err: (t) => out.push(t),
    });
    expect(code).toBe(1);
    expect(out.join('')).toMatch(/unsupported store scheme "mysql:"/);
  });
});
