/**
 * What only the SQLite backend does: where its file goes, how a bad path is reported,
 * its pragmas, the in-memory store, the schema checks on open, and a notice poll that
 * never keeps a process alive.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/core/errors.js';
import { openStore } from '../../src/store/open-store.js';
import { spawnTestChild } from '../support/child-process.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-sqlite-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function openError(url: string | undefined): Promise<StoreError> {
  const error = await openStore(url).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
}

describe('the SQLite store', () => {
  it('opens the default ./.weft/weft.db, creating the directory', async () => {
    const before = process.cwd();
    process.chdir(dir);
    try {
      const store = await openStore();
      expect(store.dialect).toBe('sqlite');
      expect(store.url).toBe('sqlite:./.weft/weft.db');
      await store.close();
      expect(existsSync(join(dir, '.weft', 'weft.db'))).toBe(true);
    } finally {
      process.chdir(before);
    }
  });

  it('a path whose directory does not exist is a StoreError naming it, and creates nothing', async () => {
    const file = join(dir, 'typo', 'weft.db');
    const error = await openError(`sqlite:${file}`);
    expect(error.code).toBe('STORE_PATH');
    expect(error.message).toContain(join(dir, 'typo'));
    expect(error.message).toMatch(/does not exist/);
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });

  it('uses WAL with the chosen synchronous level', async () => {
    const file = join(dir, 'weft.db');
    const store = await openStore(`sqlite:${file}`, { synchronous: 'normal' });
    await store.createJob({ id: 'j', workflow: 'w', version: 1, model: 'graph', input: null });
    await store.close();
    const db = new Database(file);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all();
      expect(tables).toEqual(
        expect.arrayContaining(['weft_jobs', 'weft_messages', 'weft_migrations', 'weft_timers']),
      );
    } finally {
      db.close();
    }
  });

  it('a path that is a directory is a StoreError naming it', async () => {
    const error = await openError(`sqlite:${dir}`);
    expect(error.message).toContain(dir);
    expect(error.message).toMatch(/is a directory/);
  });

  it('a file that is not a SQLite database is a StoreError naming it', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'this is not a database, just some text that is long enough. '.repeat(50));
    const error = await openError(`sqlite:${file}`);
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/not a SQLite database/);
  });

  it("the default database's directory that cannot be created is a StoreError naming it", async () => {
    const before = process.cwd();
    writeFileSync(join(dir, '.weft'), 'x');
    process.chdir(dir);
    try {
      const error = await openError(undefined);
      expect(error.message).toContain(join(dir, '.weft'));
      expect(error.message).toMatch(/cannot create the directory/);
    } finally {
      process.chdir(before);
    }
  });

  it('sqlite::memory: is a private, working store', async () => {
    const a = await openStore('sqlite::memory:');
    const b = await openStore('sqlite::memory:');
    try {
      await a.append([{ stream: 's', payload: 1 }]);
      expect(await a.countMessages('s')).toBe(1);
      expect(await b.countMessages('s')).toBe(0);
      let woken = false;
      await a.subscribe({ kind: 'stream', name: 's' }, () => {
        woken = true;
      });
      await a.append([{ stream: 's', payload: 2 }]);
      expect(woken).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses an unmigrated database when migrations are off', async () => {
    const file = join(dir, 'empty.db');
    new Database(file).close();
    const error = await openStore(`sqlite:${file}`, { migrate: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SCHEMA_OUTDATED' });
    const store = await openStore(`sqlite:${file}`);
    await store.close();
    const again = await openStore(`sqlite:${file}`, { migrate: false });
    await again.close();
  });

  it('a process with a subscriber and no close still exits on its own', async () => {
    mkdirSync(join(dir, 'p'));
    const child = spawnTestChild('subscribe-child.ts', [`sqlite:${join(dir, 'p', 'weft.db')}`]);
    expect(await child.exited).toBe(0);
    expect(child.lines).toContain('SUBSCRIBED');
  }, 60_000);
});

describe('SQLite transactions', () => {
  const ref = { job: 'j', field: 'n' };

  it('run one at a time on a store, even when their callbacks await', async () => {
    const store = await openStore(`sqlite:${join(dir, 'serial.db')}`);
    try {
      await Promise.all(
        Array.from({ length: 20 }, () =>
          store.transaction(async (tx) => {
            const before = (await tx.getCounter(ref)) ?? 0n;
            await new Promise((done) => setTimeout(done, 1));
            await tx.addCounter(ref, before + 1n - ((await tx.getCounter(ref)) ?? 0n));
          }),
        ),
      );
      expect(await store.getCounter(ref)).toBe(20n);
    } finally {
      await store.close();
    }
  });

  it('direct calls inside a callback join it; a nested transaction is a savepoint', async () => {
    const store = await openStore('sqlite::memory:');
    try {
      await store.transaction(async (tx) => {
        await tx.addCounter(ref, 1n);
        await store.addCounter(ref, 10n);
        await store.transaction(async (inner) => inner.addCounter(ref, 100n));
        await store
          .transaction(async (inner) => {
            await inner.addCounter(ref, 1000n);
            throw new Error('only the savepoint rolls back');
          })
          .catch(() => undefined);
        expect(await tx.getCounter(ref)).toBe(111n);
      });
      expect(await store.getCounter(ref)).toBe(111n);
    } finally {
      await store.close();
    }
  });
});

describe('closing a SQLite store', () => {
  it('lets calls made before close finish and refuses calls made after', async () => {
    const store = await openStore(`sqlite:${join(dir, 'close.db')}`);
    const ref = { job: 'j', field: 'n' };
    const before = Array.from({ length: 5 }, () => store.addCounter(ref, 1n));
    const slow = store.transaction(async (tx) => {
      await new Promise((done) => setTimeout(done, 5));
      return tx.addCounter(ref, 1n);
    });
    const closing = store.close();
    const after = store.addCounter(ref, 1n).catch((e: unknown) => e);
    expect(await Promise.all(before)).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(await slow).toBe(6n);
    expect(await after).toMatchObject({ code: 'STORE_CLOSED' });
    await closing;
    await store.close();
  });
});
