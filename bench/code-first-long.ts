/**
 * One long code-first instance: `tsx bench/code-first-long.ts [--tasks 1000] [--store
 * sqlite|postgres]`. A worker in this process runs ONE workflow whose `handle()` executes
 * `--tasks` no-op tasks in sequence, twice, each on a fresh database. The first run is
 * timed: wall time from start to result and the CPU time this process spent meanwhile.
 * The second runs over a store wrapper that counts every contract call (which costs time
 * of its own): durable commits per task and the bytes handed to the store per task —
 * overall, and around task 10 and the last task, so a cost that grows with the history
 * shows as a last figure far above the first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../src/durable/index.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { Worker } from '../src/worker/worker.js';
import { startBenchPostgres } from './postgres-server.js';
import { countingStore, StoreCounts } from './profile/counting-store.js';

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '1000' },
    store: { type: 'string', default: 'sqlite' },
    'postgres-url': { type: 'string' },
    /** Only the timed run (to profile it). */
    'timed-only': { type: 'boolean', default: false },
  },
});

const TASKS = Number(values.tasks);
const counts = new StoreCounts(true);
/** `bytesWritten` when task i started, by i. */
const bytesAtTask: number[] = [];

const noop = defineTask('long-noop', async (i: number) => {
  bytesAtTask[i] = counts.bytesWritten;
  return null;
});

const long = defineWorkflow(
  'bench-code-first-long',
  class LongCodeFirst extends Workflow {
    async handle(n: number) {
      for (let i = 0; i < n; i++) await this.execute(noop, i);
      return n;
    }
  },
);

/** Bytes written between the start of task `i` and the start of task `i + 1`. */
function bytesOfTask(i: number): number {
  const from = bytesAtTask[i];
  const to = bytesAtTask[i + 1];
  return from === undefined || to === undefined ? Number.NaN : to - from;
}

/** The mean of {@link bytesOfTask} over `count` tasks from `from`. */
function meanBytes(from: number, count: number): number {
  let sum = 0;
  for (let i = from; i < from + count; i++) sum += bytesOfTask(i);
  return sum / count;
}

/** Runs the workflow once on a fresh database; returns the wall and CPU time in ms. */
async function runOnce(
  open: (label: string) => Promise<Store>,
  label: string,
  counted: boolean,
): Promise<{ wallMs: number; cpuMs: number; dialect: string }> {
  const store = await open(label);
  try {
    const worker = new Worker({
      store: counted ? countingStore(store, counts) : store,
      workflows: [long],
      tasks: [noop],
    });
    await worker.start();
    try {
      const client = new Client(store);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const job = await client.start(long.name, [TASKS]);
      const done = await client.result(job.id, { wait: true, timeoutMs: 600_000 });
      const wallMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      if (done.state !== 'SUCCESS') throw new Error(`the job ended ${done.state}`);
      return { wallMs, cpuMs: (used.user + used.system) / 1000, dialect: store.dialect };
    } finally {
      await worker.stop();
    }
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-long-'));
  const postgres =
    values.store === 'postgres' ? await startBenchPostgres(values['postgres-url']) : undefined;
  const open = async (label: string) =>
    postgres
      ? openStore(await postgres.createDatabase(label))
      : openStore(`sqlite:${join(dir, `${label}.db`)}`);
  try {
    const timed = await runOnce(open, 'timed', false);
    console.log(
      `${TASKS} sequential code-first tasks on ${timed.dialect}: ${(timed.wallMs / 1000).toFixed(2)} s wall (${(timed.wallMs / TASKS).toFixed(2)} ms/task), ${(timed.cpuMs / 1000).toFixed(2)} s CPU`,
    );
    if (values['timed-only']) return;
    await runOnce(open, 'counted', true);
    const window = Math.min(10, Math.max(1, Math.floor(TASKS / 10)));
    const early = Math.min(10, TASKS - 1 - window);
    const late = TASKS - 1 - window;
    console.log(
      `  ${(counts.durableCommits / TASKS).toFixed(2)} durable commits/task, ${(counts.transactions / TASKS).toFixed(2)} transactions/task`,
    );
    console.log(
      `  bytes written: ${(counts.bytesWritten / TASKS).toFixed(0)}/task overall; around task ${early}: ${meanBytes(early, window).toFixed(0)}/task, around task ${late}: ${meanBytes(late, window).toFixed(0)}/task`,
    );
    const calls = [...counts.calls].sort((a, b) => b[1] - a[1]);
    console.log(
      `  calls/task: ${calls.map(([name, n]) => `${name} ${(n / TASKS).toFixed(2)}`).join(', ')}`,
    );
  } finally {
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
