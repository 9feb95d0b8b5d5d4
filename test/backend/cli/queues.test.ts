/**
 * Queues as a user runs them: `weft queue create`, `weft start --queue`, `weft queues`,
 * and `weft worker` processes that admit the jobs. Five workers on a queue of three at
 * once and one per key never run more than three, nor two of one key (the handlers log
 * their start and end times); three workers on a queue of 20 per 2 s start 10 a second,
 * never more.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import {
  launchWeft,
  type RunningWeft,
  runWeft,
  type WeftRun,
  workerRunning,
} from '../../support/weft-cli.js';

/** How long the rate is measured (WEFT_QUEUE_RATE_S, default 8; the 30 s with 30). */
const RATE_S = Number(process.env.WEFT_QUEUE_RATE_S ?? 8);

let location: TestStoreLocation;
let dir: string;
let store: Store;
let client: Client;
const workers: RunningWeft[] = [];

beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-queues-'));
  writeFileSync(
    join(dir, 'work.yaml'),
    [
      'workflow: work',
      'activities:',
      '  start: { kind: trigger }',
      '  work: { kind: task, input: "input" }',
      'transitions:',
      '  start: [work]',
      '',
    ].join('\n'),
  );
  // Each run appends one line: name, key, start and end (ms).
  writeFileSync(
    join(dir, 'handlers.mjs'),
    `import { appendFileSync } from 'node:fs';
export default {
  work: async ({ name, key }) => {
    const start = Date.now();
    await new Promise((r) => setTimeout(r, Number(process.env.HOLD_MS ?? 150)));
    appendFileSync('runs.log', JSON.stringify({ name, key, start, end: Date.now() }) + '\\n');
    return name;
  },
};
`,
  );
  writeFileSync(join(dir, 'runs.log'), '');
  store = await openStore(location.url);
  client = new Client(store);
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop('SIGKILL');
  await store.close();
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: dir });
}

function worker(env: NodeJS.ProcessEnv = {}, args: string[] = []): RunningWeft {
  const running = launchWeft(['worker', '--handlers', 'handlers.mjs', ...args], {
    store: location.url,
    cwd: dir,
    env,
  });
  workers.push(running);
  return running;
}

/**
 * Stops every worker with SIGTERM and expects each to end cleanly (0). A worker the others
 * left no work for may still be starting: each is waited for to say it runs first.
 */
async function stopAll() {
  for (const w of workers) {
    await workerRunning(w);
    expect(await w.stop()).toBe(0);
  }
}

interface Run {
  name: string;
  key: string;
  start: number;
  end: number;
}

function runs(): Run[] {
  return readFileSync(join(dir, 'runs.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Run);
}

async function allDone(ids: readonly string[]) {
  for (const id of ids) {
    expect((await client.result(id, { wait: true, timeoutMs: 120_000 })).state).toBe('SUCCESS');
  }
}

describe.skipIf(skipBackend)('weft queue', () => {
  it('five workers on a queue of 3 at once and 1 per key never run more, nor two of a key', async () => {
    expect((await weft(['deploy', 'work.yaml'])).code).toBe(0);
    const created = await weft([
      'queue',
      'create',
      'charges',
      '--concurrency',
      '3',
      '--key-concurrency',
      '1',
    ]);
    expect(created.out).toBe('created queue charges: 3 at once, 1 per key');
    // Two through the command line, the rest through the library, all before any worker:
    // the first two find the line empty and are admitted at once; the rest wait.
    const ids: string[] = [];
    for (const key of ['cus_0', 'cus_1']) {
      const started = await weft([
        'start',
        'work',
        '--queue',
        'charges',
        '--key',
        key,
        '--input',
        JSON.stringify({ name: `cli-${key}`, key }),
      ]);
      expect(started.code, started.err).toBe(0);
      ids.push(started.out);
    }
    for (let i = 0; i < 28; i++) {
      const key = `cus_${i % 5}`;
      ids.push((await client.start('work', { name: `j${i}`, key }, { queue: 'charges', key })).id);
    }
    const listed = await weft(['queues']);
    expect(listed.out.split('\n')[1]).toMatch(
      /^charges +3 at once, 1 per key +2 +28 +\d+s +0 +cus_0 1\/6, cus_1 1\/6, cus_2 0\/6, cus_3 0\/5, cus_4 0\/5$/,
    );
    for (let i = 0; i < 5; i++) worker();
    await allDone(ids);
    const all = runs();
    expect(all).toHaveLength(30);
    let most = 0;
    for (const run of all) {
      const during = all.filter((r) => r.start <= run.start && r.end > run.start);
      most = Math.max(most, during.length);
      expect(
        during.filter((r) => r.key === run.key),
        `two of ${run.key} at once`,
      ).toHaveLength(1);
    }
    expect(most).toBeLessThanOrEqual(3);
    expect((await weft(['queues'])).out.split('\n')[1]).toMatch(
      /^charges +3 at once, 1 per key +0 +0 +- +0 +-$/,
    );
    await stopAll();
  }, 180_000);

  it('three workers with --task-concurrency work=2 never run more than 2 attempts at once', async () => {
    expect((await weft(['deploy', 'work.yaml'])).code).toBe(0);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++)
      ids.push((await client.start('work', { name: `t${i}`, key: '' })).id);
    for (let i = 0; i < 3; i++) worker({}, ['--task-concurrency', 'work=2']);
    await allDone(ids);
    const all = runs();
    expect(all).toHaveLength(12);
    let most = 0;
    for (const run of all) {
      most = Math.max(most, all.filter((r) => r.start <= run.start && r.end > run.start).length);
    }
    expect(most).toBeLessThanOrEqual(2);
    const bad = await weft(['worker', '--task-concurrency', 'work']);
    expect([bad.code, bad.err]).toEqual([
      2,
      "error: option '--task-concurrency <task=n>' argument 'work' is invalid. Expected task=n, such as charge=5 (n from 1 to 1000000).",
    ]);
    await stopAll();
  }, 180_000);

  it('three workers with --task-queue: two tasks share a queue of 2 at once, 1 per key', async () => {
    writeFileSync(
      join(dir, 'pair.yaml'),
      [
        'workflow: pair',
        'activities:',
        '  start: { kind: trigger }',
        '  work: { kind: task, input: "input" }',
        '  more: { kind: task, input: "input" }',
        'transitions:',
        '  start: [work, more]',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'pair-handlers.mjs'),
      "import handlers from './handlers.mjs';\nexport default { work: handlers.work, more: handlers.work };\n",
    );
    expect((await weft(['deploy', 'pair.yaml'])).code).toBe(0);
    const created = await weft([
      'queue',
      'create',
      'api',
      '--concurrency',
      '2',
      '--key-concurrency',
      '1',
    ]);
    expect(created.code).toBe(0);
    const ids: string[] = [];
    for (let i = 0; i < 8; i++)
      ids.push((await client.start('pair', { name: `p${i}`, key: `k${i % 3}` })).id);
    const flags = [
      '--handlers',
      'pair-handlers.mjs',
      '--task-queue',
      'work=api',
      '--task-queue',
      'more=api',
      '--task-queue-key',
      'work=input.key',
      '--task-queue-key',
      'more=input.key',
    ];
    for (let i = 0; i < 3; i++) {
      const running = launchWeft(['worker', ...flags], { store: location.url, cwd: dir });
      workers.push(running);
    }
    await allDone(ids);
    const all = runs();
    expect(all).toHaveLength(16);
    let most = 0;
    for (const run of all) {
      const during = all.filter((r) => r.start <= run.start && r.end > run.start);
      most = Math.max(most, during.length);
      expect(
        during.filter((r) => r.key === run.key),
        `two of ${run.key} at once`,
      ).toHaveLength(1);
    }
    expect(most).toBeLessThanOrEqual(2);
    expect((await weft(['queues'])).out.split('\n')[1]).toMatch(
      /^api +2 at once, 1 per key +0 +0 +- +0 +-$/,
    );
    // A key expression that could hold the store is refused when the worker starts.
    const slow = await weft([
      'worker',
      '--task-queue',
      'work=api',
      '--task-queue-key',
      'work=$sort([1..100000])',
    ]);
    expect([slow.code, slow.err]).toEqual([
      1,
      expect.stringContaining(
        'task work queue key: queue key "$sort([1..100000])" is read inside a claim',
      ),
    ]);
    const orphan = await weft(['worker', '--task-queue-key', 'work=input.key']);
    expect([orphan.code, orphan.err]).toEqual([
      1,
      expect.stringContaining('--task-queue-key work needs a queue for the task'),
    ]);
    await stopAll();
  }, 180_000);

  it(`three workers on a queue of 20 per 2 s start 10 a second, never more (${RATE_S} s)`, async () => {
    expect((await weft(['deploy', 'work.yaml'])).code).toBe(0);
    expect((await weft(['queue', 'create', 'paced', '--rate', '20/2s'])).code).toBe(0);
    // The workers run first: a job admitted at its start then runs at once.
    const running = [0, 1, 2].map(() => worker({ HOLD_MS: '5' }));
    for (const w of running) {
      await waitFor(() => w.err().includes('running on'), 'a worker to run', { timeoutMs: 30_000 });
    }
    const total = 20 + RATE_S * 10 + 40;
    const ids: string[] = [];
    const before = Date.now();
    for (let i = 0; i < total; i++) {
      ids.push((await client.start('work', { name: `r${i}`, key: '' }, { queue: 'paced' })).id);
    }
    await allDone(ids);
    const starts = runs()
      .map((r) => r.start)
      .sort((a, b) => a - b);
    // A handler starts no sooner than its job's admission, and the first admission came
    // after `before`, so the last handler cannot start sooner after `before` than the limit
    // allows: one burst of 20, then the rest at 10 a second (10% for timing). Measured
    // from the first handler's start instead, a loaded machine that started the burst
    // late made the span look too short. A window count is not used either: on a loaded
    // machine the burst's handlers start late and crowd into any window.
    const paced = (total - 20) * 100;
    expect((starts.at(-1) as number) - before).toBeGreaterThanOrEqual(paced * 0.9);
    const span = (starts.at(-1) as number) - (starts[0] as number);
    // And not much slower than the limit (a loaded machine lags).
    expect(span).toBeLessThanOrEqual(paced / 0.6);
  }, 240_000);

  it('refuses what it cannot queue, naming it', async () => {
    expect((await weft(['deploy', 'work.yaml'])).code).toBe(0);
    const unknown = await weft(['start', 'work', '--queue', 'nope']);
    expect([unknown.code, unknown.err]).toEqual([
      1,
      'error: start: queue "nope" is not declared: create it first (weft queue create nope --concurrency N)',
    ]);
    const rate = await weft(['queue', 'create', 'q', '--rate', 'fast']);
    expect(rate.code).toBe(2);
    expect(rate.err).toContain('Expected starts per duration, such as 20/2s or 100/1m.');
    expect((await weft(['queues'])).out).toBe('no queues');
  });
});
