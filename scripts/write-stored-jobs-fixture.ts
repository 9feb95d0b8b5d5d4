/**
 * `tsx scripts/write-stored-jobs-fixture.ts [sqlite] [postgres] [--overwrite]`: writes the
 * stored-jobs fixture (test/fixtures/stored-jobs/, see its README): a SQLite database and
 * a PostgreSQL dump, made by this weft, holding jobs stopped mid-flight and finished jobs.
 *
 * For each backend it opens a new database on a simulated clock, deploys the graph
 * workflows of test/fixtures/stored-jobs/workflows.ts, and runs a real Worker with every
 * handler but the held ones (HELD_TASKS), so jobs stop where those tasks wait. The cycle
 * job goes first and runs one iteration and a rest; the clock then moves to FIXTURE_NOW
 * and every other job starts. Once nothing moves, the worker stops, and a second worker
 * process claims the two tasks left for it and is killed with SIGKILL while it holds
 * them. The SQLite file is vacuumed and copied; the PostgreSQL database is dumped with
 * pg_dump (plain SQL, INSERT statements).
 *
 * The fixture is the OLD format: a weft whose schema is newer than
 * FIXTURE_SCHEMA_VERSION refuses to write it, and existing files are kept unless
 * `--overwrite` is given.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Client } from '../src/client/client.js';
import { SimulatedClock } from '../src/core/clock.js';
import { isFinalFlowState } from '../src/core/states.js';
import type { Instance } from '../src/durable/instance.js';
import { openStore } from '../src/store/open-store.js';
import type { Json } from '../src/store/records.js';
import type { Store } from '../src/store/store.js';
import { Worker } from '../src/worker/worker.js';
import {
  CYCLE_REST_MS,
  DEAD_LEASE_MS,
  DURABLE_TASKS,
  DURABLE_WORKFLOWS,
  EARLY_SIGNAL,
  FIXTURE_JOBS,
  FIXTURE_NOW,
  FIXTURE_SCHEMA_VERSION,
  FIXTURE_START,
  GRAPH_WORKFLOWS,
  graphHandlers,
  HELD_TASKS,
} from '../test/fixtures/stored-jobs/workflows.js';
import { waitFor } from '../test/support/wait-for.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'test', 'fixtures', 'stored-jobs');
const PG_BIN = process.env.WEFT_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** The jobs that end while the script runs, and how. */
const FINISHED: Record<string, string> = {
  'graph-done': 'SUCCESS',
  'graph-failed': 'FAILURE',
  'durable-done': 'SUCCESS',
  'durable-failed': 'FAILURE',
};

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

const instanceOf = async (store: Store, id: string) =>
  (await store.getJob(id))?.context as unknown as Instance | undefined;

/** True once every job has stopped where the fixture wants it. */
async function stopped(store: Store): Promise<boolean> {
  // Only the held task messages are left: no engine step, action or decision pending.
  if ((await store.countMessages()) !== HELD_TASKS.size) return false;
  for (const task of HELD_TASKS) {
    if ((await store.countMessages(`task:${task}`)) !== 1) return false;
  }
  for (const [id, state] of Object.entries(FINISHED)) {
    if ((await store.getJob(id))?.state !== state) return false;
  }
  if ((await store.getActivity('graph-hook', 'approve'))?.status !== 'RUNNING') return false;
  for (const id of ['durable-approval', 'durable-nap']) {
    if ((await instanceOf(store, id))?.waits.length !== 1) return false;
  }
  return true;
}

/** Starts the worker that dies and kills it once it holds both of its tasks. */
async function killWorkerHoldingTasks(url: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'scripts', 'stored-jobs-dying-worker.ts'),
      url,
      String(FIXTURE_NOW),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines: string[] = [];
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  const exited = new Promise<string>((resolve) => {
    child.on('exit', (code, signal) => resolve(String(signal ?? code)));
  });
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  await waitFor(
    () => {
      if (ended) throw new Error('the dying worker ended before it held its tasks');
      return ['fx-charge', 'fx-settle'].every((t) =>
        lines.some((l) => l.startsWith(`started ${t} `)),
      );
    },
    'the dying worker to start fx-charge and fx-settle',
    { timeoutMs: 60_000, intervalMs: 10 },
  );
  child.kill('SIGKILL');
  const how = await exited;
  if (how !== 'SIGKILL') throw new Error(`the dying worker ended with ${how}, not SIGKILL`);
  log(`  killed the worker holding: ${lines.filter((l) => l.startsWith('started')).join('; ')}`);
}

/** Writes the fixture's jobs into the (new, empty) database at `url`. */
async function writeJobs(url: string): Promise<void> {
  const clock = new SimulatedClock(FIXTURE_START);
  const store = await openStore(url, { clock });
  try {
    if (store.migration.to !== FIXTURE_SCHEMA_VERSION || store.migration.from !== 0) {
      throw new Error(
        `this weft made schema version ${store.migration.to} (from ${store.migration.from}); the fixture is version ${FIXTURE_SCHEMA_VERSION} in a new database. It is the old format: never regenerate it with a newer weft.`,
      );
    }
    const client = new Client(store, { clock });
    for (const wf of GRAPH_WORKFLOWS) await client.deploy(wf);
    const handlers = Object.fromEntries(
      Object.entries(graphHandlers).filter(([name]) => !HELD_TASKS.has(name)),
    );
    const worker = new Worker({
      store,
      clock,
      idleMs: 20,
      handlers,
      workflows: DURABLE_WORKFLOWS,
      tasks: DURABLE_TASKS.filter((t) => !HELD_TASKS.has(t.name)),
      logger: { error() {}, warn() {}, info() {} },
    });
    await worker.start();
    try {
      const [cycle, ...others] = FIXTURE_JOBS;
      if (!cycle) throw new Error('no jobs');
      // The cycle job: one iteration, a rest, the next iteration, and the next rest.
      await client.start(cycle.workflow, cycle.input as Json, { id: cycle.id });
      await waitFor(
        async () => (await store.nextTimerAt()) === FIXTURE_START + CYCLE_REST_MS,
        'the cycle job to rest',
      );
      await clock.set(FIXTURE_NOW);
      await waitFor(
        async () => (await store.nextTimerAt()) === FIXTURE_NOW + CYCLE_REST_MS,
        'the cycle job to rest again',
      );
      for (const job of others) {
        await client.start(job.workflow, job.input as Json, { id: job.id });
      }
      // graph-early: the signal comes while its hook is not waiting yet.
      await waitFor(
        async () => (await store.countMessages('task:fx-stamp')) === 1,
        'graph-early to reach fx-stamp',
      );
      const outcome = await client.signal('graph-early', EARLY_SIGNAL.name, EARLY_SIGNAL.data);
      if (outcome.status !== 'buffered') throw new Error('the early signal was not buffered');
      await waitFor(() => stopped(store), 'every job to stop where it should', {
        timeoutMs: 60_000,
        intervalMs: 20,
      });
    } finally {
      await worker.stop();
    }
    await killWorkerHoldingTasks(url);
    for (const task of ['fx-charge', 'fx-settle']) {
      const [message] = await store.peek(`task:${task}`);
      if (message?.leaseUntil !== FIXTURE_NOW + DEAD_LEASE_MS || message.deliveries !== 1) {
        throw new Error(`task:${task} is not held as expected: ${JSON.stringify(message)}`);
      }
    }
    for (const job of await store.listJobs({ limit: 1000 })) {
      log(`  ${job.id.padEnd(22)} ${job.workflow.padEnd(12)} ${job.state}`);
    }
    const running = (await store.listJobs({ limit: 1000 })).filter(
      (j) => !isFinalFlowState(j.state),
    );
    if (running.length !== FIXTURE_JOBS.length - Object.keys(FINISHED).length + 1) {
      // + 1: graph-parent's child job.
      throw new Error(`expected every unfinished fixture job running, got ${running.length}`);
    }
  } finally {
    await store.close();
  }
}

function keep(path: string, overwrite: boolean): void {
  if (existsSync(path) && !overwrite) {
    throw new Error(
      `${path} exists: the fixture is the old format and is never regenerated (--overwrite to replace it anyway)`,
    );
  }
}

async function writeSqlite(overwrite: boolean): Promise<void> {
  const target = join(OUT, 'sqlite.db');
  keep(target, overwrite);
  const dir = mkdtempSync(join(tmpdir(), 'weft-fixture-'));
  try {
    const path = join(dir, 'weft.db');
    log('sqlite:');
    await writeJobs(`sqlite:${path}`);
    const db = new Database(path);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.exec('VACUUM');
    db.close();
    copyFileSync(path, target);
    log(`  wrote ${target} (${statSync(target).size} bytes)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function writePostgres(overwrite: boolean): Promise<void> {
  const target = join(OUT, 'postgres.sql');
  keep(target, overwrite);
  const { freshPostgresDatabase, stopPostgres } = await import(
    '../test/support/postgres-server.js'
  );
  const location = await freshPostgresDatabase();
  try {
    log('postgres:');
    await writeJobs(location.url);
    const dump = spawnSync(
      join(PG_BIN, 'pg_dump'),
      ['--column-inserts', '--no-owner', '--no-privileges', '--file', target, location.url],
      { encoding: 'utf8' },
    );
    if (dump.status !== 0) throw new Error(`pg_dump failed: ${dump.stderr || dump.error}`);
    log(`  wrote ${target} (${statSync(target).size} bytes)`);
  } finally {
    await location.cleanup().catch(() => {});
    await stopPostgres();
  }
}

const args = process.argv.slice(2);
const overwrite = args.includes('--overwrite');
const backends = args.filter((a) => !a.startsWith('--'));
const all = backends.length === 0;
if (all || backends.includes('sqlite')) await writeSqlite(overwrite);
if (all || backends.includes('postgres')) await writePostgres(overwrite);
