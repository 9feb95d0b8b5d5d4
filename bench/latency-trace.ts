/**
 * Where the milliseconds of one job go: `tsx bench/latency-trace.ts [--store sqlite,postgres]
 * [--jobs 50] [--steps 10]`. One 10-step graph job at a time (start → s01 → … → s10, no-op
 * handlers), a Worker and a Client on the defaults in this process, as a user's first
 * program. Every transaction, statement, direct call and handler run is timed
 * (`profile/tracing-store.ts`) and laid out per hop (`profile/hop-budget.ts`): start →
 * first handler, one step (a handler's start → the next one's), last handler → result.
 * `--show-job` also prints the timeline of the median job; `--weft DIR` traces the weft
 * built in DIR (`DIR/dist/index.js`) instead of this checkout's sources.
 *
 * `--model code-first` runs the same job as a code-first workflow (`execute(noop)` in a loop).
 *
 * `--compare DIR` measures instead of tracing: the p50 of the same job on the weft built
 * in DIR (`DIR/dist/index.js`, e.g. an older commit's `npm run build`) and on this
 * checkout (its sources, or with `--after DIR2` the weft built in DIR2: `--after .` after
 * `npm run build` compares built code with built code), in `--rounds` interleaved rounds
 * on fresh databases, and the median of the per-round ratios. `--concurrency N` runs N jobs at once (steps/s then matters more than p50).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as WeftModule from '../src/index.js';
import { type BenchPostgres, startBenchPostgres } from './postgres-server.js';
import { type Hop, hopsOfJob, meanBudget } from './profile/hop-budget.js';
import { Trace, type TraceEvent, tracingStore } from './profile/tracing-store.js';
import { median, percentile } from './stats.js';

type Weft = typeof WeftModule;

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite,postgres' },
    jobs: { type: 'string', default: '50' },
    steps: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '20' },
    compare: { type: 'string' },
    after: { type: 'string' },
    weft: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '1' },
    model: { type: 'string', default: 'graph' },
    'show-job': { type: 'boolean', default: false },
    'postgres-url': { type: 'string' },
    'worker-options': { type: 'string' },
    'before-options': { type: 'string' },
  },
});

/**
 * Extra Worker options as JSON (`--worker-options '{"resultLanes":4}'`): for the weft
 * under test, and with `--compare`, `--before-options` for the weft built in DIR (default
 * none: the two differ by their code alone).
 */
function workerOptions(): Record<string, unknown> {
  const text = runningBefore ? values['before-options'] : values['worker-options'];
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
/** Set while `--compare` runs the weft built in DIR. */
let runningBefore = false;

const STEPS = Number(values.steps);
const JOBS = Number(values.jobs);
const WARMUP = Number(values.warmup);
const CONCURRENCY = Number(values.concurrency);
const stores = (values.store ?? '').split(',').filter(Boolean) as ('sqlite' | 'postgres')[];
if (values.model !== 'graph' && values.model !== 'code-first') {
  throw new Error(`--model is graph or code-first, not ${values.model}`);
}
const CODE_FIRST = values.model === 'code-first';

interface Env {
  dir: string;
  postgres: BenchPostgres | undefined;
  databases: number;
}

/** `start → s01 → … → sNN` as a document, compiled by the weft under test. */
function linearDocument(steps: number): Record<string, unknown> {
  const activities: Record<string, unknown> = { start: { kind: 'trigger' } };
  const transitions: Record<string, string[]> = {};
  let previous = 'start';
  for (let i = 1; i <= steps; i++) {
    const id = `s${String(i).padStart(2, '0')}`;
    activities[id] = { kind: 'task', task: 'noop' };
    transitions[previous] = [id];
    previous = id;
  }
  return { workflow: `trace-linear-${steps}`, activities, transitions };
}

/** The same job code-first: `handle()` awaits `execute(noop)` `steps` times, with the weft under test. */
function codeFirstJob(weft: Weft, steps: number, noop: () => Promise<null>) {
  const task = weft.defineTask('noop', noop);
  const workflow = weft.defineWorkflow(
    `trace-code-first-${steps}`,
    class extends weft.Workflow {
      async handle() {
        for (let i = 0; i < steps; i++) await this.execute(task);
        return null;
      }
    },
  );
  return { task, workflow };
}

async function openFresh(weft: Weft, kind: 'sqlite' | 'postgres', env: Env) {
  const label = `trace_${process.pid}_${env.databases++}`;
  if (kind === 'sqlite') return weft.openStore(`sqlite:${join(env.dir, `${label}.db`)}`);
  if (!env.postgres) throw new Error('no PostgreSQL server');
  return weft.openStore(await env.postgres.createDatabase(label));
}

interface RunResult {
  latenciesMs: number[];
  elapsedMs: number;
  /** Each traced job's events (tracing only). */
  jobs: TraceEvent[][];
}

/** Runs `jobs` jobs, `concurrency` at a time, on a fresh store; traced when `trace` is given. */
async function runJobs(
  weft: Weft,
  kind: 'sqlite' | 'postgres',
  env: Env,
  trace: Trace | undefined,
): Promise<RunResult> {
  const store = await openFresh(weft, kind, env);
  const wrap = (side: string) => (trace ? tracingStore(store, trace, side) : store);
  const noop = trace ? () => trace.mark('worker', 'handler', async () => null) : async () => null;
  const codeFirst = CODE_FIRST ? codeFirstJob(weft, STEPS, noop) : undefined;
  const worker = new weft.Worker({
    store: wrap('worker'),
    ...(codeFirst
      ? { workflows: [codeFirst.workflow], tasks: [codeFirst.task] }
      : { handlers: { noop } }),
    ...workerOptions(),
  });
  const client = new weft.Client(wrap('client'));
  await worker.start();
  try {
    const wf = weft.compileWorkflow(linearDocument(STEPS) as never);
    if (!codeFirst) await client.deploy(wf);
    const name = codeFirst ? codeFirst.workflow.name : wf.workflow;
    const input = codeFirst ? [] : {};
    const one = async () => {
      const job = await client.start(name, input);
      const done = await client.result(job.id, { wait: true, timeoutMs: 60_000 });
      if (done.state !== 'SUCCESS') throw new Error(`job ${job.id} ended ${done.state}`);
    };
    for (let i = 0; i < WARMUP; i++) await one();
    const latenciesMs: number[] = [];
    const jobs: TraceEvent[][] = [];
    let started = 0;
    const t0 = performance.now();
    const lane = async () => {
      while (started < JOBS) {
        started++;
        const s = performance.now();
        if (trace) {
          trace.on = true;
          const job = await trace.mark('client', 'Client.start', () => client.start(name, input));
          await trace.mark('client', 'Client.result', () =>
            client.result(job.id, { wait: true, timeoutMs: 60_000 }),
          );
          trace.on = false;
          jobs.push(trace.take());
        } else await one();
        latenciesMs.push(performance.now() - s);
      }
    };
    await Promise.all(Array.from({ length: trace ? 1 : CONCURRENCY }, lane));
    return { latenciesMs, elapsedMs: performance.now() - t0, jobs };
  } finally {
    await worker.stop();
    await store.close();
  }
}

function ms(value: number): string {
  return value.toFixed(2).padStart(7);
}

function printBudget(title: string, hops: Hop[]): void {
  const { ms: mean, parts } = meanBudget(hops);
  console.log(`  ${title}: ${ms(mean)} ms (mean of ${hops.length})`);
  for (const [label, value] of parts) {
    if (value >= 0.005) console.log(`    ${ms(value)}  ${label}`);
  }
}

function printTimeline(events: TraceEvent[]): void {
  const origin = Math.min(...events.map((e) => e.t0));
  const at = (t: number) => `+${(t - origin).toFixed(2)}`.padStart(8);
  for (const e of [...events].sort((a, b) => a.t0 - b.t0)) {
    if (e.kind === 'tx') {
      console.log(
        `    ${at(e.t0)} ${e.side} transaction: BEGIN ${ms(e.begun - e.t0)}, ${e.calls.map((c) => `${c.name} ${(c.t1 - c.t0).toFixed(2)}`).join(', ')}, COMMIT ${(e.t1 - e.fnEnd).toFixed(2)} → ${at(e.t1)}`,
      );
    } else console.log(`    ${at(e.t0)} ${e.side} ${e.name} ${(e.t1 - e.t0).toFixed(2)} ms`);
  }
}

async function trace(kind: 'sqlite' | 'postgres', env: Env, weft: Weft): Promise<void> {
  const run = await runJobs(weft, kind, env, new Trace());
  const hops = run.jobs.map(hopsOfJob);
  const totals = run.latenciesMs;
  console.log(
    `\n${kind}: ${totals.length} jobs of ${STEPS} steps one at a time: p50 ${median(totals).toFixed(2)} ms, p90 ${percentile(totals, 90).toFixed(2)} ms (traced: the wrapper adds a little)`,
  );
  printBudget(
    'start → first handler starts',
    hops.map((h) => h[0] as Hop),
  );
  printBudget(
    'one step: a handler starts → the next handler starts',
    hops.flatMap((h) => h.filter((hop) => hop.name === 'step')),
  );
  printBudget(
    'last handler starts → Client.result returns',
    hops.map((h) => h.at(-1) as Hop),
  );
  if (values['show-job']) {
    const order = totals.map((t, i) => [t, i] as const).sort((a, b) => a[0] - b[0]);
    const middle = order[Math.floor(order.length / 2)]?.[1] ?? 0;
    console.log(`  the median job (${totals[middle]?.toFixed(2)} ms):`);
    printTimeline(run.jobs[middle] ?? []);
  }
}

/** The weft built in `dir` (`dir/dist/index.js`). */
async function built(dir: string): Promise<Weft> {
  return (await import(pathToFileURL(join(resolve(dir), 'dist/index.js')).href)) as Weft;
}

async function compare(dir: string, env: Env, sources: Weft): Promise<void> {
  const other = await built(dir);
  const current = values.after ? await built(values.after) : sources;
  const rounds = Number(values.rounds);
  for (const kind of stores) {
    const p50s: Record<'before' | 'after', number[]> = { before: [], after: [] };
    const rates: Record<'before' | 'after', number[]> = { before: [], after: [] };
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so a drift in the machine's load hits both alike.
      const order = r % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const which of order) {
        runningBefore = which === 'before';
        const run = await runJobs(which === 'before' ? other : current, kind, env, undefined);
        runningBefore = false;
        p50s[which].push(median(run.latenciesMs));
        rates[which].push((run.latenciesMs.length * STEPS * 1000) / run.elapsedMs);
      }
    }
    const line = (which: 'before' | 'after') =>
      `  ${which.padEnd(6)} p50 ${median(p50s[which]).toFixed(2)} ms (rounds: ${p50s[which].map((v) => v.toFixed(1)).join(', ')}); ${median(rates[which]).toFixed(0)} steps/s`;
    console.log(
      `\n${kind}, ${JOBS} jobs of ${STEPS} steps at concurrency ${CONCURRENCY}, ${rounds} rounds:`,
    );
    console.log(`${line('before')}   [${dir}]`);
    console.log(`${line('after')}   [${values.after ?? 'this checkout'}]`);
    const ratios = p50s.after.map((a, i) => a / (p50s.before[i] as number));
    const rateRatios = rates.after.map((a, i) => a / (rates.before[i] as number));
    console.log(
      `  after/before: p50 ×${median(ratios).toFixed(2)} (median of per-round ratios), steps/s ×${median(rateRatios).toFixed(2)}`,
    );
  }
}

async function main(): Promise<void> {
  const current = values.weft
    ? await built(values.weft)
    : ((await import('../src/index.js')) as Weft);
  const env: Env = {
    dir: mkdtempSync(join(tmpdir(), 'weft-trace-')),
    postgres: stores.includes('postgres')
      ? await startBenchPostgres(values['postgres-url'] ?? process.env.WEFT_BENCH_POSTGRES_URL)
      : undefined,
    databases: 0,
  };
  try {
    if (values.compare) await compare(values.compare, env, current);
    else for (const kind of stores) await trace(kind, env, current);
  } finally {
    await env.postgres?.stop();
    rmSync(env.dir, { recursive: true, force: true });
  }
}

await main();
