/**
 * `weft start --delay` and `--at`, as a user meets them: each command its own process. The
 * job is there at once and `weft status` says when it starts; a running `weft worker`
 * takes its first step then, not before. A time that is not one is refused naming the
 * option, and nothing is stored.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import {
  launchWeft,
  REPO_ROOT,
  type RunningWeft,
  runWeft,
  type WeftRun,
  workerRunning,
} from '../../support/weft-cli.js';

const LIBRARY = pathToFileURL(join(REPO_ROOT, 'dist', 'index.js')).href;

let location: TestStoreLocation;
let dir: string;
const workers: RunningWeft[] = [];

beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-delay-'));
  writeFileSync(join(dir, 'charges.txt'), '');
  writeFileSync(
    join(dir, 'later.yaml'),
    `workflow: later
activities:
  start:  { kind: trigger }
  charge: { kind: task }
transitions:
  start: [charge]
`,
  );
  // Graph handlers and a code-first workflow in one module; each charge writes its time.
  writeFileSync(
    join(dir, 'handlers.mjs'),
    `import { appendFileSync } from 'node:fs';
import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};
const record = () => { appendFileSync('charges.txt', Date.now() + '\\n'); return 'charged'; };
export const charge = defineTask('pay-charge', record);
export const pay = defineWorkflow('pay', class extends Workflow {
  async handle() { return this.execute(charge); }
});
export default { charge: record };
`,
  );
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(...args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: dir });
}

/** Launches a worker and waits until it says it runs. */
async function runningWorker(): Promise<void> {
  const worker = launchWeft(['worker', '--handlers', 'handlers.mjs'], {
    store: location.url,
    cwd: dir,
  });
  workers.push(worker);
  await workerRunning(worker);
}

/** The times the charges ran at. */
function charges(): number[] {
  return readFileSync(join(dir, 'charges.txt'), 'utf8').split('\n').filter(Boolean).map(Number);
}

/**
 * Starts it with `args`: `weft start --json` shows when it starts, and so does `weft
 * status` while it waits; then waits for its end.
 */
async function startLater(
  workflow: string,
  ...args: string[]
): Promise<{ startAt: number; result: WeftRun }> {
  const started = await weft('start', workflow, ...args, '--json');
  expect(started.code).toBe(0);
  const view = JSON.parse(started.out);
  expect(view.state).toBe('RUNNING');
  const startAt = Date.parse(view.startAt);
  // The view is read before `weft start` returns: when that is before the start time, it
  // says so (a machine slow enough to start the job after its time sees the job due).
  if (Date.now() < startAt) {
    expect(view.waitingFor).toEqual([
      expect.stringMatching(/^waits until .*Z \(in .*\) to start$/),
    ]);
  }
  const status = await weft('status', view.id);
  if (Date.now() < startAt - 500) expect(status.out).toMatch(/waits until .* to start/);
  const result = await weft('result', view.id, '--wait', '--timeout', '30s');
  return { startAt, result };
}

describe.skipIf(skipBackend)('weft start --delay / --at', () => {
  it('graph, --delay: the worker takes its first step at its start time, not before', async () => {
    expect((await weft('deploy', 'later.yaml')).code).toBe(0);
    await runningWorker();
    const before = Date.now();
    const { startAt, result } = await startLater('later', '--delay', '3s');
    expect(startAt).toBeGreaterThanOrEqual(before + 3000);
    expect(result.code).toBe(0);
    expect(charges()).toHaveLength(1);
    expect(charges()[0]).toBeGreaterThanOrEqual(startAt);
  });

  it('code-first, --at: its first decision waits for the time', async () => {
    // The worker declares the code-first workflow when it starts: until then the job
    // waits for a worker that runs it, not for its time.
    await runningWorker();
    // Far enough ahead that a slow machine's `weft start` still comes before it.
    const at = new Date(Date.now() + 6000).toISOString();
    const { startAt, result } = await startLater('pay', '--at', at);
    expect(startAt).toBe(Date.parse(at));
    expect(result.out).toBe('"charged"');
    expect(charges()[0]).toBeGreaterThanOrEqual(startAt);
  });

  it('refuses a time that is not one, or a delay that is not a duration, naming the option', async () => {
    expect((await weft('deploy', 'later.yaml')).code).toBe(0);
    const at = await weft('start', 'later', '--at', 'tomorrow');
    expect(at.code).toBe(2);
    expect(at.err).toMatch(/option '--at <time>' argument 'tomorrow' is invalid/);
    const delay = await weft('start', 'later', '--delay', 'soon');
    expect(delay.code).toBe(2);
    expect(delay.err).toMatch(/--delay <duration>/);
    const both = await weft('start', 'later', '--delay', '1s', '--at', '2030-01-01T00:00:00Z');
    expect(both.code).toBe(1);
    expect(both.err).toMatch(/--delay and --at: give one of them, not both/);
    expect(JSON.parse((await weft('list', '--json')).out)).toEqual([]);
  });
});
