/**
 * `npx tsx bench/expressions.ts [--jobs N] [--concurrency C] [--store URL]`: what a task
 * input expression costs a 10-step linear graph workflow, on an embedded SQLite file
 * (or the store URL given) with one in-process worker: no expression, a cheap one
 * (evaluated in place) and one that is not provably cheap (evaluated in the expression
 * sandbox, outside the transaction, and its step planned twice). Prints jobs/s, steps/s
 * and this process's CPU time per step (the sandbox's own processes not counted: a
 * figure a busy machine disturbs less than wall time); not part of `npm run bench`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { Client } from '../src/client/client.js';
import { compileWorkflow } from '../src/engine/compiler.js';
import { sharedSandbox } from '../src/engine/expression-sandbox.js';
import { openStore } from '../src/store/open-store.js';
import { Worker } from '../src/worker/worker.js';
import { benchHandlers, NOOP_TASK } from './bench-handlers.js';
import { runJobs } from './drive.js';
import { perSecond } from './stats.js';

const STEPS = 10;

const VARIANTS: Record<string, ((previous: string) => string) | undefined> = {
  none: undefined,
  cheap: (previous) => `{ 'n': input.n, 'previous': ${previous}.output }`,
  sandboxed: (previous) => `$join([$string(input.n), $string(${previous}.output)], '-')`,
};

function workflow(name: string, input: ((previous: string) => string) | undefined) {
  const activities: Record<string, unknown> = { start: { kind: 'trigger' } };
  const transitions: Record<string, string[]> = {};
  let previous = 'start';
  for (let i = 1; i <= STEPS; i++) {
    const id = `s${String(i).padStart(2, '0')}`;
    activities[id] = { kind: 'task', task: NOOP_TASK, ...(input && { input: input(previous) }) };
    transitions[previous] = [id];
    previous = id;
  }
  return compileWorkflow({ workflow: `bench-expr-${name}`, activities, transitions });
}

async function main(): Promise<void> {
  const options = new Command()
    .option('--jobs <n>', 'jobs per variant', '200')
    .option('--concurrency <n>', 'jobs at once', '1')
    .option('--store <url>', 'store URL (default: a new SQLite file)')
    .parse()
    .opts<{ jobs: string; concurrency: string; store?: string }>();
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-expr-'));
  const store = await openStore(options.store ?? `sqlite:${join(dir, 'bench.db')}`);
  const client = new Client(store);
  const worker = new Worker({ store, handlers: benchHandlers, concurrency: 64, batchSize: 64 });
  await worker.start();
  try {
    // Every variant warms up first (JIT, caches, the sandbox's processes), then each is measured.
    const names = Object.keys(VARIANTS);
    for (const name of names) {
      const wf = workflow(name, VARIANTS[name]);
      await client.deploy(wf);
      await runJobs(client, wf.workflow, { concurrency: 5, jobs: 100, input: { n: 1 } });
    }
    for (const name of names) {
      const wf = workflow(name, VARIANTS[name]);
      const cpu = process.cpuUsage();
      const run = await runJobs(client, wf.workflow, {
        concurrency: Number(options.concurrency),
        jobs: Number(options.jobs),
        input: { n: 1 },
      });
      const used = process.cpuUsage(cpu);
      const cpuMsPerStep = (used.user + used.system) / 1000 / (run.finished * STEPS);
      const jobs = perSecond(run.finished, run.elapsedMs);
      process.stdout.write(
        `${name.padEnd(10)} c=${options.concurrency}: ${jobs.toFixed(1)} jobs/s, ${(jobs * STEPS).toFixed(0)} steps/s, ${cpuMsPerStep.toFixed(3)} ms CPU/step in this process (${run.finished} jobs in ${(run.elapsedMs / 1000).toFixed(1)} s)\n`,
      );
    }
  } finally {
    await worker.stop();
    await store.close();
    sharedSandbox().close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
