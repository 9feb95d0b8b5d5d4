/**
 * Conformance: journals — entries appended per job and read back in order (all, or
 * after a seq, or several jobs' at once), values as written, and an entry written twice refused with nothing of
 * its batch written.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../../src/core/errors.js';
import type { JournalEntry } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let close: () => Promise<void>;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => close());

const entry = (job: string, seq: number, data: JournalEntry['data']): JournalEntry => ({
  job,
  seq,
  kind: 'status',
  key: String(seq - 1),
  data,
});

describe('journal', () => {
  it('reads back each job’s entries in order, all or after a seq', async () => {
    await store.appendJournal([entry('a', 1, { n: 1 }), entry('b', 1, 'b1'), entry('a', 2, [2])]);
    await store.transaction(async (tx) => {
      await tx.appendJournal([entry('a', 3, null), entry('a', 4, { z: 1, a: 2 })]);
    });
    const all = await store.readJournal('a');
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(all[0]).toEqual({ job: 'a', seq: 1, kind: 'status', key: '0', data: { n: 1 } });
    // Values come back as written, key order included.
    expect(JSON.stringify(all[3]?.data)).toBe('{"z":1,"a":2}');
    expect((await store.readJournal('a', 2)).map((e) => e.data)).toEqual([null, { z: 1, a: 2 }]);
    expect(await store.readJournal('b')).toEqual([
      { job: 'b', seq: 1, kind: 'status', key: '0', data: 'b1' },
    ]);
    expect(await store.readJournal('nobody')).toEqual([]);
    await store.appendJournal([]);
  });

  it('reads several jobs’ entries at once, by job and seq, inside a transaction too', async () => {
    await store.appendJournal([
      entry('j-b', 1, 'b1'),
      entry('j-a', 1, { n: 1 }),
      entry('j-c', 1, 'c1'),
      entry('j-a', 2, [2]),
    ]);
    const read = await store.transaction(async (tx) => {
      await tx.appendJournal([entry('j-b', 2, null)]);
      // Its own writes are seen; the same job twice is read once; an unknown one adds none.
      return tx.journalsOfJobs(['j-b', 'j-a', 'nobody', 'j-b']);
    });
    expect(read.map((e) => [e.job, e.seq, e.data])).toEqual([
      ['j-a', 1, { n: 1 }],
      ['j-a', 2, [2]],
      ['j-b', 1, 'b1'],
      ['j-b', 2, null],
    ]);
    expect(read[0]).toEqual({ job: 'j-a', seq: 1, kind: 'status', key: '0', data: { n: 1 } });
    expect(await store.journalsOfJobs([])).toEqual([]);
    expect(await store.journalsOfJobs(['nobody'])).toEqual([]);
  });

  it('refuses an entry written twice, writing nothing of its batch', async () => {
    await store.appendJournal([entry('a', 1, 'first')]);
    const error = await store
      .appendJournal([entry('a', 2, 'second'), entry('a', 1, 'again')])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((await store.readJournal('a')).map((e) => e.data)).toEqual(['first']);
  });

  it('rolls back with its transaction', async () => {
    await store
      .transaction(async (tx) => {
        await tx.appendJournal([entry('a', 1, 'kept?')]);
        throw new Error('no');
      })
      .catch(() => {});
    expect(await store.readJournal('a')).toEqual([]);
  });
});
