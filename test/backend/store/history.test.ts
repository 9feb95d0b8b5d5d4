/**
 * Conformance: job history — lines appended in one call (many of one job, interleaved
 * with another's) number 1, 2, 3… per job in order, and go on from there in later calls;
 * ids grow across the store; reads page by seq; a unit's lines commit with it or not at
 * all.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import { LeaseLostError } from '../../../src/core/errors.js';
import type { NewHistoryEntry, Store } from '../../../src/store/store.js';
import { commitUnit } from '../../../src/store/unit-of-work.js';
import { openTestStore } from '../../support/store-under-test.js';

let clock: SimulatedClock;
let store: Store;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  clock = new SimulatedClock(1_800_000_000_000);
  ({ store, close } = await openTestStore({ clock }));
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const line = (job: string, kind: string, more: Partial<NewHistoryEntry> = {}): NewHistoryEntry => ({
  job,
  kind,
  change: { kind },
  ...more,
});

describe('history', () => {
  it('numbers each job’s lines 1, 2, 3… in order, in one call and across calls', async () => {
    await store.transaction((tx) =>
      tx.appendHistory([
        line('a', 'start'),
        line('b', 'start'),
        line('a', 'enter'),
        line('a', 'task'),
        line('b', 'enter'),
      ]),
    );
    await store.appendHistory([line('b', 'end'), line('a', 'end')]);
    const a = await store.historyOfJob('a');
    const b = await store.historyOfJob('b');
    expect(a.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'start'],
      [2, 'enter'],
      [3, 'task'],
      [4, 'end'],
    ]);
    expect(b.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'start'],
      [2, 'enter'],
      [3, 'end'],
    ]);
    // Ids grow across the store, in the order the lines were appended.
    const ids = [...a, ...b].sort((x, y) => Number(x.id) - Number(y.id)).map((e) => e.kind);
    expect(ids).toEqual(['start', 'start', 'enter', 'task', 'enter', 'end', 'end']);
    expect(await store.historyOfJob('nobody')).toEqual([]);
  });

  it('keeps every field as written, with defaults for those left out', async () => {
    const change = { digits: { fox: [9, 8] }, collation: '968969000000000', note: 'ünï ✓' };
    await store.appendHistory([
      {
        job: 'j',
        kind: 'enter',
        activity: 'fox',
        dimension: 'loop#2',
        change,
        at: 1_234,
        worker: 'host:1:ab',
      },
      { job: 'j', kind: 'end', change: null },
    ]);
    const [first, second] = await store.historyOfJob('j');
    expect(first).toEqual({
      id: expect.any(String),
      job: 'j',
      seq: 1,
      kind: 'enter',
      activity: 'fox',
      dimension: 'loop#2',
      change,
      at: 1_234,
      worker: 'host:1:ab',
    });
    expect(second).toMatchObject({
      seq: 2,
      activity: null,
      dimension: '',
      change: null,
      at: clock.now(),
      worker: null,
    });
  });

  it('pages by seq', async () => {
    await store.appendHistory(Array.from({ length: 7 }, (_, i) => line('j', `k${i + 1}`)));
    const page = await store.historyOfJob('j', { afterSeq: 2, limit: 3 });
    expect(page.map((e) => e.seq)).toEqual([3, 4, 5]);
    const rest = await store.historyOfJob('j', { afterSeq: 5 });
    expect(rest.map((e) => e.kind)).toEqual(['k6', 'k7']);
  });

  it('keeps lines written in a transaction in order, with the time they were written; a rolled-back nested transaction takes its lines with it', async () => {
    await store.transaction(async (tx) => {
      await tx.appendHistory([line('j', 'first')]);
      await clock.advance(5);
      // A call on the Store inside the transaction joins it.
      await store.appendHistory([line('j', 'second')]);
      await expect(
        store.transaction(async (inner) => {
          await inner.appendHistory([line('j', 'undone')]);
          throw new Error('nested failure');
        }),
      ).rejects.toThrow('nested failure');
      await tx.appendHistory([line('j', 'third')]);
    });
    const lines = await store.historyOfJob('j');
    expect(lines.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'first'],
      [2, 'second'],
      [3, 'third'],
    ]);
    expect(lines[1]?.at).toBe((lines[0]?.at as number) + 5);
  });

  it('numbers the lines of transactions that write one job’s history at once, none holding the job, 1 to n', async () => {
    // As claims do when they record attempt starts: 40 transactions, 8 at a time.
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.transaction(async (tx) => {
            await tx.append([{ stream: 'work', payload: i }]);
            await tx.appendHistory([line('j', `r${round}w${i}`)]);
          }),
        ),
      );
    }
    const lines = await store.historyOfJob('j');
    expect(lines.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('a line that cannot be written fails the transaction and nothing in it is kept', async () => {
    const failed = store.transaction(async (tx) => {
      await tx.append([{ stream: 'work', payload: 'kept only with the lines' }]);
      // A kind longer than any column would hold is refused by neither store; a change
      // that is not JSON is: the write fails.
      await tx.appendHistory([{ job: 'j', kind: 'bad', change: { n: 10n } as never }]);
    });
    await expect(failed).rejects.toThrow();
    expect(await store.countMessages('work')).toBe(0);
    expect(await store.historyOfJob('j')).toEqual([]);
  });

  it('commits a unit’s lines with the unit, and none when the unit fails', async () => {
    const [id] = (await store.append([{ stream: 'work', payload: 'step' }])) as [string];
    await store.claim('work', { consumer: 'me', leaseMs: 1000 });
    await commitUnit(store, {
      ack: { stream: 'work', id, consumer: 'me' },
      activities: [{ job: 'j', activity: 'a', status: 'SUCCESS' }],
      history: [line('j', 'enter', { activity: 'a' }), line('j', 'end')],
    });
    expect((await store.historyOfJob('j')).map((e) => e.kind)).toEqual(['enter', 'end']);
    // The same ack again: the message is gone, so the unit changes nothing.
    const failed = commitUnit(store, {
      ack: { stream: 'work', id, consumer: 'me' },
      history: [line('j', 'again')],
    });
    await expect(failed).rejects.toBeInstanceOf(LeaseLostError);
    expect(await store.historyOfJob('j')).toHaveLength(2);
  });
});
