/**
 * better-sqlite3 against Node's built-in `node:sqlite` on the statements the SQLite store
 * runs most: `tsx bench/sqlite-drivers.ts [--steps 20000] [--synchronous full|normal]
 * [--rounds 5]`. Each driver gets a fresh file in WAL mode with the store's pragmas and
 * the two tables a task step touches (messages and activities, as migration 0001 makes
 * them), then runs `--steps` steps, each one `BEGIN IMMEDIATE … COMMIT` of prepared
 * statements: append a message, claim it (UPDATE … RETURNING), upsert the activity, read
 * the job's activities, delete the message — what a worker does for one task. It prints
 * the median of `--rounds` rounds per driver (the drivers take turns) (steps/s and µs per step), then reads
 * alone (a prepared SELECT of one row by key).
 *
 * `node:sqlite` is in Node 22.5 and newer (behind `--experimental-sqlite` before 22.13);
 * on Node 20 only better-sqlite3 runs. better-sqlite3's binary is built for one Node ABI:
 * to run both on a newer Node, point `WEFT_BENCH_BETTER_SQLITE3_BINDING` at a
 * `better_sqlite3.node` built for it (`nativeBinding`). docs/store.md has the numbers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    synchronous: { type: 'string', default: 'full' },
  },
});
const STEPS = Number(values.steps);
const ROUNDS = Number(values.rounds);
const SYNCHRONOUS = values.synchronous === 'normal' ? 'NORMAL' : 'FULL';

/** What the bench needs of a driver: one prepared statement's three ways to run. */
interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface Driver {
  name: string;
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}

const require = createRequire(import.meta.url);

function openBetterSqlite3(file: string): Driver {
  const Database = require('better-sqlite3') as typeof import('better-sqlite3');
  const binding = process.env.WEFT_BENCH_BETTER_SQLITE3_BINDING;
  const db = new Database(file, binding ? { nativeBinding: binding } : {});
  const version = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  return {
    name: `better-sqlite3 ${require('better-sqlite3/package.json').version} (SQLite ${version})`,
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare(sql) as unknown as Statement,
    close: () => db.close(),
  };
}

/** The part of `node:sqlite` used here (@types/node 20 does not declare the module). */
interface NodeSqlite {
  DatabaseSync: new (
    file: string,
  ) => { exec(sql: string): void; prepare(sql: string): Statement; close(): void };
}

function openNodeSqlite(file: string): Driver | undefined {
  let sqlite: NodeSqlite;
  try {
    sqlite = require('node:sqlite') as NodeSqlite;
  } catch {
    return undefined;
  }
  const db = new sqlite.DatabaseSync(file);
  const version = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  return {
    name: `node:sqlite (Node ${process.versions.node}, SQLite ${version})`,
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    close: () => db.close(),
  };
}

const SCHEMA = `
CREATE TABLE weft_activities (
  job TEXT NOT NULL, activity TEXT NOT NULL, dimension TEXT NOT NULL, status TEXT NOT NULL,
  input TEXT NOT NULL, output TEXT NOT NULL, error TEXT, attempt INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, PRIMARY KEY (job, activity, dimension));
CREATE TABLE weft_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL, job TEXT, payload TEXT NOT NULL,
  deliveries INTEGER NOT NULL DEFAULT 0, consumer TEXT, lease_until INTEGER,
  available_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX weft_messages_claim ON weft_messages (stream, available_at, id);`;

/** One round on a fresh file: steps/s of the task step, then reads/s of the point read. */
function round(
  open: (file: string) => Driver | undefined,
): { name: string; step: number; read: number } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-drivers-'));
  const db = open(join(dir, 'weft.db'));
  if (!db) return undefined;
  try {
    db.exec(
      `PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = ${SYNCHRONOUS};`,
    );
    db.exec(SCHEMA);
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const append =
      db.prepare(`INSERT INTO weft_messages (stream, job, payload, deliveries, available_at, created_at)
      VALUES (?, ?, ?, 0, ?, ?)`);
    const claim = db.prepare(`UPDATE weft_messages
      SET consumer = ?, deliveries = deliveries + 1, lease_until = ?, available_at = ?
      WHERE id IN (SELECT id FROM weft_messages WHERE stream = ? AND available_at <= ?
        ORDER BY available_at, id LIMIT ?)
      RETURNING id, stream, job, payload, deliveries`);
    const upsert = db.prepare(`INSERT INTO weft_activities
      (job, activity, dimension, status, input, output, error, attempt, updated_at)
      VALUES (?, ?, '', ?, ?, ?, NULL, ?, ?)
      ON CONFLICT (job, activity, dimension) DO UPDATE SET status = excluded.status,
        output = excluded.output, attempt = excluded.attempt, updated_at = excluded.updated_at`);
    const ofJob = db.prepare('SELECT * FROM weft_activities WHERE job = ? ORDER BY activity');
    const ack = db.prepare(
      'DELETE FROM weft_messages WHERE id = ? AND stream = ? AND consumer = ?',
    );
    const one = db.prepare(
      "SELECT * FROM weft_activities WHERE job = ? AND activity = ? AND dimension = ''",
    );
    const payload = JSON.stringify({ task: 'charge', input: { amount: 42, sku: 'tea' } });

    let t = performance.now();
    for (let i = 0; i < STEPS; i++) {
      const job = `job-${i % 500}`;
      const activity = `a${i % 7}`;
      const now = 1_000_000 + i;
      begin.run();
      append.run('task:charge', job, payload, now, now);
      const [claimed] = claim.all('w1', now + 30_000, now + 30_000, 'task:charge', now, 1) as {
        id: number;
      }[];
      upsert.run(job, activity, 'SUCCESS', payload, '{"id":"C-42"}', 1, now);
      ofJob.all(job);
      ack.run(claimed?.id, 'task:charge', 'w1');
      commit.run();
    }
    const step = STEPS / ((performance.now() - t) / 1000);

    t = performance.now();
    for (let i = 0; i < STEPS * 5; i++) one.get(`job-${i % 500}`, `a${i % 7}`);
    const read = (STEPS * 5) / ((performance.now() - t) / 1000);
    return { name: db.name, step, read };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

console.log(
  `${STEPS} task steps per round (append, claim, upsert, read job, ack in one transaction), synchronous=${SYNCHRONOUS}, median of ${ROUNDS} rounds`,
);
// Rounds alternate between the drivers, so a busy machine slows both alike.
const drivers = [openBetterSqlite3, openNodeSqlite];
const results = drivers.map(() => [] as { name: string; step: number; read: number }[]);
for (let r = 0; r < ROUNDS; r++) {
  drivers.forEach((open, d) => {
    const result = round(open);
    if (result) results[d]?.push(result);
  });
}
for (const ran of results) {
  if (!ran.length) {
    console.log(`node:sqlite: not in Node ${process.versions.node} (it needs 22.5 or newer)`);
    continue;
  }
  const step = median(ran.map((r) => r.step));
  const read = median(ran.map((r) => r.read));
  console.log(
    `${ran[0]?.name}: ${Math.round(step)} steps/s (${(1e6 / step).toFixed(1)} µs a step), ${Math.round(read)} point reads/s (${(1e6 / read).toFixed(2)} µs a read)`,
  );
}
