// The DBOS Transact side of the weft benchmark (bench/dbos.ts copies this file into a
// scratch folder outside the package, where @dbos-inc/dbos-sdk is installed, and runs it
// with `node workload.mjs <json>`). The workload is scenario 1's: a workflow of `steps`
// sequential no-op steps; lanes (1, then 50) each start a workflow, wait for its result
// and start the next. DBOS runs on its defaults, in this one process, as a user's first
// program does. Each phase prints one `WEFT_BENCH_RESULT <json>` line on stdout.
import { DBOS } from '@dbos-inc/dbos-sdk';

const { url, steps, warmup, phases } = JSON.parse(process.argv[2]);

DBOS.setConfig({ name: 'weft-bench-dbos', systemDatabaseUrl: url, runAdminServer: false });

async function noop() {
  return null;
}

async function linear() {
  for (let i = 1; i <= steps; i++) await DBOS.runStep(noop, { name: `s${i}` });
  return steps;
}

const workflow = DBOS.registerWorkflow(linear, { name: 'weft-bench-linear' });

async function runJobs(concurrency, jobs, budgetMs) {
  const start = performance.now();
  const deadline = budgetMs === undefined ? Number.POSITIVE_INFINITY : start + budgetMs;
  const latenciesMs = [];
  let started = 0;
  const lane = async () => {
    while (started < jobs && performance.now() < deadline) {
      started++;
      const t0 = performance.now();
      const handle = await DBOS.startWorkflow(workflow)();
      const result = await handle.getResult();
      if (result !== steps) throw new Error(`workflow returned ${JSON.stringify(result)}`);
      latenciesMs.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  return { finished: latenciesMs.length, elapsedMs: performance.now() - start, latenciesMs };
}

await DBOS.launch();
try {
  await runJobs(5, warmup);
  for (const { concurrency, jobs, budgetMs } of phases) {
    const run = await runJobs(concurrency, jobs, budgetMs);
    process.stdout.write(`WEFT_BENCH_RESULT ${JSON.stringify({ concurrency, ...run })}\n`);
  }
} finally {
  await DBOS.shutdown();
}
