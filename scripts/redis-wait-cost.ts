/**
 * `npx tsx scripts/redis-wait-cost.ts [writes] [rounds]`: what `?wait=1` costs a commit
 * (docs/store-redis.md, section 5). Starts a throwaway `redis-server` (appendonly yes,
 * appendfsync always, as the tests run it) and a replica of it, then times `writes`
 * (default 500) sequential direct store writes (`updateJob`, each its own commit) on
 * `redis://…` and on `redis://…?wait=1`, alternating, `rounds` (default 3) times; prints
 * each round and the medians.
 */
import { Redis } from 'ioredis';
import { openStore } from '../src/store/open-store.js';
import { startRedisServer, stopRedisServer } from '../test/support/redis-server.js';

const writes = Number(process.argv[2] ?? 500);
const rounds = Number(process.argv[3] ?? 3);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function untilReplica(port: number): Promise<void> {
  const redis = new Redis({ port, host: '127.0.0.1' });
  try {
    for (;;) {
      if (/state=online/.test(await redis.info('replication'))) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    redis.disconnect();
  }
}

/** Milliseconds for `writes` sequential commits on a fresh store at `url`. */
async function time(url: string, job: string): Promise<number> {
  const store = await openStore(url, { onWarning: (m) => console.error(m) });
  try {
    await store.createJob({
      id: job,
      workflow: 'w',
      version: 1,
      model: 'graph',
      input: null,
      state: 'RUNNING',
    });
    const began = performance.now();
    for (let n = 0; n < writes; n++) await store.updateJob(job, { context: { n } });
    return performance.now() - began;
  } finally {
    await store.close();
  }
}

const master = await startRedisServer({ args: ['--repl-diskless-sync-delay', '0'] });
const replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
try {
  await untilReplica(master.port);
  const base = `redis://127.0.0.1:${master.port}/0`;
  const plain: number[] = [];
  const waited: number[] = [];
  for (let round = 0; round < rounds; round++) {
    plain.push(await time(base, `plain-${round}`));
    waited.push(await time(`${base}?wait=1`, `waited-${round}`));
    console.log(
      `round ${round + 1}: ${writes} commits ${plain.at(-1)?.toFixed(0)} ms without wait, ${waited.at(-1)?.toFixed(0)} ms with ?wait=1`,
    );
  }
  const p = median(plain) / writes;
  const w = median(waited) / writes;
  console.log(
    `median per commit: ${p.toFixed(3)} ms without wait, ${w.toFixed(3)} ms with ?wait=1 (+${(w - p).toFixed(3)} ms, ${((w / p - 1) * 100).toFixed(0)}%)`,
  );
} finally {
  stopRedisServer(replica);
  stopRedisServer(master);
}
process.exit(0);
