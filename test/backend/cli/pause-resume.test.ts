/**
 * Suspend, resume and resumption as a user meets them, every command its own process
 * (`node bin/weft.js …`): `weft pause` while a `weft worker` runs three handlers leaves
 * the job SUSPENDING until they finish, then SUSPENDED with nothing new started; `weft
 * resume` carries it on to SUCCESS. A worker SIGKILLed in the middle of a task has its
 * work taken over by another once the lease runs out: the job passes RESUMING →
 * SUSPENDED → RUNNING, `weft history` names the dead worker and the message, and
 * `weft status` says the job was resumed.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backend, freshStoreUrl, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import {
  launchWeft,
  REPO_ROOT,
  type RunningWeft,
  runWeft,
  type WeftRun,
} from '../../support/weft-cli.js';

const LIBRARY = pathToFileURL(join(REPO_ROOT, 'dist', 'index.js')).href;

let storeUrl: string;
let cleanup: () => Promise<void>;
let dir: string;
const started: RunningWeft[] = [];

beforeEach(async () => {
  const location = await freshStoreUrl();
  storeUrl = location.url;
  cleanup = location.cleanup;
  dir = mkdtempSync(join(tmpdir(), 'weft-pause-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop('SIGKILL')));
  await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: storeUrl, cwd: dir });
}

function launch(args: string[], env: NodeJS.ProcessEnv = {}): RunningWeft {
  const running = launchWeft(args, { store: storeUrl, cwd: dir, env });
  started.push(running);
  return running;
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  await waitFor(check, what, { timeoutMs: 30_000, intervalMs: 50 });
}

/** `slow` waits for the file GATE; `hang` never ends when HANG=1. Each says when it starts. */
const HANDLERS = `
import { existsSync } from 'node:fs';
export default {
  async slow(input) {
    console.log('slow ' + input.n + ' started');
    while (!existsSync(process.env.GATE)) await new Promise((r) => setTimeout(r, 20));
    return input.n * 10;
  },
  async sum(input) {
    console.log('sum started');
    return input;
  },
  async hang(input) {
    console.log('hang started');
    if (process.env.HANG === '1') await new Promise(() => {});
    return { done: input.n };
  },
};
`;

const FAN = `
workflow: fan
activities:
  start: { kind: trigger }
  a:     { kind: task, task: slow, input: "{ 'n': 1 }" }
  b:     { kind: task, task: slow, input: "{ 'n': 2 }" }
  c:     { kind: task, task: slow, input: "{ 'n': 3 }" }
  join:  { kind: task, task: sum, input: "a.output + b.output + c.output" }
transitions: { start: [a, b, c], a: [join], b: [join], c: [join] }
output: join.output
`;

const CRASHY = `
workflow: crashy
activities:
  start: { kind: trigger }
  work:  { kind: task, task: hang, input: "{ 'n': 7 }" }
transitions: { start: [work] }
output: work.output
`;

/** A code-first workflow whose one task hangs when HANG=1. */
const CODE_FIRST = `
import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};
export const hang = defineTask('hang', async (n) => {
  console.log('hang started');
  if (process.env.HANG === '1') await new Promise(() => {});
  return { done: n };
});
export const crashyCode = defineWorkflow(
  'crashy-code',
  class extends Workflow {
    async handle(n) {
      return this.execute(hang, n);
    }
  },
);
export default {};
`;

async function startJob(workflow: string, input = '{}'): Promise<string> {
  const run = await weft(['start', workflow, '--input', input]);
  expect(run.code, run.err).toBe(0);
  return run.out.split('\n').at(-1) as string;
}

async function stateOf(job: string): Promise<string> {
  const run = await weft(['status', job, '--json']);
  return (JSON.parse(run.out) as { state: string }).state;
}

describe.skipIf(skipBackend)(`weft pause and resume (${backend})`, () => {
  it('pause while three handlers run: SUSPENDING, their results kept, SUSPENDED, resume, SUCCESS', async () => {
    file('handlers.mjs', HANDLERS);
    expect((await weft(['deploy', file('fan.yaml', FAN)])).code).toBe(0);
    const gate = join(dir, 'gate');
    const worker = launch(['worker', '--handlers', 'handlers.mjs'], { GATE: gate });
    const job = await startJob('fan');
    await until(
      'three handlers running',
      () => (worker.out().match(/slow \d started/g) ?? []).length === 3,
    );

    const paused = await weft(['pause', job]);
    expect(paused).toMatchObject({ code: 0, out: `${job} SUSPENDING` });
    const early = await weft(['resume', job]);
    expect(early.code).not.toBe(0);
    expect(early.err).toMatch(/SUSPENDING -> RUNNING/);

    writeFileSync(gate, '');
    await until('SUSPENDED', async () => (await stateOf(job)) === 'SUSPENDED');
    const view = JSON.parse((await weft(['status', job, '--json'])).out) as {
      activities: { id: string; status: string | null }[];
    };
    const status = Object.fromEntries(view.activities.map((a) => [a.id, a.status]));
    expect(status).toMatchObject({ a: 'SUCCESS', b: 'SUCCESS', c: 'SUCCESS', join: null });
    await new Promise((r) => setTimeout(r, 500));
    expect(worker.out()).not.toContain('sum started');

    expect(await weft(['resume', job])).toMatchObject({ code: 0, out: `${job} RUNNING` });
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result).toMatchObject({ code: 0, out: '60' });
    const history = (await weft(['history', job])).out;
    expect(history).toMatch(/suspend .*SUSPENDING/);
    expect(history).toMatch(/suspended .*SUSPENDED/);
    expect(history).toMatch(/resume .*RUNNING/);
  });

  it('a SIGKILLed worker: another takes its task over, the job resumes, history and status say so', async () => {
    file('handlers.mjs', HANDLERS);
    expect((await weft(['deploy', file('crashy.yaml', CRASHY)])).code).toBe(0);
    const job = await startJob('crashy');
    const doomed = launch(['worker', '--handlers', 'handlers.mjs', '--lease-ms', '1000'], {
      HANG: '1',
    });
    await until('the task to start', () => doomed.out().includes('hang started'));
    const dead = /weft worker (\S+) running/.exec(doomed.err())?.[1] as string;
    expect(dead).toBeTruthy();
    doomed.child.kill('SIGKILL');
    await doomed.exited;

    const heir = launch(['worker', '--handlers', 'handlers.mjs', '--lease-ms', '1000']);
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result).toMatchObject({ code: 0, out: '{"done":7}' });
    const heirId = /weft worker (\S+) running/.exec(heir.err())?.[1] as string;

    const history = JSON.parse((await weft(['history', job, '--json'])).out) as {
      kind: string;
      change: Record<string, unknown>;
      worker: string | null;
    }[];
    const resumed = history.filter((h) => h.kind === 'resumption');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatchObject({
      worker: heirId,
      change: { died: dead, path: ['RESUMING', 'SUSPENDED', 'RUNNING'], stream: 'task:hang' },
    });
    expect(typeof resumed[0]?.change.message).toBe('string');
    const status = await weft(['status', job]);
    expect(status.out).toContain("resumed once after a worker's lease ran out");
    expect(JSON.parse((await weft(['status', job, '--json'])).out)).toMatchObject({
      state: 'SUCCESS',
      resumptions: 1,
    });
    expect(existsSync(dir)).toBe(true);
  });

  it('code-first: a SIGKILLed worker mid-task, taken over, the job resumes and ends SUCCESS', async () => {
    file('code.mjs', CODE_FIRST);
    const doomed = launch(['worker', '--handlers', 'code.mjs', '--lease-ms', '1000'], {
      HANG: '1',
    });
    await until('the worker to run', () => doomed.err().includes('running on'));
    const job = await startJob('crashy-code', '[7]');
    await until('the task to start', () => doomed.out().includes('hang started'));
    const dead = /weft worker (\S+) running/.exec(doomed.err())?.[1] as string;
    doomed.child.kill('SIGKILL');
    await doomed.exited;

    launch(['worker', '--handlers', 'code.mjs', '--lease-ms', '1000']);
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result).toMatchObject({ code: 0, out: '{"done":7}' });
    const history = JSON.parse((await weft(['history', job, '--json'])).out) as {
      kind: string;
      change: Record<string, unknown>;
    }[];
    const resumed = history.filter((h) => h.kind === 'resumption');
    expect(resumed.length).toBeGreaterThanOrEqual(1);
    expect(resumed[0]?.change).toMatchObject({
      died: dead,
      path: ['RESUMING', 'SUSPENDED', 'RUNNING'],
    });
    expect((await weft(['status', job])).out).toMatch(/resumed (once|\d+ times) after/);
  });
});
