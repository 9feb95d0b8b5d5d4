/**
 * Conformance: migrations — a fresh database opened by several processes and store
 * instances at once ends up migrated once; a schema newer than the code is refused with
 * SCHEMA_TOO_NEW and left as it was.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../../src/core/errors.js';
import { openStore } from '../../../src/store/open-store.js';
import { POSTGRES_MIGRATIONS } from '../../../src/store/postgres/migrations/index.js';
import { SQLITE_MIGRATIONS } from '../../../src/store/sqlite/migrations/index.js';
import { spawnTestChild } from '../../support/child-process.js';
import { rawSql } from '../../support/raw-sql.js';
import { backend, freshStoreUrl, type TestStoreLocation } from '../../support/store-under-test.js';

let location: TestStoreLocation;
beforeEach(async () => {
  location = await freshStoreUrl({ empty: true });
});
afterEach(async () => location?.cleanup());

// SQL schema migrations; the Redis store's layout version is tested in test/backend/redis/.
describe.skipIf(backend === 'redis')('migrations', () => {
  it('several processes and store instances opening one fresh database at once are safe', async () => {
    const children = Array.from({ length: 3 }, () =>
      spawnTestChild('open-child.ts', [location.url]),
    );
    const stores = await Promise.all(Array.from({ length: 4 }, () => openStore(location.url)));
    try {
      const codes = await Promise.all(children.map((c) => c.exited));
      expect(codes, children.map((c) => c.stderr() + c.lines.join('\n')).join('\n')).toEqual([
        0, 0, 0,
      ]);
      for (const [i, store] of stores.entries()) {
        await store.createJob({ id: `s${i}`, workflow: 'w', version: 1, model: 'graph', input: i });
      }
      expect(await stores[0]?.listJobs()).toHaveLength(7);
      const rows = await rawSql(location.url, 'SELECT version FROM weft_migrations');
      const versions = rows.map((r) => Number(r.version));
      expect(new Set(versions).size).toBe(versions.length);
      expect(versions).toContain(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  }, 120_000);

  it('a database with a newer schema fails with SCHEMA_TOO_NEW and is left as it was', async () => {
    const store = await openStore(location.url);
    await store.createJob({ id: 'kept', workflow: 'w', version: 1, model: 'graph', input: null });
    await store.close();
    await rawSql(
      location.url,
      "INSERT INTO weft_migrations (version, name) VALUES (999999, 'from-the-future')",
    );
    const error = await openStore(location.url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'SCHEMA_TOO_NEW' });
    expect(String((error as Error).message)).toMatch(/newer/);
    const rows = await rawSql(location.url, 'SELECT version FROM weft_migrations ORDER BY version');
    expect(rows.map((r) => Number(r.version))).toContain(999999);
    const jobs = await rawSql(location.url, "SELECT id FROM weft_jobs WHERE id = 'kept'");
    expect(jobs).toHaveLength(1);
  });

  it('reopening a migrated database applies nothing and keeps the data', async () => {
    const first = await openStore(location.url);
    // A new database: every migration applied, from version 0.
    expect(first.migration.from).toBe(0);
    expect(first.migration.applied[0]).toBe('initial');
    // Every migration, in order (their numbers may leave gaps).
    const all = backend === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
    expect(first.migration.applied).toEqual(all.map((m) => m.name));
    expect(first.migration.to).toBe(all.at(-1)?.version);
    await first.addCounter({ job: 'j', field: 'n' }, 5n);
    await first.close();
    const second = await openStore(location.url);
    try {
      expect(second.migration).toEqual({
        from: first.migration.to,
        to: first.migration.to,
        applied: [],
      });
      expect(await second.getCounter({ job: 'j', field: 'n' })).toBe(5n);
    } finally {
      await second.close();
    }
  });
});
