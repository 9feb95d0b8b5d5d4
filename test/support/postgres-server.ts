/**
 * The PostgreSQL test harness. A throwaway server is a copy of a template cluster made
 * once per machine and PostgreSQL version, started on a free loopback port with its own
 * socket directory, and stopped when the process that started it exits. Under vitest the
 * `postgres` project starts one for the whole run ({@link startSharedPostgres}, from
 * `postgres-global.ts`) and hands it to the test files as `WEFT_TEST_DATABASE_URL`; a
 * process run without it (a script, or a file run by another config) lazily starts its
 * own. Each {@link freshPostgresDatabase} call creates a new database on the server, so
 * test files sharing it never see each other's data.
 *
 * Tests trade durability for speed here: the throwaway server runs with `fsync=off`
 * (its data directory is deleted afterwards anyway). `synchronous_commit` stays on, and
 * benchmarks never use this harness's settings.
 *
 * - `WEFT_TEST_DATABASE_URL=postgres://…` uses that server instead of starting one.
 * - `WEFT_TEST_POSTGRES=required` (CI) turns "could not start" into a thrown error;
 *   otherwise {@link postgresAvailable} answers false and the postgres tests skip.
 * - `WEFT_PG_BIN` names the directory with `initdb` and `postgres` (default: the newest
 *   of /usr/lib/postgresql/<version>/bin, or the ones on PATH).
 *
 * PostgreSQL refuses to run as root: when the tests run as root, the server runs as the
 * `postgres` user, in directories that user owns.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MIGRATION_LOCK, migrate } from '../../src/store/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations/index.js';
import { freePort } from './free-port.js';
import { pidAlive } from './memory-tmpdir.js';
import type { TestStoreLocation } from './store-under-test.js';

/** Who runs the server: the current user, or `postgres` when we are root. */
interface RunAs {
  uid?: number;
  gid?: number;
  user: string;
}

/** A server this process started (or the external one named by WEFT_TEST_DATABASE_URL). */
interface Server {
  /** URL of the server's `postgres` database, without a database name change. */
  adminUrl: string;
  admin: pg.Client;
  child?: ChildProcess;
  baseDir?: string;
}

let starting: Promise<Server> | undefined;
let running: Server | undefined;

function required(): boolean {
  return process.env.WEFT_TEST_POSTGRES === 'required';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function findBinDir(): string {
  const fromEnv = process.env.WEFT_PG_BIN;
  if (fromEnv) {
    if (!existsSync(join(fromEnv, 'initdb')) || !existsSync(join(fromEnv, 'postgres'))) {
      throw new Error(`WEFT_PG_BIN=${fromEnv} holds no initdb and postgres binaries`);
    }
    return fromEnv;
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v postgres'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  if (which.status === 0 && found) return found.replace(/\/postgres$/, '');
  throw new Error(
    'PostgreSQL binaries not found: install postgresql-15 (apt-get install postgresql-15) or set WEFT_PG_BIN to the directory holding initdb and postgres',
  );
}

function runAs(): RunAs {
  if (process.getuid?.() !== 0) return { user: process.env.USER ?? 'postgres' };
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error(
      'running as root, and PostgreSQL refuses to run as root, but there is no `postgres` user to run it as (install postgresql-15, which creates it)',
    );
  }
  return { uid: Number(uid), gid: Number(gid), user: 'postgres' };
}

function ownedDir(prefix: string, who: RunAs): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (who.uid !== undefined && who.gid !== undefined) chownSync(dir, who.uid, who.gid);
  return dir;
}

function run(bin: string, args: string[], who: RunAs): void {
  const result = spawnSync(bin, args, {
    uid: who.uid,
    gid: who.gid,
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
  });
  if (result.status !== 0) {
    const why = result.error?.message ?? `${result.stderr}${result.stdout}`.trim();
    throw new Error(`${bin} ${args.join(' ')} failed: ${why}`);
  }
}

/** The initdb'd template cluster, made once per machine, user and version, under a lock. */
async function templateDir(bin: string, who: RunAs): Promise<string> {
  const versionText = spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout;
  const version = /\d+(\.\d+)*/.exec(versionText ?? '')?.[0] ?? 'unknown';
  const template = join(tmpdir(), `weft-pg-template-v1-${version}-${who.user}`);
  const lock = `${template}.lock`;
  for (let waited = 0; !existsSync(template); waited += 100) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx');
    } catch {
      // Someone else is making it; take the lock over when its maker died or hung.
      try {
        const holder = Number(readFileSync(lock, 'utf8') || '0');
        const age = Date.now() - statSync(lock).mtimeMs;
        if ((holder > 0 && !pidAlive(holder)) || age > 120_000) rmSync(lock, { force: true });
      } catch {
        // the lock went away meanwhile: try again
      }
      if (waited > 180_000) throw new Error(`timed out waiting for ${lock}`);
      await sleep(100);
      continue;
    }
    try {
      writeFileSync(fd, String(process.pid));
      if (existsSync(template)) break;
      const work = ownedDir('weft-pg-initdb-', who);
      try {
        const data = join(work, 'data');
        const args = ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C'];
        run(join(bin, 'initdb'), [...args, '--no-sync'], who);
        renameSync(data, template);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
  return template;
}

/** `sh -c` script: $1 owner pid, $2 base dir, then the server command line. */
const WATCHDOG = `
owner=$1; base=$2; shift 2
"$@" & server=$!
stop() { kill -QUIT $server 2>/dev/null; wait $server; rm -rf "$base"; exit 0; }
trap stop TERM INT HUP
while kill -0 $server 2>/dev/null && { kill -0 $owner 2>/dev/null || [ -d /proc/$owner ]; }; do
  sleep 0.5 & wait $!
done
# The owner went away: stop and clean up. A server that died by itself leaves its log.
if kill -0 $server 2>/dev/null; then stop; fi
`;

function logTail(baseDir: string): string {
  try {
    return readFileSync(join(baseDir, 'server.log'), 'utf8')
      .trim()
      .split('\n')
      .slice(-15)
      .join('\n');
  } catch {
    return '';
  }
}

async function startOwnServer(maxConnections = 300): Promise<Server> {
  const bin = findBinDir();
  const who = runAs();
  const template = await templateDir(bin, who);
  let lastError = '';
  // Another process may take the free port before the server binds it: then try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const baseDir = ownedDir('weft-pg-', who);
    const data = join(baseDir, 'data');
    run('cp', ['-a', template, data], who);
    const port = await freePort();
    const log = openSync(join(baseDir, 'server.log'), 'a');
    if (who.uid !== undefined && who.gid !== undefined) {
      chownSync(join(baseDir, 'server.log'), who.uid, who.gid);
    }
    const args = [
      ...['-D', data, '-k', baseDir, '-p', String(port), '-h', '127.0.0.1'],
      ...['-c', 'fsync=off', '-c', `max_connections=${maxConnections}`],
      ...['-c', 'shared_buffers=32MB'],
    ];
    // A small shell watchdog owns the server: it stops it (immediate shutdown) and deletes
    // its files when this process goes away, even when it is killed without an exit hook.
    const watchdog = ['-c', WATCHDOG, 'weft-pg', String(process.pid), baseDir];
    const child = spawn('sh', [...watchdog, join(bin, 'postgres'), ...args], {
      uid: who.uid,
      gid: who.gid,
      cwd: tmpdir(),
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    child.unref();
    let exited = false;
    child.on('exit', () => {
      exited = true;
    });
    running = { adminUrl: '', admin: new pg.Client(), child, baseDir };
    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    for (let waited = 0; waited < 30_000 && !exited; waited += 50) {
      const admin = new pg.Client({ connectionString: adminUrl });
      try {
        await admin.connect();
        admin.on('error', () => {});
        running = { adminUrl, admin, child, baseDir };
        return running;
      } catch {
        await admin.end().catch(() => {});
        await sleep(50);
      }
    }
    lastError = logTail(baseDir);
    stopSync();
    if (!/could not bind|Address already in use/i.test(lastError)) break;
  }
  throw new Error(`PostgreSQL did not start: ${lastError || 'no log output'}`);
}

async function connectExternal(url: string): Promise<Server> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  admin.on('error', () => {});
  running = { adminUrl: url, admin };
  return running;
}

/** Starts (once per process) the server this test file uses, or connects to the external one. */
function server(): Promise<Server> {
  if (!starting) {
    const external = process.env.WEFT_TEST_DATABASE_URL;
    starting = external ? connectExternal(external) : startOwnServer();
    process.once('exit', stopSync);
  }
  return starting;
}

/**
 * Starts the one server a whole vitest run shares (from the `postgres` project's global
 * set-up, in vitest's own process) and returns its admin URL, which the set-up hands to
 * the test files as `WEFT_TEST_DATABASE_URL`. Each test file still gets fresh databases
 * of its own on it; starting a server per file cost a copy of the template cluster and a
 * start and stop every time. The watchdog stops it when vitest's process ends.
 */
export async function startSharedPostgres(): Promise<string> {
  // Four test files at a time, each with workers, pools and CLI processes of its own.
  return (await startOwnServer(1000)).adminUrl;
}

/**
 * True when a PostgreSQL server is (or can be) running for this test file. With
 * `WEFT_TEST_POSTGRES=required` a server that cannot start throws, naming why.
 */
export async function postgresAvailable(): Promise<boolean> {
  try {
    await server();
    return true;
  } catch (error) {
    if (required()) throw error;
    return false;
  }
}

/** The session-level advisory lock under which one process builds the migrated template. */
const TEMPLATE_LOCK = MIGRATION_LOCK + 1n;
let template: Promise<string> | undefined;

/**
 * The name of a database on the server that holds weft's current schema and nothing else,
 * built once per server (and per set of migrations: the name carries their hash, so an
 * external server kept between runs never hands out an old schema). A fresh database is a
 * copy of it: migrating each new database cost about 110 ms of server time and as much
 * again to drop its tables, several hundred times a run. It is built under a different
 * name and renamed when done, so a process killed half-way leaves no half-migrated
 * template behind, and test files that ask at once wait on the lock.
 */
function migratedTemplate(server: Server): Promise<string> {
  template ??= (async () => {
    const hash = createHash('sha256');
    for (const m of POSTGRES_MIGRATIONS) hash.update(`${m.version}\0${m.name}\0${m.sql}\0`);
    const name = `weft_template_${hash.digest('hex').slice(0, 12)}`;
    const { admin, adminUrl } = server;
    await admin.query(`SELECT pg_advisory_lock(${TEMPLATE_LOCK})`);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount === 0) {
        const building = `${name}_${randomBytes(4).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${building} TEMPLATE template0`);
        const url = new URL(adminUrl);
        url.pathname = `/${building}`;
        const client = new pg.Client({ connectionString: url.toString() });
        await client.connect();
        try {
          await migrate(client, 'the test template');
        } finally {
          await client.end();
        }
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
    } finally {
      await admin.query(`SELECT pg_advisory_unlock(${TEMPLATE_LOCK})`);
    }
    return name;
  })();
  return template;
}

/**
 * A fresh database of its own on the PostgreSQL server this test file uses, with weft's
 * current schema already in it (a copy of {@link migratedTemplate}); `empty: true` gives
 * one with no tables at all, for tests of migrating an older or a new database.
 */
export async function freshPostgresDatabase(
  options: { empty?: boolean } = {},
): Promise<TestStoreLocation> {
  const running = await server();
  const { admin, adminUrl } = running;
  const source = options.empty ? 'template0' : await migratedTemplate(running);
  const name = `weft_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source} STRATEGY FILE_COPY`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async cleanup() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** The server's admin URL (its `postgres` database), for tests that need a second connection. */
export async function postgresAdminUrl(): Promise<string> {
  return (await server()).adminUrl;
}

function waitForExit(pid: number, ms: number): void {
  const tick = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < ms; waited += 10) {
    let state = '';
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] ?? '';
    } catch {
      if (!pidAlive(pid)) return;
    }
    if (state === 'Z' || state === 'X') return;
    Atomics.wait(tick, 0, 0, 10);
  }
}

/** Stops this process's server at once and deletes its files (also run on process exit). */
export function stopSync(): void {
  const current = running;
  running = undefined;
  starting = undefined;
  if (!current) return;
  current.admin.end().catch(() => {});
  const pid = current.child?.pid;
  if (pid !== undefined && current.child?.exitCode === null) {
    try {
      // The watchdog shuts the server down at once: the data directory is thrown away next.
      process.kill(pid, 'SIGTERM');
      waitForExit(pid, 10_000);
    } catch {
      // already gone
    }
  }
  if (current.baseDir) rmSync(current.baseDir, { recursive: true, force: true });
}

/** Stops this process's server (tests may call it from `afterAll`; the exit hook does it otherwise). */
export async function stopPostgres(): Promise<void> {
  const current = running;
  if (current) await current.admin.end().catch(() => {});
  stopSync();
}

/** A PostgreSQL server of its own that a test stops and starts again (same data, same port). */
export interface RestartablePostgres {
  /** URL of a database `weft` on it. */
  url: string;
  /** Fast shutdown (SIGINT to the postmaster): clients see their connections end. */
  stop(): Promise<void>;
  /** Starts it again on the same data directory and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its files. */
  dispose(): Promise<void>;
}

/**
 * Starts a server of its own (not the one {@link freshPostgresDatabase} shares with the
 * file's other tests), for tests that take the server away under a running worker.
 */
export async function restartablePostgres(): Promise<RestartablePostgres> {
  const bin = findBinDir();
  const who = runAs();
  const template = await templateDir(bin, who);
  const baseDir = ownedDir('weft-pg-restart-', who);
  const data = join(baseDir, 'data');
  run('cp', ['-a', template, data], who);
  const port = await freePort();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;
  const postmasterPid = () =>
    Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const start = async () => {
    const log = openSync(join(baseDir, 'server.log'), 'a');
    if (who.uid !== undefined && who.gid !== undefined) {
      chownSync(join(baseDir, 'server.log'), who.uid, who.gid);
    }
    const args = [
      ...['-D', data, '-k', baseDir, '-p', String(port), '-h', '127.0.0.1'],
      ...['-c', 'fsync=off', '-c', 'max_connections=100', '-c', 'shared_buffers=16MB'],
    ];
    child = spawn(
      'sh',
      ['-c', WATCHDOG, 'weft-pg', String(process.pid), baseDir, join(bin, 'postgres'), ...args],
      { uid: who.uid, gid: who.gid, cwd: tmpdir(), stdio: ['ignore', log, log] },
    );
    closeSync(log);
    child.unref();
    for (let waited = 0; waited < 30_000; waited += 50) {
      const admin = new pg.Client({ connectionString: adminUrl });
      try {
        await admin.connect();
        await admin.end();
        return;
      } catch {
        await admin.end().catch(() => {});
        await sleep(50);
      }
    }
    throw new Error(`PostgreSQL did not start again: ${logTail(baseDir)}`);
  };
  const stop = async () => {
    const pid = postmasterPid();
    process.kill(pid, 'SIGINT');
    waitForExit(pid, 30_000);
    // The watchdog sees its server gone and exits, leaving the data directory.
    await new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
  };
  await start();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE weft');
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = '/weft';
  return {
    url: url.toString(),
    start,
    stop,
    async dispose() {
      if (child && child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise<void>((resolve) => child?.once('exit', () => resolve()));
      }
      rmSync(baseDir, { recursive: true, force: true });
    },
  };
}
