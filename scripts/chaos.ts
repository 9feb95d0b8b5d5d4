/**
 * `npm run chaos` (`tsx scripts/chaos.ts [options]`): N graph jobs across K worker
 * processes while a random worker is SIGKILLed every few hundred milliseconds and
 * replaced; prints what happened and what the checks found, and exits 1 on any
 * violation. See docs/chaos.md.
 *
 *   --store <url>        the store every process shares (default: a new SQLite file in a temp dir)
 *   --postgres           a throwaway PostgreSQL (or WEFT_TEST_DATABASE_URL's server), a fresh database
 *   --pg-restarts        a throwaway PostgreSQL of its own, restarted every 5–10 s while jobs run
 *   --jobs <n>           top-level jobs (default 1000; each also runs one child job)
 *   --workers <k>        worker processes alive at once (default 4)
 *   --kill-every <ms>    mean delay between kills (default 300; 0 = never kill)
 *   --max-kills <n>      stop killing after n kills and let the jobs finish (default: never)
 *   --seed <n>           seed of the kill schedule
 *   --deadline <s>       give up after this long (default 600)
 *   --concurrency <n>    handlers per worker (default 8)
 *   --lease-ms <ms>      message lease (default 5000)
 *   --batch-size <n>     engine messages per transaction (default 32)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { renderChaosReport } from '../test/support/chaos-report.js';
import { runChaos, type StoreRestarts } from '../test/support/chaos-run.js';
import {
  DEFAULT_CHAOS_WORKER_SETTINGS,
  DEFAULT_LEASE_MS,
} from '../test/support/chaos-worker-settings.js';

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return n;
}

const program = new Command('chaos')
  .description(
    'Kill worker processes at random while jobs run, then check nothing was lost or run twice.',
  )
  .option('--store <url>', 'store URL shared by every process')
  .option('--postgres', 'run on a throwaway PostgreSQL database')
  .option('--pg-restarts', 'a throwaway PostgreSQL, restarted every 5–10 s while jobs run')
  .option('--jobs <n>', 'top-level jobs', integer, 1000)
  .option('--workers <k>', 'worker processes alive at once', integer, 4)
  .option('--kill-every <ms>', 'mean delay between kills (0 = never)', integer, 300)
  .option('--max-kills <n>', 'stop killing after n kills', integer)
  .option('--seed <n>', 'seed of the kill schedule', integer)
  .option('--deadline <s>', 'seconds before giving up', integer, 600)
  .option('--concurrency <n>', 'handlers per worker', integer, 8)
  .option('--lease-ms <ms>', 'message lease', integer, DEFAULT_LEASE_MS)
  .option(
    '--batch-size <n>',
    'engine messages per transaction',
    integer,
    DEFAULT_CHAOS_WORKER_SETTINGS.batchSize,
  )
  .parse();

const opts = program.opts<{
  store?: string;
  postgres?: boolean;
  pgRestarts?: boolean;
  jobs: number;
  workers: number;
  killEvery: number;
  maxKills?: number;
  seed?: number;
  deadline: number;
  concurrency: number;
  leaseMs: number;
  batchSize: number;
}>();

let url = opts.store;
let cleanup = async () => {};
let storeRestarts: StoreRestarts | undefined;
if (!url && opts.pgRestarts) {
  const pg = await import('../test/support/postgres-server.js');
  process.env.WEFT_TEST_POSTGRES = 'required';
  const server = await pg.restartablePostgres();
  url = server.url;
  storeRestarts = {
    minMs: 5000,
    maxMs: 10_000,
    restart: async () => {
      await server.stop();
      await server.start();
    },
  };
  cleanup = () => server.dispose();
} else if (!url && opts.postgres) {
  const pg = await import('../test/support/postgres-server.js');
  process.env.WEFT_TEST_POSTGRES = 'required';
  const location = await pg.freshPostgresDatabase();
  url = location.url;
  cleanup = async () => {
    await location.cleanup();
    await pg.stopPostgres();
  };
} else if (!url) {
  const dir = mkdtempSync(join(tmpdir(), 'weft-chaos-db-'));
  url = `sqlite:${join(dir, 'weft.db')}`;
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
}

let failed = true;
try {
  const result = await runChaos({
    url,
    jobs: opts.jobs,
    workers: opts.workers,
    killEveryMs: opts.killEvery,
    deadlineMs: opts.deadline * 1000,
    worker: { concurrency: opts.concurrency, leaseMs: opts.leaseMs, batchSize: opts.batchSize },
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.maxKills !== undefined ? { maxKills: opts.maxKills } : {}),
    ...(storeRestarts ? { storeRestarts } : {}),
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  console.log(renderChaosReport(result));
  failed = result.violations.length > 0;
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
