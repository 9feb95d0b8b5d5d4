/**
 * Where the time goes in scenarios 1 and 4: `tsx bench/profile.ts [--store sqlite|postgres|redis|redis-cluster]
 * [--cpu] [--jobs N] [--model graph|code-first] [--postgres-url URL] [--redis-url URL]`. One worker runs in this process (so everything is counted and
 * profiled in one place), over a store wrapper that counts every contract call. For each
 * case it prints commits, transactions, store calls and PostgreSQL round trips per step,
 * split between the worker and the driver's Client, the calls by method, and with
 * `--cpu` the self time by area and by function.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { Client } from '../src/client/client.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { Worker } from '../src/worker/worker.js';
import { benchWork, CODE_FIRST_STEPS, codeFirstWorkflow } from './bench-handlers.js';
import { runJobs } from './drive.js';
import { type BenchPostgres, startBenchPostgres } from './postgres-server.js';
import { countingStore, StoreCounts } from './profile/counting-store.js';
import { type CpuSummary, profileCpu } from './profile/cpu-profile.js';
import { redisNodes, startBenchRedisCluster } from './redis-cluster.js';
import { type BenchRedis, startBenchRedis } from './redis-server.js';
import { perSecond } from './stats.js';
import { TUNED_SETTINGS } from './targets.js';
import { linearWorkflow } from './workflows.js';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    cpu: { type: 'boolean', default: false },
    jobs: { type: 'string', default: '200' },
    'save-profile': { type: 'string' },
    'postgres-url': { type: 'string' },
    'redis-url': { type: 'string' },
    model: { type: 'string', default: 'graph' },
  },
});
const STORES = ['sqlite', 'postgres', 'redis', 'redis-cluster'];
if (!STORES.includes(values.store)) {
  throw new Error(`--store is one of ${STORES.join(', ')}, not ${values.store}`);
}
if (values.model !== 'graph' && values.model !== 'code-first') {
  throw new Error(`--model is graph or code-first, not ${values.model}`);
}
const CODE_FIRST = values.model === 'code-first';

interface Case {
  name: string;
  steps: number;
  concurrency: number;
  jobs: number;
}

const jobs = Number(values.jobs);
const CASES: Case[] = [
  { name: 'scenario 1, c=1', steps: 10, concurrency: 1, jobs },
  { name: 'scenario 1, c=50', steps: 10, concurrency: 50, jobs: jobs * 5 },
  { name: 'scenario 4, one-step, c=1', steps: 1, concurrency: 1, jobs },
];

function perStep(n: number, steps: number): string {
  return (n / steps).toFixed(2);
}

function printCounts(label: string, counts: StoreCounts, steps: number): void {
  console.log(
    `  ${label}: ${perStep(counts.durableCommits, steps)} durable commits/step; ${perStep(counts.transactions, steps)} transactions + ${perStep(counts.directWrites, steps)} direct writes + ${perStep(counts.directReads, steps)} direct reads; ${perStep(counts.totalCalls, steps)} store calls${values.store === 'postgres' ? `, ~${perStep(counts.roundTrips, steps)} PostgreSQL round trips` : ''} per step`,
  );
  const calls = [...counts.calls].sort((a, b) => b[1] - a[1]);
  console.log(`    ${calls.map(([name, n]) => `${name} ${perStep(n, steps)}`).join(', ')}`);
}

function printCpu(summary: CpuSummary): void {
  console.log(`  CPU self time ${summary.totalMs.toFixed(0)} ms, by area:`);
  for (const a of summary.byArea)
    console.log(`    ${(a.share * 100).toFixed(1).padStart(5)}%  ${a.name}`);
  console.log('  top functions:');
  for (const f of summary.byFunction.slice(0, 15)) {
    console.log(`    ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name}`);
  }
}

/** Runs `fn` on a plain connection to the Redis server, or to every master of a cluster. */
async function onRedisNodes<T>(url: string, fn: (redis: Redis) => Promise<T>): Promise<T[]> {
  const nodes = redisNodes(url);
  const urls = nodes.length > 0 ? nodes.map((n) => `redis://${n.host}:${n.port}`) : [url];
  return Promise.all(
    urls.map(async (one) => {
      const redis = new Redis(one);
      try {
        return await fn(redis);
      } finally {
        redis.disconnect();
      }
    }),
  );
}

/** Zeroes the servers' command statistics (`CONFIG RESETSTAT`). */
async function resetRedisStats(url: string): Promise<void> {
  await onRedisNodes(url, (r) => r.config('RESETSTAT'));
}

/** Bytes the servers received and sent since the last reset, summed over the masters. */
async function redisNetBytes(url: string): Promise<{ input: number; output: number }> {
  const stats = await onRedisNodes(url, (r) => r.info('stats'));
  const sum = (field: string) =>
    stats.reduce((total, info) => {
      const found = new RegExp(`^${field}:(\\d+)`, 'm').exec(info);
      return total + Number(found?.[1] ?? 0);
    }, 0);
  return { input: sum('total_net_input_bytes'), output: sum('total_net_output_bytes') };
}

/** Calls per Redis command since the last reset, summed over the masters, most first. */
async function redisCommandCalls(url: string): Promise<[string, number][]> {
  const calls = new Map<string, number>();
  for (const info of await onRedisNodes(url, (r) => r.info('commandstats'))) {
    for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      const name = m[1] ?? '?';
      calls.set(name, (calls.get(name) ?? 0) + Number(m[2]));
    }
  }
  return [...calls].sort((a, b) => b[1] - a[1]);
}

async function openTarget(
  dir: string,
  postgres: BenchPostgres | undefined,
  redis: BenchRedis | undefined,
  label: string,
): Promise<Store> {
  if (redis) return openStore(await redis.createDatabase(label));
  if (postgres) {
    const url = new URL(await postgres.createDatabase(label));
    url.searchParams.set('pool', String(TUNED_SETTINGS.workerPool + TUNED_SETTINGS.driverPool));
    return openStore(url.toString());
  }
  return openStore(`sqlite:${join(dir, `${label}.db`)}`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-profile-'));
  const postgres =
    values.store === 'postgres' ? await startBenchPostgres(values['postgres-url']) : undefined;
  const redis =
    values.store === 'redis'
      ? await startBenchRedis(values['redis-url'])
      : values.store === 'redis-cluster'
        ? await startBenchRedisCluster()
        : undefined;
  try {
    for (const [index, c] of CASES.entries()) {
      const store = await openTarget(dir, postgres, redis, `profile_${index}`);
      const workerCounts = new StoreCounts();
      const clientCounts = new StoreCounts();
      const client = new Client(countingStore(store, clientCounts));
      const worker = new Worker({
        store: countingStore(store, workerCounts),
        ...benchWork,
        concurrency: TUNED_SETTINGS.concurrency,
        batchSize: TUNED_SETTINGS.batchSize,
      });
      await worker.start();
      try {
        // Code-first runs its 10-step workflow (scenario 2) for the 10-step cases; its
        // one-step case has no code-first twin and is skipped.
        if (CODE_FIRST && c.steps !== CODE_FIRST_STEPS) continue;
        let workflow = codeFirstWorkflow.name;
        if (!CODE_FIRST) {
          const wf = linearWorkflow(c.steps);
          await client.deploy(wf);
          workflow = wf.workflow;
        }
        await runJobs(client, workflow, { concurrency: 5, jobs: 20 });
        workerCounts.reset();
        clientCounts.reset();
        if (redis) await resetRedisStats(redis.url);
        const measure = () =>
          runJobs(client, workflow, { concurrency: c.concurrency, jobs: c.jobs });
        const {
          result: run,
          summary,
          profile,
        } = values.cpu
          ? await profileCpu(measure)
          : { result: await measure(), summary: undefined, profile: undefined };
        const steps = run.finished * c.steps;
        if (redis) {
          // What Redis ran: the commands the store sent and those its scripts ran (commandstats
          // counts both), with the CONFIG RESETSTAT before them.
          const calls = await redisCommandCalls(redis.url);
          const total = calls.reduce((sum, [, n]) => sum + n, 0);
          const net = await redisNetBytes(redis.url);
          console.log(
            `  Redis: ${perStep(net.input, steps)} bytes sent to Redis and ${perStep(net.output, steps)} received per step`,
          );
          console.log(
            `  Redis: ${perStep(total, steps)} commands run per step (every master, scripts' own calls included): ${calls
              .slice(0, 12)
              .map(([name, n]) => `${name} ${perStep(n, steps)}`)
              .join(', ')}`,
          );
        }
        console.log(
          `${c.name} on ${store.dialect}: ${run.finished} jobs, ${perSecond(steps, run.elapsedMs).toFixed(0)} steps/s, ${(run.elapsedMs / run.finished).toFixed(2)} ms/job`,
        );
        printCounts('worker', workerCounts, steps);
        printCounts('client', clientCounts, steps);
        if (summary) printCpu(summary);
        if (profile && values['save-profile']) {
          const file = `${values['save-profile']}-${index}.cpuprofile`;
          writeFileSync(file, JSON.stringify(profile));
          console.log(`  profile written to ${file}`);
        }
      } finally {
        await worker.stop();
        await store.close();
      }
    }
  } finally {
    await postgres?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
