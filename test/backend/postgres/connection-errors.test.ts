/**
 * PostgreSQL only: what a user sees when the store URL is wrong — an unreachable host or
 * port, a database that does not exist — and that the password never shows.
 */
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../../src/core/errors.js';
import { openStore } from '../../../src/store/open-store.js';
import { freePort } from '../../support/free-port.js';
import { backend, freshStoreUrl, skipBackend } from '../../support/store-under-test.js';

describe.skipIf(backend !== 'postgres' || skipBackend)('PostgreSQL connection errors', () => {
  it('an unreachable server is STORE_UNREACHABLE naming host and port, never the password', async () => {
    const port = await freePort();
    const error = await openStore(`postgres://weft:s3cret-pw@127.0.0.1:${port}/weft`).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'STORE_UNREACHABLE' });
    const message = (error as Error).message;
    expect(message).toContain('127.0.0.1');
    expect(message).toContain(String(port));
    expect(message).toMatch(/running/);
    expect(message).not.toContain('s3cret-pw');
  });

  it('a missing database is STORE_NO_DATABASE naming it', async () => {
    const location = await freshStoreUrl();
    try {
      const url = new URL(location.url);
      url.pathname = '/weft_no_such_database';
      url.password = 'hidden-pw';
      const error = await openStore(url.toString()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ code: 'STORE_NO_DATABASE' });
      expect((error as Error).message).toContain('weft_no_such_database');
      expect((error as Error).message).not.toContain('hidden-pw');
    } finally {
      await location.cleanup();
    }
  });

  it('the store reports its URL without the password', async () => {
    const location = await freshStoreUrl();
    const url = new URL(location.url);
    url.password = 'hidden-pw';
    const store = await openStore(url.toString());
    try {
      expect(store.dialect).toBe('postgres');
      expect(store.url).not.toContain('hidden-pw');
      expect(store.url).toContain(url.hostname);
    } finally {
      await store.close();
      await location.cleanup();
    }
  });
});
