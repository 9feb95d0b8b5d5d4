/**
 * A job execution timeout as a user meets it, every command its own process (`node
 * bin/weft.js …`) with `weft worker` processes doing the work: a graph workflow with
 * `timeout: 2s` whose task sleeps 30 s ends FAILURE within seconds with a JobTimeoutError,
 * a 7 in its key where the task and the await were, one `deadline` line in its history
 * (two workers, one firing), its child job ended with it, the task's handler aborted and
 * its result never recorded, and no revert run although it has `on_failure: revert`;
 * `weft start --timeout` gives a job a limit its workflow lacks; a deadline that passes
 * while no worker runs ends the job as soon as one does; and a code-first workflow with
 * `timeoutMs` ends the same way, its child workflow too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  workerRunning,
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
  dir = mkdtempSync(join(tmpdir(), 'weft-timeout-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop('SIGKILL')));
  await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: storeUrl, cwd: dir });
}

function launch(args: string[]): RunningWeft {
  const running = launchWeft(args, { store: storeUrl, cwd: dir });
  started.push(running);
  return running;
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `nap` sleeps 30 s unless aborted; `book` books at once; `unbook` would undo it. */
const HANDLERS = `
export default {
  async nap(_input, ctx) {
    console.log('nap started');
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 30000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        console.log('nap aborted: ' + (ctx.signal.reason && ctx.signal.reason.name));
        resolve();
      });
    });
    console.log('nap returned');
    return 'rested';
  },
  async book() { return 'booked'; },
  async unbook() { console.log('unbook ran'); return null; },
};
`;

const LIMITED = `
workflow: limited
timeout: 2s
on_failure: revert
activities:
  start: { kind: trigger }
  book:  { kind: task, revert: unbook }
  nap:   { kind: task }
  sub:   { kind: await, workflow: waiter }
transitions: { start: [book], book: [nap, sub] }
`;

const WAITER = `
workflow: waiter
activities:
  begin: { kind: trigger }
  wait:  { kind: hook, signal: go }
transitions: { begin: [wait] }
`;

const UNLIMITED = `
workflow: unlimited
activities:
  start: { kind: trigger }
  nap:   { kind: task }
transitions: { start: [nap] }
`;

interface View {
  state: string;
  collation: string | null;
  activities: {
    id: string;
    position: number | null;
    digit: number | null;
    status: string | null;
    error: { name: string } | null;
  }[];
  error: {
    name: string;
    code?: string;
    message: string;
    job?: string;
    timeoutMs?: number;
    parent?: string;
    activities?: string[];
  } | null;
  deadline: string | null;
  timeoutMs: number | null;
  children: View[];
  id: string;
}

async function status(job: string): Promise<View> {
  const run = await weft(['status', job, '--json']);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as View;
}

async function start(args: string[]): Promise<string> {
  const run = await weft(['start', ...args]);
  expect(run.code, run.err).toBe(0);
  return run.out.split('\n').at(-1) as string;
}

async function history(job: string): Promise<{ kind: string; change: Record<string, unknown> }[]> {
  return JSON.parse((await weft(['history', job, '--json'])).out);
}

/** An activity's digit in the key (`position` counts from 1). */
function digitOf(view: View, id: string): string {
  const position = view.activities.find((a) => a.id === id)?.position as number;
  return (view.collation as string)[position - 1] as string;
}

describe.skipIf(skipBackend)(`job execution timeout (${backend})`, () => {
  it('timeout: 2s ends the job, its child and its running task within seconds; no revert runs', async () => {
    file('handlers.mjs', HANDLERS);
    expect((await weft(['deploy', file('waiter.yaml', WAITER)])).code).toBe(0);
    expect((await weft(['deploy', file('limited.yaml', LIMITED)])).code).toBe(0);
    // Two workers: the deadline's timer fires once whichever looks first.
    const workers = [0, 1].map(() =>
      launch(['worker', '--handlers', 'handlers.mjs', '--lease-ms', '1500']),
    );
    // The clock starts once they run: a loaded machine takes seconds to start a process,
    // and that is not the job's time.
    for (const w of workers) await workerRunning(w);
    const startedAt = Date.now();
    const job = await start(['limited']);

    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    const tookMs = Date.now() - startedAt;
    expect(result.code, result.out + result.err).toBe(1);
    expect(result.out).toMatch(new RegExp(`^FAILURE: job ${job} timed out: .*2000 ms limit`));
    // A 2 s limit ends the job within a few seconds (the task would sleep 30).
    expect(tookMs).toBeLessThan(15_000);

    const view = await status(job);
    expect(view.state).toBe('FAILURE');
    expect(view.error).toMatchObject({
      name: 'JobTimeoutError',
      code: 'JOB_TIMEOUT',
      job,
      timeoutMs: 2000,
    });
    expect(view.error?.activities?.sort()).toEqual(['nap', 'sub']);
    expect(view.timeoutMs).toBe(2000);
    expect(view.deadline).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The cut-off activities errored (7); the finished one and the trigger completed (6).
    expect(digitOf(view, 'nap')).toBe('7');
    expect(digitOf(view, 'sub')).toBe('7');
    expect(digitOf(view, 'book')).toBe('6');
    expect(view.activities.find((a) => a.id === 'nap')).toMatchObject({
      status: 'FAILURE',
      error: { name: 'JobTimeoutError' },
    });

    // The child job ended with it, naming the parent whose deadline passed.
    const [child] = view.children;
    expect(child?.state).toBe('FAILURE');
    expect(child?.error).toMatchObject({ code: 'JOB_TIMEOUT', parent: job, timeoutMs: 2000 });
    expect(child?.collation).toContain('7');

    const lines = await history(job);
    expect(lines.filter((l) => l.kind === 'deadline')).toHaveLength(1);
    expect(lines.find((l) => l.kind === 'deadline')?.change).toMatchObject({
      digits: { nap: [8, 7], sub: [8, 7] },
      collation: view.collation,
    });
    expect(lines.at(-1)).toMatchObject({ kind: 'end', change: { state: 'FAILURE' } });
    expect((await history(child?.id as string)).some((l) => l.kind === 'deadline')).toBe(true);

    // The running handler was aborted (its lease renewal failed), and nothing it returned
    // overwrote the job's end; no revert ran.
    await waitFor(
      () => workers.some((w) => w.out().includes('nap aborted: LeaseLostError')),
      'the nap handler to be aborted',
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    await new Promise((r) => setTimeout(r, 1000));
    const after = await status(job);
    expect(after.state).toBe('FAILURE');
    expect(after.collation).toBe(view.collation);
    for (const w of workers) expect(w.out()).not.toContain('unbook ran');

    const text = await weft(['status', job]);
    expect(text.out).toMatch(/deadline \d{4}-.*\(timeout 2s from its start\)/);
  });

  it('weft start --timeout limits a job its workflow does not; a deadline passed while no worker ran ends it at once', async () => {
    file('handlers.mjs', HANDLERS);
    expect((await weft(['deploy', file('unlimited.yaml', UNLIMITED)])).code).toBe(0);
    const bad = await weft(['start', 'unlimited', '--timeout', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--timeout.*Expected a duration/);

    const job = await start(['unlimited', '--timeout', '1s']);
    expect(await status(job)).toMatchObject({ state: 'RUNNING', timeoutMs: 1000 });
    // No worker yet: the deadline passes with nobody to see it.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await status(job)).state).toBe('RUNNING');

    launch(['worker', '--handlers', 'handlers.mjs']);
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/timed out: .*1000 ms limit/);
    const view = await status(job);
    expect(view.error).toMatchObject({ code: 'JOB_TIMEOUT', timeoutMs: 1000 });
    expect((await history(job)).filter((l) => l.kind === 'deadline')).toHaveLength(1);
  });

  it('code-first: defineWorkflow timeoutMs ends the instance and its child workflow', async () => {
    file(
      'code.mjs',
      `
import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};
export const nap = defineTask('nap', async (_input, ctx) => {
  console.log('nap started');
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 30000);
    ctx.signal.addEventListener('abort', () => { clearTimeout(timer); console.log('nap aborted'); resolve(); });
  });
  return 'rested';
});
export const listener = defineWorkflow('listener', class extends Workflow {
  async handle() { return this.waitForEvent('go'); }
});
export const slowpoke = defineWorkflow('slowpoke', class extends Workflow {
  async handle() {
    const [rested, heard] = await this.execute([nap], [listener]);
    return { rested, heard };
  }
}, { timeoutMs: 2000 });
export default {};
`,
    );
    const worker = launch(['worker', '--handlers', 'code.mjs', '--lease-ms', '1500']);
    await waitFor(() => worker.err().includes('running on'), 'the worker to run', {
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    // Started by a client without the code: the workflow's own timeout still applies.
    const job = await start(['slowpoke']);
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result.code, result.out).toBe(1);
    expect(result.out).toMatch(/timed out: .*2000 ms limit/);

    const view = await status(job);
    expect(view.error).toMatchObject({ name: 'JobTimeoutError', code: 'JOB_TIMEOUT', job });
    expect(view.error?.activities?.sort()).toEqual(['listener', 'nap']);
    expect(view.timeoutMs).toBe(2000);
    const [child] = view.children;
    expect(child).toMatchObject({ state: 'FAILURE', error: { code: 'JOB_TIMEOUT', parent: job } });
    expect((await history(job)).filter((l) => l.kind === 'deadline')).toHaveLength(1);
    await waitFor(() => worker.out().includes('nap aborted'), 'the nap handler to be aborted', {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect((await status(job)).state).toBe('FAILURE');
  });
});
