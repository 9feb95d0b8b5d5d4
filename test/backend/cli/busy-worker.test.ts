/**
 * A worker is never deaf (issue 18): with 200,000 tasks queued, each command its own
 * process (`node bin/weft.js …`) on the store under test —
 * - a 100 ms `setInterval` in the handlers module keeps firing while `weft worker` drains
 *   the backlog: the process never uses 500 ms of CPU between two of its ticks (CPU
 *   time, not wall time: a loaded machine that leaves the process waiting for a core
 *   for seconds, as CI's has, stretches the gap without the worker doing anything
 *   wrong; a worker that starves its timers uses the whole gap), and a handler that
 *   runs for several lease periods keeps its lease: it runs once, is never aborted, and
 *   its job succeeds;
 * - SIGTERM ends `weft worker` within its grace period plus 1 s, a hung handler handed
 *   back after the grace;
 * - `weft run` stops at the first Ctrl-C, promptly, and says how to resume.
 * Before, a busy worker ran on microtasks alone (better-sqlite3 answers at once): no
 * timer, heartbeat or signal handler ran until the backlog was gone.
 *
 * The backlog is built once for the file (test/support/task-backlog.ts) and shared: each
 * test drains a few thousand of it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_GRACE_MS } from '../../../src/cli/interrupt.js';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { backend, freshStoreUrl, skipBackend } from '../../support/store-under-test.js';
import { queueTaskBacklog } from '../../support/task-backlog.js';
import { waitFor } from '../../support/wait-for.js';
import { launchWeft, type RunningWeft } from '../../support/weft-cli.js';

/**
 * Tasks queued before the first test. Enough that the backlog is still draining when each
 * test's window ends: a quiet machine drains about 16,000 a second, and the first two
 * tests drained 77,000 of 100,000 together.
 */
const BACKLOG = 200_000;
/** The lease of the worker in the lease test, and how long its slow handler runs. */
const LEASE_MS = 1_000;
const SLOW_MS = 3_500;

/**
 * `noop` drains the backlog (printing `ran <n>` every 250 runs); a 100 ms interval prints
 * `tick <ms since the last>` and `busy <ms of CPU the process used since the last>` from
 * the first run on; `slow` runs SLOW_MS and says whether it was aborted (a lost lease
 * aborts it); `hang` never ends, whatever its signal says.
 */
const HANDLERS = `
let ran = 0;
let last;
let lastCpu;
setInterval(() => {
  const now = performance.now();
  const cpu = process.cpuUsage();
  if (last !== undefined) {
    console.log('tick ' + Math.round(now - last));
    console.log('busy ' + Math.round((cpu.user + cpu.system - lastCpu) / 1000));
  }
  if (ran > 0) {
    last = now;
    lastCpu = cpu.user + cpu.system;
  }
}, 100);
export default {
  async noop() {
    ran++;
    if (ran % 250 === 0) console.log('ran ' + ran);
    return null;
  },
  async slow(input, ctx) {
    console.log('slow started ' + ctx.job);
    await new Promise((resolve) => setTimeout(resolve, ${SLOW_MS}));
    const reason = ctx.signal.aborted ? 'aborted ' + ctx.signal.reason?.name : 'held';
    console.log('slow ended ' + ctx.job + ' ' + reason);
    return { reason };
  },
  async hang(input, ctx) {
    if (process.env.HANG !== '1') return null;
    console.log('hang started ' + ctx.job);
    await new Promise(() => {});
  },
};
`;

/** Its own spread of items keeps a `weft run`'s engine busy too. */
const SPREAD = `
workflow: busy-spread
activities:
  start:  { kind: trigger }
  fan:    { kind: spread, items: "[1..input.n]" }
  each:   { kind: task, task: noop }
  gather: { kind: collect }
transitions: { start: [fan], fan: [each], each: [gather] }
output: $count(gather.output)
`;

let storeUrl: string;
let cleanup: () => Promise<void>;
let store: Store;
let client: Client;
let dir: string;
const started: RunningWeft[] = [];

beforeAll(async () => {
  const location = await freshStoreUrl();
  storeUrl = location.url;
  cleanup = location.cleanup;
  store = await openStore(storeUrl);
  client = new Client(store);
  dir = mkdtempSync(join(tmpdir(), 'weft-busy-'));
  writeFileSync(join(dir, 'handlers.mjs'), HANDLERS);
  writeFileSync(join(dir, 'spread.yaml'), SPREAD);
  for (const task of ['slow', 'hang']) {
    await client.deploy(
      compileWorkflow({
        workflow: task,
        activities: { start: { kind: 'trigger' }, work: { kind: 'task', task } },
        transitions: { start: ['work'] },
      }),
    );
  }
  await queueTaskBacklog(store, 'noop', BACKLOG);
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop('SIGKILL')));
});
afterAll(async () => {
  await store?.close();
  await cleanup?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function launch(args: string[], env: NodeJS.ProcessEnv = {}): RunningWeft {
  const running = launchWeft(args, { store: storeUrl, cwd: dir, env });
  started.push(running);
  return running;
}

/** The numbers printed on lines `<word> <n>`, in order. */
function numbers(out: string, word: string): number[] {
  return [...out.matchAll(new RegExp(`^${word} (\\d+)$`, 'gm'))].map((m) => Number(m[1]));
}

/** How many backlog tasks the process has run, by its last `ran` line. */
function ran(process: RunningWeft): number {
  return numbers(process.out(), 'ran').at(-1) ?? 0;
}

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  await waitFor(check, what, { timeoutMs, intervalMs: 20 });
}

async function queued(): Promise<number> {
  return store.countMessages('task:noop');
}

describe.skipIf(skipBackend)(`a worker with ${BACKLOG} tasks queued (${backend})`, () => {
  it('keeps a 100 ms interval firing and a handler running for several lease periods keeps its lease', async () => {
    const worker = launch(['worker', '--handlers', 'handlers.mjs', '--lease-ms', String(LEASE_MS)]);
    await until('the worker to drain the backlog', () => ran(worker) >= 250);
    const before = ran(worker);
    // Each slow handler runs 3.5 lease periods while the backlog drains around it.
    const jobs = await Promise.all([1, 2, 3].map(() => client.start('slow', null)));
    for (const job of jobs) {
      const done = await client.result(job.id, { wait: true, timeoutMs: 60_000 });
      expect(done.state, JSON.stringify(done.error)).toBe('SUCCESS');
      expect(done.output).toEqual({ work: { reason: 'held' } });
    }
    const out = worker.out();
    for (const job of jobs) {
      // Run once (a lost lease would have run it again), never aborted.
      expect(out.match(new RegExp(`^slow started ${job.id}$`, 'gm'))).toHaveLength(1);
      expect(out).toContain(`slow ended ${job.id} held`);
    }
    // Meanwhile the backlog kept draining, and the interval kept firing.
    expect(ran(worker) - before).toBeGreaterThanOrEqual(250);
    const ticks = numbers(out, 'tick');
    expect(ticks.length).toBeGreaterThan(SLOW_MS / 100 / 2);
    expect(Math.max(...numbers(out, 'busy')), `wall gaps ${Math.max(...ticks)} ms`).toBeLessThan(
      500,
    );
    // All of it happened while the backlog drained.
    expect(await queued()).toBeGreaterThan(0);

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });

  it('ends on SIGTERM within its grace period plus 1 s, its hung handler handed back', async () => {
    const graceMs = 2_000;
    const worker = launch(['worker', '--handlers', 'handlers.mjs', '--grace-ms', String(graceMs)], {
      HANG: '1',
    });
    const job = await client.start('hang', null);
    await until('the hung handler to start', () => worker.out().includes(`hang started ${job.id}`));
    const at = ran(worker);
    await until('the worker to drain the backlog', () => ran(worker) >= at + 250);

    const signalled = performance.now();
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    const took = performance.now() - signalled;
    // It waited for the hung handler (its grace), then handed its work back.
    expect(took).toBeGreaterThanOrEqual(graceMs - 100);
    expect(took).toBeLessThan(graceMs + 1_000);
    expect(worker.err()).toMatch(/SIGTERM: stopping/);
    expect(worker.err()).not.toMatch(/did not answer/);
    const [hung] = await store.peek('task:hang');
    expect(hung).toMatchObject({ job: job.id, consumer: null });
    // All of it happened while the backlog drained.
    expect(await queued()).toBeGreaterThan(0);
  });

  it('weft run stops at the first Ctrl-C, promptly, and says how to resume', async () => {
    const run = launch([
      'run',
      'spread.yaml',
      '--handlers',
      'handlers.mjs',
      '--input',
      '{"n":500}',
    ]);
    await until('the job line', () => /^job \S+/m.test(run.out()));
    const job = /^job (\S+)/m.exec(run.out())?.[1] as string;
    await until('the run to drain tasks', () => ran(run) >= 250);

    const signalled = performance.now();
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    // Its handlers finish at once: it stops without waiting out its grace period (5 s).
    // (Usually well under a second; a loaded CI machine has taken 2.2 s.)
    expect(performance.now() - signalled, run.err()).toBeLessThan(WORKER_GRACE_MS);
    expect(run.err()).toContain(`SIGINT: stopped; job ${job} is RUNNING`);
    expect(run.err()).toContain(`weft run spread.yaml --handlers handlers.mjs --id ${job}`);
    const busy = numbers(run.out(), 'busy');
    expect(busy.length).toBeGreaterThan(0);
    expect(
      Math.max(...busy),
      `wall gaps ${Math.max(...numbers(run.out(), 'tick'))} ms`,
    ).toBeLessThan(500);
  });
});
