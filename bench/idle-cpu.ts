/**
 * What an idle worker costs on Redis and on a Redis Cluster with many partitions:
 * `tsx bench/idle-cpu.ts [--seconds 30] [--partitions 16,256]`. For one Redis server, then
 * a three-master cluster (bench/redis-cluster.ts) per partition count, a Worker with the
 * benchmark handlers starts on a fresh store, is left idle for `--seconds`, and the
 * script prints its process's CPU time (`process.cpuUsage`) and the commands Redis ran
 * (`INFO commandstats` of every master after a `CONFIG RESETSTAT`) per second of idling,
 * and the four it ran most.
 * It then starts one job and times how long the idle worker takes to finish it (woken by
 * the store's notice, not a poll).
 */
import { parseArgs } from 'node:util';
import { Client } from '../src/client/client.js';
import { openStore } from '../src/store/open-store.js';
import { Worker } from '../src/worker/worker.js';
import { benchWork } from './bench-handlers.js';
import { onEachRedisNode, startBenchRedisCluster } from './redis-cluster.js';
import { type BenchRedis, startBenchRedis } from './redis-server.js';
import { linearWorkflow } from './workflows.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    partitions: { type: 'string', default: '16,256' },
  },
});
const SECONDS = Number(values.seconds);
const PARTITIONS = values.partitions.split(',').map(Number);

/** The commands every master ran since the last `CONFIG RESETSTAT`, by name. */
async function commandsRun(url: string): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const info of await onEachRedisNode(url, (r) => r.info('commandstats'))) {
    for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      calls.set(m[1] as string, (calls.get(m[1] as string) ?? 0) + Number(m[2]));
    }
  }
  return calls;
}

async function measure(label: string, url: string): Promise<void> {
  const store = await openStore(url);
  const worker = new Worker({ store, ...benchWork });
  const client = new Client(store);
  const wf = linearWorkflow(1);
  await client.deploy(wf);
  await worker.start();
  try {
    // Let start-up settle (presence, first polls), then measure a quiet stretch.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await onEachRedisNode(url, (r) => r.config('RESETSTAT'));
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    const used = process.cpuUsage(cpu);
    const elapsed = (performance.now() - t0) / 1000;
    const calls = await commandsRun(url);
    const commands = [...calls.values()].reduce((a, b) => a + b, 0);
    const top = [...calls]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([name, n]) => `${name} ${(n / elapsed).toFixed(1)}`)
      .join(', ');
    const started = performance.now();
    const job = await client.start(wf.workflow, {});
    await client.result(job.id, { wait: true, timeoutMs: 60_000 });
    const wakeMs = performance.now() - started;
    console.log(
      `${label}: idle worker ${(((used.user + used.system) / 1000 / elapsed) * 1).toFixed(1)} ms CPU per s, ${(commands / elapsed).toFixed(1)} Redis commands per s; one job after ${SECONDS} s idle ended in ${wakeMs.toFixed(0)} ms\n  most run per s: ${top}`,
    );
  } finally {
    await worker.stop();
    await store.close();
  }
}

async function main(): Promise<void> {
  let server: BenchRedis | undefined;
  try {
    server = await startBenchRedis();
    await measure('Redis, one server', await server.createDatabase('idle'));
  } finally {
    await server?.stop();
  }
  for (const partitions of PARTITIONS) {
    let cluster: BenchRedis | undefined;
    try {
      cluster = await startBenchRedisCluster();
      const url = `${await cluster.createDatabase('idle')}?partitions=${partitions}`;
      await measure(`Redis Cluster, 3 masters, ${partitions} partitions`, url);
    } finally {
      await cluster?.stop();
    }
  }
}

await main();
