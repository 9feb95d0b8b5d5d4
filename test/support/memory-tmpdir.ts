/**
 * The test run's temporary files in memory. On these machines the disk makes creating a
 * file cost about 0.6 ms (a tmpfs: 13 µs), and the suite creates a great many: PostgreSQL's
 * `CREATE DATABASE` copies about 300 files for every test's fresh database (105 ms of
 * server time on disk, 13 ms in memory), a per-file server copies its whole cluster, and
 * SQLite and Redis (`appendfsync always`) sync on every commit. The servers and files are
 * as real as before; only where their files live changes.
 *
 * Called from vitest.config.ts in vitest's own process, before any test process starts:
 * it points `TMPDIR` (which `os.tmpdir()` reads on every call, and every child inherits)
 * at a fresh folder of this run under `/dev/shm`, and deletes that folder when the
 * process exits 0 (a failed run keeps it, for the files its failures name).
 * `WEFT_TEST_TMPDIR` names another parent folder, or `off` keeps the system's temporary
 * folder; without a writable `/dev/shm` nothing changes. A folder left by a run that
 * failed or was killed is deleted by the next run.
 */
import {
  accessSync,
  chmodSync,
  constants,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'weft-test-';
/**
 * Set in the environment once chosen, so a second evaluation of the config keeps it (a
 * vitest started under one whose folder is gone makes its own).
 */
const MARK = 'WEFT_TEST_TMPDIR_RUN';

function writableFolder(path: string): boolean {
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether process `pid` is running (one of another user's counts: EPERM). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Deletes the folders of earlier runs whose process is gone. */
function sweep(parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(PREFIX)) continue;
    const folder = join(parent, name);
    let owner = 0;
    try {
      owner = Number(readFileSync(join(folder, '.owner'), 'utf8'));
    } catch {
      // no owner written (or not ours to read): judged by age alone
    }
    try {
      const old = Date.now() - statSync(folder).mtimeMs > 24 * 3600_000;
      if ((owner > 0 && !pidAlive(owner)) || (owner === 0 && old)) {
        rmSync(folder, { recursive: true, force: true });
      }
    } catch {
      // another run is sweeping it too
    }
  }
}

/**
 * Points `TMPDIR` at this run's folder in memory (see the file's comment); returns it,
 * or `undefined` when the system's temporary folder stays.
 */
export function useMemoryTmpdir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env[MARK];
  if (chosen && writableFolder(chosen)) return chosen;
  const parent = env.WEFT_TEST_TMPDIR ?? '/dev/shm';
  if (parent === 'off' || !writableFolder(parent)) return undefined;
  sweep(parent);
  const folder = mkdtempSync(join(parent, PREFIX));
  // Like /tmp: the PostgreSQL harness runs the server as the `postgres` user when the
  // tests run as root, and that user makes folders of its own in here.
  chmodSync(folder, 0o1777);
  writeFileSync(join(folder, '.owner'), String(process.pid));
  env.TMPDIR = folder;
  env[MARK] = folder;
  // Kept when the run failed: a failing test names files in it (the chaos run's handler
  // logs, say). The next run's sweep deletes it.
  process.on('exit', (code) => {
    if (code === 0) rmSync(folder, { recursive: true, force: true });
  });
  return folder;
}
