/**
 * `weft status` and `weft history` of a code-first job, each command its own process
 * (`node bin/weft.js …`, built once per run), as a user meets them: after `weft run` of
 * a saga whose second task fails once and is retried, which sleeps, and whose last task
 * fails so that the first is reverted, `weft status` lists the steps by task name in the
 * order they ran — with start, finish, duration, state and attempts, the retry's error and
 * the revert after the tasks — and `weft history` names each task on its lines (not its
 * `<job>.0.1` id), each with its time. `--json` keeps its shapes and adds `steps` and
 * `name`. A job that waits shows its waiting step as running.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobHistoryEntry } from '../../../src/client/job-history.js';
import type { JobView } from '../../../src/client/job-view.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import {
  launchWeft,
  REPO_ROOT,
  type RunningWeft,
  runWeft,
  type WeftRun,
} from '../../support/weft-cli.js';

const LIBRARY = pathToFileURL(join(REPO_ROOT, 'dist', 'index.js')).href;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** A time of day as the step table prints it (UTC, on the day the job was created). */
const TIME = /^\d\d:\d\d:\d\d\.\d{3}$/;
/** A duration as the step table prints it. */
const DURATION = /^(\d+ms|\d+\.\d\ds)$/;

let location: TestStoreLocation;
let dir: string;
const workers: RunningWeft[] = [];

beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-code-first-steps-'));
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: dir });
}

/** Reserve (undone by release), a task that fails once, a sleep, a task that fails: reverted. */
const MODULE = `
import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};

let calls = 0;
export const release = defineTask('release', async (run) => ({ released: run.output.hold }));
export const reserve = defineTask('reserve', async (sku) => ({ hold: 'H-' + sku }), {
  revert: release,
});
export const flaky = defineTask(
  'flaky',
  async (n) => {
    if (++calls === 1) throw new Error('first call fails');
    return n * 2;
  },
  { retry: { attempts: 2, backoff: '10ms' } },
);
export const ship = defineTask(
  'ship',
  async () => {
    throw new Error('no courier today');
  },
  { retry: { attempts: 1 } },
);

export const saga = defineWorkflow(
  'steps-saga',
  class extends Workflow {
    async handle(sku) {
      const { hold } = await this.execute(reserve, sku);
      const doubled = await this.execute(flaky, 21);
      await this.waitFor(50);
      await this.execute(ship, hold);
      return doubled;
    }
  },
  { onFailure: 'revert' },
);

export const waiting = defineWorkflow(
  'steps-waiting',
  class extends Workflow {
    async handle(sku) {
      await this.execute(reserve, sku);
      return this.waitForEvent('go', { timeoutMs: 3_600_000 });
    }
  },
);

export default {};
`;

/** The step table's rows (after its header and rule) as cells. */
function stepRows(text: string): string[][] {
  const table = text.split('\n').filter((line) => line.startsWith('| '));
  return table.map((line) =>
    line
      .slice(2, -2)
      .split(' | ')
      .map((cell) => cell.trim()),
  );
}

describe.skipIf(skipBackend)('weft status and weft history of a code-first job', () => {
  it('lists the steps by task name with times, attempts and the revert; history names each task', async () => {
    const module = join(dir, 'saga.mjs');
    writeFileSync(module, MODULE);
    const run = await weft(['run', module, '--workflow', 'steps-saga', '--input', '["tea"]']);
    expect(run.code, run.err).toBe(1);
    const id = (run.out.match(/^job (\S+)/) as RegExpMatchArray)[1] as string;

    const status = await weft(['status', id]);
    expect(status.code, status.err).toBe(0);
    expect(status.out.split('\n')[0]).toBe(`job ${id}  steps-saga@1  REVERTED  (code-first)`);
    const [header, rule, ...rows] = stepRows(status.out);
    expect(header).toEqual([
      'Step',
      'Kind',
      'State',
      'Attempts',
      'Started',
      'Finished',
      'Duration',
      'Detail',
    ]);
    expect(rule?.every((cell) => /^-+$/.test(cell))).toBe(true);
    // In the order they ran, by name; the revert after the tasks.
    expect(rows.map((r) => [r[0], r[1], r[2], r[3]])).toEqual([
      ['reserve', 'task', 'completed', '1'],
      ['flaky', 'task', 'completed', '2'],
      ['sleep', 'wait', 'completed', ''],
      ['ship', 'task', 'failed', '1'],
      ['release (reverts reserve)', 'revert', 'reverted', '1'],
    ]);
    for (const row of rows) {
      expect(row[4], row[0]).toMatch(TIME);
      expect(row[5], row[0]).toMatch(TIME);
      expect(row[6], row[0]).toMatch(DURATION);
    }
    const detail = Object.fromEntries(rows.map((r) => [r[0], r[7]]));
    expect(detail.flaky).toBe('attempt 1 Error: first call fails (retried)');
    expect(detail.ship).toBe('Error: no courier today');
    expect(status.out).not.toContain(`${id}.0.`);

    // --json: the view as before (its activities), and the steps with ISO times.
    const json = await weft(['status', id, '--json']);
    const view = JSON.parse(json.out) as JobView;
    expect(view.activities.map((a) => a.id)).toEqual(['reserve', 'flaky', 'wait', 'ship']);
    expect(view.steps?.map((s) => [s.kind, s.name, s.status])).toEqual([
      ['task', 'reserve', 'SUCCESS'],
      ['task', 'flaky', 'SUCCESS'],
      ['wait', 'sleep', 'SUCCESS'],
      ['task', 'ship', 'FAILURE'],
      ['revert', 'release', 'REVERTED'],
    ]);
    for (const step of view.steps ?? []) {
      expect(step.startedAt).toMatch(ISO);
      expect(step.finishedAt).toMatch(ISO);
    }
    const flaky = view.steps?.find((s) => s.name === 'flaky');
    expect(flaky?.attempts.map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [1, 'failed', 'Error: first call fails'],
      [2, 'completed', null],
    ]);

    // weft history: every line of a work names it, each with its time.
    const history = await weft(['history', id]);
    expect(history.code, history.err).toBe(0);
    const lines = history.out.split('\n').map((line) => line.split(/ {2,}/));
    expect(lines[0]).toEqual(['SEQ', 'TIME', 'KIND', 'ACTIVITY', 'CHANGE', 'WORKER']);
    for (const line of lines.slice(1)) expect(line[1]).toMatch(ISO);
    const named = lines.slice(1).filter((l) => l[3] !== '-');
    expect(new Set(named.map((l) => l[3]))).toEqual(new Set(['reserve', 'flaky', 'sleep', 'ship']));
    expect(history.out).not.toContain(`${id}.0.`);
    const row = (kind: string, activity: string) =>
      named.filter((l) => l[2] === kind && l[3] === activity).map((l) => l.slice(4, -1).join('  '));
    expect(row('task', 'flaky')).toContain(
      'retrying attempt 2  error Error: first call fails  retry in 10 ms',
    );
    expect(row('attempt', 'reserve')).toEqual([
      'started attempt 1',
      'release  revert  started attempt 1',
    ]);
    expect(row('revert', 'reserve')).toEqual(['REVERTED']);
    expect(row('wake', 'sleep')).toHaveLength(1);

    // --json: the work's id as before, and its name.
    const entries = JSON.parse((await weft(['history', id, '--json'])).out) as JobHistoryEntry[];
    const attempt = entries.find((e) => e.kind === 'attempt') as JobHistoryEntry;
    expect(attempt.activity).toBe(`${id}.0.0`);
    expect(attempt.name).toBe('reserve');
    expect(entries.find((e) => e.kind === 'start')).not.toHaveProperty('name');
  });

  it('shows a step that waits as running, with its deadline', async () => {
    const module = join(dir, 'saga.mjs');
    writeFileSync(module, MODULE);
    const started = await weft(['start', 'steps-waiting', '--input', '["tea"]', '--id', 'w-1']);
    expect(started.code, started.err).toBe(0);
    workers.push(launchWeft(['worker', '--handlers', module], { store: location.url, cwd: dir }));
    await waitFor(async () => (await weft(['status', 'w-1'])).out.includes('waits for event go'));

    const status = await weft(['status', 'w-1']);
    const [, , ...rows] = stepRows(status.out);
    expect(rows.map((r) => r.slice(0, 3))).toEqual([
      ['reserve', 'task', 'completed'],
      ['wait for go', 'wait', 'running'],
    ]);
    const wait = rows[1] as string[];
    expect(wait[4]).toMatch(TIME);
    expect(wait[5]).toBe('running');
    expect(wait[6]).toBe('');
    expect(wait[7]).toMatch(/^until \d{4}-\d\d-\d\dT\S+Z$/);
  });
});
