/**
 * Nothing silent, as a user meets it, each command its own process on the store under
 * test: a `weft worker` whose module lacks a task a deployed workflow uses says so when it
 * starts; once a job has waited the presence window (WEFT_WORKER_WINDOW_MS, shortened
 * here) on that task, `weft status` and the worker's log say no worker has served it;
 * a worker that serves it silences the note, and its clean stop removes its row. A
 * code-first job's dispatched tasks — one that fails, one that succeeds — show their
 * state, output or error, attempts and times in `weft status` and `weft history`, both
 * while the job still runs and when they end after the job did.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobView } from '../../../src/client/job-view.js';
import { openStore } from '../../../src/store/open-store.js';
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
/** The presence window every process of these tests runs with: 1.5 s instead of 30 s. */
const ENV = { WEFT_WORKER_WINDOW_MS: '1500' };
const NOTE = 'no worker has served task brown in the last 1.5 s';

let storeUrl: string;
let cleanup: () => Promise<void>;
let dir: string;
const started: RunningWeft[] = [];

beforeEach(async () => {
  const location = await freshStoreUrl();
  storeUrl = location.url;
  cleanup = location.cleanup;
  dir = mkdtempSync(join(tmpdir(), 'weft-silent-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop('SIGKILL')));
  await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: storeUrl, cwd: dir, env: ENV });
}

function launch(args: string[], env: NodeJS.ProcessEnv = {}): RunningWeft {
  const running = launchWeft(args, { store: storeUrl, cwd: dir, env: { ...ENV, ...env } });
  started.push(running);
  return running;
}

function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  await waitFor(check, what, { timeoutMs: 60_000, intervalMs: 50 });
}

async function status(job: string): Promise<JobView> {
  const run = await weft(['status', job, '--json']);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as JobView;
}

/** A workflow whose task is `brown`; the module below misspells it `browm`. */
const TYPO = `
workflow: typo
activities:
  start: { kind: trigger }
  brown: { kind: task }
transitions: { start: [brown] }
output: brown.output
`;

const MISSPELT = `export default { async browm() { return { colour: 'brown' }; } };`;

/** Serves `brown` once a file named "release" exists in its folder. */
const SERVES_BROWN = `import { existsSync } from 'node:fs';
export default {
  async brown() {
    while (!existsSync('release')) await new Promise((resolve) => setTimeout(resolve, 50));
    return { colour: 'brown' };
  },
};`;

/**
 * A trip that dispatches `notify` (succeeds) and `audit` (fails) — both held, with
 * `hold`, until a file named "release" exists — then waits for event `go` when `wait` is
 * set, and books.
 */
const TRIP = `
import { existsSync } from 'node:fs';
import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};

async function held(input) {
  while (input.hold && !existsSync('release')) await new Promise((r) => setTimeout(r, 50));
}
export const notify = defineTask('notify', async (input) => {
  await held(input);
  return { sent: input.to };
});
// One attempt: the tests read the failure as it first lands.
export const audit = defineTask(
  'audit',
  async (input) => {
    await held(input);
    throw new Error('audit log is down');
  },
  { retry: { attempts: 1 } },
);
export const book = defineTask('book', async (input) => ({ booked: input.id }));

export const trip = defineWorkflow('trip', class extends Workflow {
  async handle(input) {
    await this.dispatch(notify, { to: 'ana', hold: input.hold });
    await this.dispatch(audit, { hold: input.hold });
    if (input.wait) await this.waitForEvent('go');
    return await this.execute(book, { id: input.id });
  }
});
`;

function work(view: JobView, name: string) {
  const found = view.activities.find((a) => a.id === name);
  if (!found) throw new Error(`no work ${name} in ${JSON.stringify(view.activities)}`);
  return found;
}

/** The workers the store has recorded (what `weft_workers` holds on the SQL stores). */
async function workers() {
  const store = await openStore(storeUrl);
  try {
    return await store.listWorkers();
  } finally {
    await store.close();
  }
}

describe.skipIf(skipBackend)(`nothing silent (${backend})`, () => {
  it('a worker lacking a deployed task warns at start; after the window status and its log say no worker serves it', async () => {
    expect((await weft(['deploy', file('typo.yaml', TYPO)])).code).toBe(0);
    const lacking = launch(['worker', '--handlers', file('misspelt.mjs', MISSPELT)]);
    await until('the start warning', () => lacking.err().includes('lacks tasks'));
    expect(lacking.err()).toContain(
      'lacks tasks deployed workflows use: brown (typo); no live worker serves brown',
    );

    const begun = await weft(['start', 'typo']);
    expect(begun.code, begun.err).toBe(0);
    const job = begun.out.split('\n').at(-1) as string;
    await until('status to say no worker serves brown', async () =>
      (await status(job)).waitingFor.includes(`waits for task brown (activity brown) — ${NOTE}`),
    );
    const text = await weft(['status', job]);
    expect(text.out).toContain(`waits for task brown (activity brown) — ${NOTE}`);
    await until('the worker to log it', () =>
      lacking.err().includes(`job ${job} waits for task brown — ${NOTE}`),
    );

    // A worker that serves brown (held until released): the note goes, though the job
    // still waits.
    const serving = launch(['worker', '--handlers', file('brown.mjs', SERVES_BROWN)]);
    await until('the task to start', async () => {
      const rows = await workers();
      return rows.length === 2 && (await status(job)).waitingFor.every((w) => !w.includes(NOTE));
    });
    expect((await status(job)).waitingFor).toEqual(['waits for task brown (activity brown)']);

    // A clean stop removes the worker's row; the other stays.
    lacking.child.kill('SIGTERM');
    expect(await lacking.exited).toBe(0);
    expect((await workers()).map((w) => w.tasks)).toEqual([['brown']]);
    file('release', '');
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result).toMatchObject({ code: 0, out: '{"colour":"brown"}' });
    serving.child.kill('SIGTERM');
    expect(await serving.exited).toBe(0);
  }, 180_000);

  it('dispatched tasks show their end in status and history while the job runs', async () => {
    const worker = launch(['worker', '--handlers', file('trip.mjs', TRIP)]);
    await until('the worker to run', () => worker.err().includes('running on'));
    const begun = await weft(['start', 'trip', '--input', '[{"id":"T1","wait":true}]']);
    expect(begun.code, begun.err).toBe(0);
    const job = begun.out.split('\n').at(-1) as string;
    await until('both dispatched tasks to end', async () => {
      const view = await status(job);
      return work(view, 'notify').state === 'completed' && work(view, 'audit').state === 'failed';
    });
    const running = await status(job);
    expect(running.state).toBe('RUNNING');
    expect(work(running, 'notify')).toMatchObject({
      kind: 'task',
      dispatched: true,
      state: 'completed',
      output: { sent: 'ana' },
      attempts: 1,
      error: null,
    });
    expect(work(running, 'audit')).toMatchObject({
      dispatched: true,
      state: 'failed',
      attempts: 1,
      error: { name: 'Error', message: 'audit log is down' },
    });
    for (const name of ['notify', 'audit']) {
      const { startedAt, finishedAt } = work(running, name);
      expect(startedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(Date.parse(finishedAt as string)).toBeGreaterThanOrEqual(
        Date.parse(startedAt as string),
      );
    }
    const text = (await weft(['status', job])).out;
    expect(text).toMatch(/^\| notify +\| task \(dispatched\) \| completed \| 1 +\| \d\d:/m);
    expect(text).toContain('dispatched task notify completed: output {"sent":"ana"}');
    expect(text).toContain(
      'dispatched task audit failed: Error: audit log is down (the job does not wait for dispatched work, so this did not fail it)',
    );

    // The failure did not fail the job: it goes on when the event comes.
    expect((await weft(['event', job, 'go'])).code).toBe(0);
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result).toMatchObject({ code: 0, out: '{"booked":"T1"}' });
    const history = (await weft(['history', job])).out;
    expect(history).toMatch(/notify \(dispatched\)\s+completed/);
    expect(history).toMatch(
      /audit \(dispatched\)\s+failed attempt 1\s+error Error: audit log is down/,
    );
    expect(history).not.toContain('after the job ended');
  }, 180_000);

  it('dispatched tasks that end after their job show in status and history', async () => {
    const worker = launch(['worker', '--handlers', file('trip.mjs', TRIP)]);
    await until('the worker to run', () => worker.err().includes('running on'));
    const begun = await weft(['start', 'trip', '--input', '[{"id":"T2","hold":true}]']);
    expect(begun.code, begun.err).toBe(0);
    const job = begun.out.split('\n').at(-1) as string;
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result).toMatchObject({ code: 0, out: '{"booked":"T2"}' });
    // The job has ended; its dispatched tasks still run.
    const text = (await weft(['status', job])).out;
    expect(text).toContain('dispatched task notify still running after the job ended');
    expect(text).toContain('dispatched task audit still running after the job ended');
    file('release', '');

    await until('both dispatched tasks to end', async () => {
      const view = await status(job);
      return work(view, 'notify').state === 'completed' && work(view, 'audit').state === 'failed';
    });
    const ended = await status(job);
    // The job kept its end, its output and its finish time.
    expect(ended).toMatchObject({ state: 'SUCCESS', output: { booked: 'T2' }, error: null });
    expect(Date.parse(work(ended, 'audit').finishedAt as string)).toBeGreaterThan(
      Date.parse(ended.finishedAt as string),
    );
    expect(work(ended, 'notify')).toMatchObject({ output: { sent: 'ana' }, attempts: 1 });
    expect(work(ended, 'audit').error).toMatchObject({ message: 'audit log is down' });

    const history = (await weft(['history', job])).out.split('\n');
    const end = history.findIndex((line) => /\bend\b.*SUCCESS/.test(line));
    const late = history.findIndex((line) =>
      /audit \(dispatched\)\s+failed attempt 1\s+error Error: audit log is down\s+after the job ended/.test(
        line,
      ),
    );
    expect(end, history.join('\n')).toBeGreaterThan(0);
    expect(late, history.join('\n')).toBeGreaterThan(end);
    expect(
      history.some((line) => /notify \(dispatched\)\s+completed\s+after the job ended/.test(line)),
    ).toBe(true);
    expect(worker.err()).toContain('task audit failed');
  }, 180_000);
});
