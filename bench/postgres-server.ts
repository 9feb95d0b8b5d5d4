/**
 * A PostgreSQL server for benchmarks, with the durable defaults: fsync on,
 * synchronous_commit on, full_page_writes on — nothing is turned off for speed (unlike
 * the test harness, which may). It runs from /usr/lib/postgresql/15/bin (or
 * `WEFT_BENCH_PG_BIN`) in a temporary data directory, on a free TCP port on 127.0.0.1,
 * as the `postgres` user when we are root (the server refuses to run as root). The only
 * setting changed is `max_connections`, so 4 worker processes, the driver and the
 * baseline's connections fit.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { BenchError } from './bench-error.js';
import { freePort } from './free-port.js';

/** Where the PostgreSQL 15 binaries are. */
export const PG_BIN = process.env.WEFT_BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A running server (ours or one the user named). */
export interface BenchPostgres {
  /** Superuser URL of the `postgres` database. */
  adminUrl: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** The settings that decide durability and speed, as the server reports them. */
  settings(): Promise<Record<string, string>>;
  /** Stops the server (when we started it) and removes its files. */
  stop(): Promise<void>;
}

/** Settings read back from the server for the report. */
const REPORTED_SETTINGS = [
  'server_version',
  'fsync',
  'synchronous_commit',
  'full_page_writes',
  'wal_sync_method',
  'wal_level',
  'shared_buffers',
  'max_connections',
  'commit_delay',
];

function postgresUid(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres']).stdout.toString().trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0) {
    throw new BenchError(
      'BENCH_PG',
      'running as root and there is no `postgres` user to run the server as',
    );
  }
  return { uid, gid };
}

function run(command: string, args: string[], asPostgres: boolean): string {
  const [cmd, argv] = asPostgres
    ? ['runuser', ['-u', 'postgres', '--', command, ...args]]
    : [command, args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new BenchError(
      'BENCH_PG',
      `${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout || result.error?.message}`,
    );
  }
  return result.stdout;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function serverOn(adminUrl: string, stop: () => Promise<void>): BenchPostgres {
  return {
    adminUrl,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
        throw new BenchError('BENCH_PG', `bad database name ${JSON.stringify(name)}`);
      }
      await query(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await query(adminUrl, `CREATE DATABASE ${name}`);
      return withDatabase(adminUrl, name);
    },
    async settings() {
      const rows = await query<{ name: string; setting: string; unit: string | null }>(
        adminUrl,
        `SELECT name, setting, unit FROM pg_settings WHERE name IN (${REPORTED_SETTINGS.map((s) => `'${s}'`).join(', ')})`,
      );
      const out: Record<string, string> = {};
      for (const name of REPORTED_SETTINGS) {
        const row = rows.find((r) => r.name === name);
        if (!row) continue;
        out[name] =
          name === 'shared_buffers' ? `${(Number(row.setting) * 8) / 1024} MB` : row.setting;
      }
      return out;
    },
    stop,
  };
}

/**
 * Uses the server at `url` (its databases are created and dropped there), or starts one.
 * A started server is stopped by `stop()` and, failing that, when this process exits.
 */
export async function startBenchPostgres(url?: string): Promise<BenchPostgres> {
  if (url) return serverOn(url, async () => {});
  for (const tool of ['initdb', 'pg_ctl']) {
    if (!existsSync(join(PG_BIN, tool))) {
      throw new BenchError(
        'BENCH_PG',
        `${join(PG_BIN, tool)} not found; set WEFT_BENCH_PG_BIN or pass --postgres-url`,
      );
    }
  }
  const owner = postgresUid();
  const root = mkdtempSync(join(tmpdir(), 'weft-bench-pg-'));
  const data = join(root, 'data');
  chmodSync(root, 0o755);
  if (owner) chownSync(root, owner.uid, owner.gid);
  const asPostgres = owner !== undefined;
  run(
    join(PG_BIN, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
    asPostgres,
  );
  const port = await freePort();
  const options = [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    `-c unix_socket_directories='${root}'`,
    '-c max_connections=300',
  ].join(' ');
  run(
    join(PG_BIN, 'pg_ctl'),
    ['-D', data, '-o', options, '-l', join(root, 'server.log'), '-w', '-t', '60', 'start'],
    asPostgres,
  );
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    try {
      run(join(PG_BIN, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], asPostgres);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
  process.once('exit', stopNow);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return serverOn(adminUrl, async () => {
    process.off('exit', stopNow);
    stopNow();
  });
}
