/**
 * Opening one SQLite connection: checks the path (its directory must exist; only the
 * default database's directory is created), sets the
 * pragmas (WAL, foreign keys, synchronous), and turns every way a path can be wrong into
 * a {@link StoreError} that names the path and says what to do. Also the busy handling:
 * the connection never sleeps inside SQLite (busy_timeout 0 after open); callers retry
 * with {@link retryWhileBusy}, which waits on the event loop so other work — another
 * store in the same process holding the lock, say — can finish meanwhile.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { StoreError } from '../../core/errors.js';

/** A better-sqlite3 connection. */
export type Db = Database.Database;

/** How long a caller waits for another writer before giving up, in ms. */
export const BUSY_TIMEOUT_MS = 5000;

const HINT =
  'use sqlite:<path to a file in an existing directory>, sqlite::memory:, or no store URL for ./.weft/weft.db';

/** Opens and configures a connection to `path` (`:memory:` for a private in-memory store). */
export function openConnection(
  path: string,
  memory: boolean,
  synchronous: 'full' | 'normal' = 'full',
  createDirectory = false,
): Db {
  const file = memory ? ':memory:' : resolve(path);
  if (!memory) prepareLocation(path, file, createDirectory);
  let db: Db | undefined;
  try {
    db = new Database(file);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!memory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') {
        throw new StoreError(`could not switch ${file} to WAL mode (it reports ${String(mode)})`);
      }
    }
    db.pragma('foreign_keys = ON');
    db.pragma(`synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    // From here on, busy waits happen on the event loop (retryWhileBusy), not inside SQLite.
    db.pragma('busy_timeout = 0');
    return db;
  } catch (cause) {
    db?.close();
    if (cause instanceof StoreError) throw cause;
    throw describeOpenError(path, file, cause);
  }
}

function prepareLocation(path: string, file: string, createDirectory: boolean): void {
  const dir = dirname(file);
  if (createDirectory) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (cause) {
      throw new StoreError(
        `cannot create the directory ${dir} for the SQLite database ${path}: ${messageOf(cause)}; create it yourself or choose another path (${HINT})`,
        { cause, code: 'STORE_PATH' },
      );
    }
  } else {
    let dirIsDirectory = false;
    try {
      dirIsDirectory = statSync(dir).isDirectory();
    } catch {
      // Absent.
    }
    if (!dirIsDirectory) {
      // A typo in a path must not silently start a new, empty database elsewhere.
      throw new StoreError(
        `the directory ${dir} of the SQLite database ${path} does not exist; create it first (mkdir -p ${dir}) or fix the path (${HINT})`,
        { code: 'STORE_PATH' },
      );
    }
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(file).isDirectory();
  } catch {
    // Absent: SQLite creates it.
  }
  if (isDirectory) {
    throw new StoreError(
      `the SQLite database path ${path} is a directory; name a file inside it, e.g. sqlite:${path.replace(/\/$/, '')}/weft.db`,
      { code: 'STORE_PATH' },
    );
  }
}

function describeOpenError(path: string, file: string, cause: unknown): StoreError {
  const code = sqliteCode(cause);
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new StoreError(
      `${path} is not a SQLite database (or is damaged); point the store URL at a weft database or at a new file (${HINT})`,
      { cause, code: 'STORE_PATH' },
    );
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || code === 'SQLITE_PERM') {
    return new StoreError(
      `cannot open the SQLite database ${file}: ${messageOf(cause)}; check that the file and its directory are writable (${HINT})`,
      { cause, code: 'STORE_PATH' },
    );
  }
  return new StoreError(`cannot open the SQLite database ${file}: ${messageOf(cause)}`, {
    cause,
  });
}

/** The SQLite error code (`SQLITE_BUSY`…) of an error, if it has one. */
export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/** True when SQLite said another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  const code = sqliteCode(error) ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/**
 * Runs `attempt` (synchronously first), and while it fails with SQLITE_BUSY waits a few
 * ms on the event loop and tries again, up to {@link BUSY_TIMEOUT_MS}; then a StoreError.
 */
export async function retryWhileBusy<T>(attempt: () => T, what: string): Promise<T> {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  let wait = 1;
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (Date.now() >= deadline) {
        throw new StoreError(
          `the SQLite database stayed locked by another connection for ${BUSY_TIMEOUT_MS} ms while trying to ${what}`,
          { cause: error, code: 'STORE_BUSY' },
        );
      }
    }
    await new Promise((done) => setTimeout(done, wait + Math.random() * wait));
    wait = Math.min(wait * 2, 25);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
