/**
 * Conformance: the set-based operations a batch of engine steps uses — many jobs locked
 * in id order, many counters read and added, many activities read and upserted, many
 * messages acked — give the same results as their one-row forms, on every backend; and a
 * call of thousands of rows (which SQLite runs in chunks, yielding to the event loop
 * between them) is as atomic, and keeps its order, as a call of one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const job = (id: string) => ({
  id,
  workflow: 'w',
  version: 1,
  model: 'graph' as const,
  state: 'RUNNING' as const,
  input: null,
});

describe('batch operations', () => {
  it('locks the jobs that exist, in id order', async () => {
    for (const id of ['c', 'a', 'b']) await store.createJob(job(id));
    const locked = await store.transaction((tx) => tx.lockJobs(['c', 'zz', 'a', 'c', 'b']));
    expect(locked.map((j) => j.id)).toEqual(['a', 'b', 'c']);
  });

  it('reads every counter and activity of several jobs, and nothing of the others', async () => {
    await store.addCounter({ job: 'j', field: 'key' }, 5n);
    await store.addCounter({ job: 'j', activity: 'a', dimension: ',1', field: 'sem' }, 9n);
    await store.addCounter({ job: 'k', field: 'key' }, 7n);
    await store.addCounter({ job: 'other', field: 'key' }, 1n);
    await store.putActivity({ job: 'j', activity: 'a', dimension: ',1', status: 'RUNNING' });
    await store.putActivity({ job: 'k', activity: 'b', output: 2 });
    await store.putActivity({ job: 'other', activity: 'c' });
    const [counters, activities] = await store.transaction(async (tx) => [
      await tx.countersOfJobs(['j', 'k', 'j']),
      await tx.activitiesOfJobs(['k', 'j']),
    ]);
    const named = counters
      .map((c) => `${c.ref.job}/${c.ref.activity}/${c.ref.dimension}/${c.ref.field}=${c.value}`)
      .sort();
    expect(named).toEqual(['j///key=5', 'j/a/,1/sem=9', 'k///key=7']);
    expect(activities.map((a) => `${a.job}/${a.activity}/${a.dimension}`).sort()).toEqual([
      'j/a/,1',
      'k/b/',
    ]);
    expect(await store.transaction((tx) => tx.countersOfJobs([]))).toEqual([]);
  });

  it('reads only the dimensional threads asked for, the job-level ones under ""', async () => {
    await store.addCounter({ job: 'j', field: 'key' }, 5n);
    await store.addCounter({ job: 'j', activity: 'a', field: 'iterations' }, 2n);
    await store.addCounter({ job: 'j', activity: 'a', dimension: 'c#1', field: 'sem' }, 9n);
    await store.addCounter({ job: 'j', activity: 'a', dimension: 'c#2', field: 'sem' }, 8n);
    await store.addCounter({ job: 'k', activity: 'b', dimension: 'c#2', field: 'sem' }, 7n);
    await store.putActivities([
      { job: 'j', activity: 'a', dimension: '' },
      { job: 'j', activity: 'a', dimension: 'c#1' },
      { job: 'j', activity: 'a', dimension: 'c#2' },
      { job: 'k', activity: 'b', dimension: 'c#1' },
    ]);
    const [counters, activities] = await store.transaction(async (tx) => [
      await tx.countersOfJobs(['j', 'k'], ['', 'c#2', 'c#2']),
      await tx.activitiesOfJobs(['j', 'k'], ['c#1']),
    ]);
    expect(
      counters
        .map((c) => `${c.ref.job}/${c.ref.activity}/${c.ref.dimension}/${c.ref.field}`)
        .sort(),
    ).toEqual(['j///key', 'j/a//iterations', 'j/a/c#2/sem', 'k/b/c#2/sem']);
    expect(activities.map((a) => `${a.job}/${a.activity}/${a.dimension}`).sort()).toEqual([
      'j/a/c#1',
      'k/b/c#1',
    ]);
    expect(await store.transaction((tx) => tx.countersOfJobs(['j'], []))).toEqual([]);
  });

  it("reads each activity's newest record, every one of them when several share the time", async () => {
    await store.putActivity({ job: 'j', activity: 'a', dimension: 'c#1', output: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.putActivity({ job: 'j', activity: 'a', dimension: 'c#2', output: 2 });
    await store.putActivity({ job: 'j', activity: 'b', dimension: '', output: 3 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    // One call stamps its rows with one time: both are b's newest.
    await store.putActivities([
      { job: 'j', activity: 'b', dimension: 'c#1', output: 4 },
      { job: 'j', activity: 'b', dimension: 'c#2', output: 5 },
    ]);
    await store.putActivity({ job: 'k', activity: 'a', output: 6 });
    const newest = await store.transaction((tx) => tx.newestActivities('j'));
    expect(newest.map((r) => `${r.activity}/${r.dimension}=${r.output}`).sort()).toEqual([
      'a/c#2=2',
      'b/c#1=4',
      'b/c#2=5',
    ]);
    // Only the activities asked for (an expression reads those it names).
    const named = await store.transaction((tx) => tx.newestActivities('j', ['b', 'none']));
    expect(named.map((r) => `${r.activity}/${r.dimension}=${r.output}`).sort()).toEqual([
      'b/c#1=4',
      'b/c#2=5',
    ]);
    expect(await store.transaction((tx) => tx.newestActivities('k', ['a']))).toMatchObject([
      { job: 'k', activity: 'a', output: 6 },
    ]);
  });

  it('reads counters in order, undefined for those never written', async () => {
    await store.addCounter({ job: 'j', field: 'x' }, 5n);
    await store.addCounter({ job: 'j', activity: 'a', dimension: ',0', field: 'y' }, 7n);
    const values = await store.transaction((tx) =>
      tx.getCounters([
        { job: 'j', activity: 'a', dimension: ',0', field: 'y' },
        { job: 'j', field: 'missing' },
        { job: 'j', field: 'x' },
      ]),
    );
    expect(values).toEqual([7n, undefined, 5n]);
  });

  it('adds to many counters at once, absent ones from their initial value, exactly', async () => {
    await store.addCounter({ job: 'j', field: 'x' }, 5n);
    const added = await store.transaction((tx) =>
      tx.addCounters([
        { ref: { job: 'j', field: 'x' }, delta: 2n },
        {
          ref: { job: 'j', activity: 'a1', field: 'semaphore' },
          delta: -100_000_000_000_000n,
          initial: 999_000_000_000_000n,
        },
        { ref: { job: 'j', field: 'fresh' }, delta: -3n },
      ]),
    );
    expect(added).toEqual([7n, 899_000_000_000_000n, -3n]);
    expect(await store.getCounter({ job: 'j', activity: 'a1', field: 'semaphore' })).toBe(
      899_000_000_000_000n,
    );
  });

  it('adds to stored and absent counters at once with no initial, in order, losing no add', async () => {
    await store.addCounter({ job: 'j', field: 'b' }, 10n);
    await store.addCounter({ job: 'j', activity: 'a', dimension: 'd#1', field: 'sem' }, 100n);
    const refs = [
      { job: 'j', field: 'new' },
      { job: 'j', activity: 'a', dimension: 'd#1', field: 'sem' },
      { job: 'j', field: 'b' },
    ];
    const added = await store.transaction((tx) =>
      tx.addCounters(refs.map((ref, i) => ({ ref, delta: BigInt(i + 1) }))),
    );
    expect(added).toEqual([1n, 102n, 13n]);
    // Eight transactions at once add to the same counters: every add counts.
    await Promise.all(
      Array.from({ length: 8 }, () =>
        store.transaction((tx) => tx.addCounters(refs.map((ref) => ({ ref, delta: 1n })))),
      ),
    );
    expect(await store.getCounters(refs)).toEqual([9n, 110n, 21n]);
  });

  it('reads and upserts many activities; fields a write leaves out keep their values', async () => {
    await store.putActivity({
      job: 'j',
      activity: 'a',
      status: 'RUNNING',
      input: { n: 1 },
      attempt: 1,
      startedAt: 1_000,
    });
    await store.transaction((tx) =>
      tx.putActivities([
        { job: 'j', activity: 'a', status: 'SUCCESS', output: { ok: true }, finishedAt: 2_000 },
        { job: 'j', activity: 'b', dimension: ',1', input: [1, 2] },
        { job: 'k', activity: 'c', error: { name: 'Error', message: 'no' }, attempt: 3 },
      ]),
    );
    const [a, b, missing, c] = await store.transaction((tx) =>
      tx.getActivities([
        { job: 'j', activity: 'a' },
        { job: 'j', activity: 'b', dimension: ',1' },
        { job: 'j', activity: 'nope' },
        { job: 'k', activity: 'c' },
      ]),
    );
    expect(a).toMatchObject({
      status: 'SUCCESS',
      input: { n: 1 },
      output: { ok: true },
      attempt: 1,
      startedAt: 1_000,
      finishedAt: 2_000,
      error: null,
    });
    expect(b).toMatchObject({
      dimension: ',1',
      status: 'PENDING',
      input: [1, 2],
      output: null,
      attempt: 0,
      startedAt: null,
    });
    expect(missing).toBeUndefined();
    expect(c).toMatchObject({ error: { name: 'Error', message: 'no' }, attempt: 3 });
    // The one-row read agrees with the set-based one.
    expect(await store.getActivity('j', 'a')).toEqual(a);
  });

  it('acks many messages, only those the consumer still holds', async () => {
    const ids = await store.append([
      { stream: 's', payload: 1 },
      { stream: 's', payload: 2 },
      { stream: 's', payload: 3 },
    ]);
    const claimed = await store.claim('s', { consumer: 'me', max: 2, leaseMs: 60_000 });
    expect(claimed.map((m) => m.id)).toEqual(ids.slice(0, 2));
    // A message never claimed cannot complete (the claim machine's UNCLAIMED -> COMPLETE):
    // the whole ack is refused and nothing is acked.
    await expect(
      store.transaction((tx) => tx.ackMany('s', [...ids, 'not-an-id'], 'me')),
    ).rejects.toThrow(/UNCLAIMED -> COMPLETE/);
    expect(await store.countMessages('s')).toBe(3);
    const acked = await store.transaction((tx) =>
      tx.ackMany('s', [...ids.slice(0, 2), 'not-an-id'], 'me'),
    );
    expect(acked).toEqual(ids.slice(0, 2));
    const rest = await store.claim('s', { consumer: 'me', max: 5, leaseMs: 60_000 });
    expect(rest.map((m) => m.payload)).toEqual([3]);
  });

  it('writes and reads thousands of rows in one call, in order, all or nothing', async () => {
    const n = 2_500;
    const rows = Array.from({ length: n }, (_, i) => i);
    const work = async (fail: boolean) =>
      store.transaction(async (tx) => {
        const ids = await tx.append(rows.map((i) => ({ stream: 'big', payload: i })));
        const values = await tx.addCounters(
          rows.map((i) => ({ ref: { job: 'j', activity: `a${i}`, field: 'n' }, delta: BigInt(i) })),
        );
        await tx.putActivities(rows.map((i) => ({ job: 'j', activity: `a${i}`, output: i })));
        await tx.appendHistory(rows.map((i) => ({ job: 'j', kind: 'step', change: i })));
        const read = await tx.getActivities(rows.map((i) => ({ job: 'j', activity: `a${i}` })));
        if (fail) throw new Error('rolled back');
        return { ids, values, read };
      });
    await expect(work(true)).rejects.toThrow('rolled back');
    expect(await store.countMessages('big')).toBe(0);
    expect(await store.getActivity('j', 'a0')).toBeUndefined();
    expect(await store.historyOfJob('j')).toEqual([]);

    const { ids, values, read } = await work(false);
    expect(new Set(ids).size).toBe(n);
    expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((x, y) => x - y));
    expect(values).toEqual(rows.map((i) => BigInt(i)));
    expect(read.map((a) => a?.output)).toEqual(rows);
    const history = await store.historyOfJob('j', { limit: n });
    expect(history.map((h) => [h.seq, h.change])).toEqual(rows.map((i) => [i + 1, i]));
    const peeked = await store.peek('big', n);
    expect(peeked.map((m) => m.payload)).toEqual(rows);
    const acked = await store.transaction(async (tx) => {
      await tx.claim('big', { consumer: 'me', max: n, leaseMs: 60_000 });
      return tx.ackMany('big', ids, 'me');
    });
    expect(acked).toEqual(ids);
    expect(await store.countMessages('big')).toBe(0);
  });
});
