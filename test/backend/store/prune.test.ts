/**
 * Conformance: retention — `pruneJobs` removes finished jobs with every row they left in
 * any table, never a job that has not ended, and a parent only with its children; the
 * workflows' retention policies are kept by workflow.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import { ValidationError } from '../../../src/core/errors.js';
import type { FlowState } from '../../../src/core/states.js';
import { PRUNED_TABLES } from '../../../src/store/pruned-tables.js';
import type { NewJob, Store } from '../../../src/store/store.js';
import { backend, openTestStore } from '../../support/store-under-test.js';

const START = Date.UTC(2026, 0, 1);
let clock: SimulatedClock;
let store: Store;
let close: (() => Promise<void>) | undefined;

beforeEach(async () => {
  clock = new SimulatedClock(START);
  ({ store, close } = await openTestStore({ clock }));
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const job = (id: string, extra: Partial<NewJob> = {}): NewJob => ({
  id,
  workflow: 'order',
  version: 1,
  model: 'graph',
  input: { id },
  state: 'RUNNING',
  ...extra,
});

/** A job that ran and ended in `end` (at the clock's time), with a row in every table. */
async function finishedJob(id: string, end: FlowState = 'SUCCESS', extra: Partial<NewJob> = {}) {
  await store.createJob(job(id, extra));
  await writeRows(id);
  expect(await store.setJobState(id, 'RUNNING', end)).toBe(true);
}

/** A row of job `id` in each table a job's rows live in. */
async function writeRows(id: string) {
  await store.putActivity({ job: id, activity: 'a', status: 'SUCCESS', input: { x: 1 } });
  await store.addCounter({ job: id, field: 'collation' }, 6n);
  await store.appendHistory([{ job: id, kind: 'start', change: {} }]);
  await store.appendJournal([{ job: id, seq: 1, kind: 'branch', key: '0', data: {} }]);
  await store.append([{ stream: 'engine', job: id, payload: { late: true } }]);
  const [dead] = await store.append([{ stream: `dead-${id}`, job: id, payload: {} }]);
  await store.claim(`dead-${id}`, { consumer: 'c', max: 1, leaseMs: 1000 });
  await store.deadLetter(`dead-${id}`, dead as string, 'c', 'test');
  await store.scheduleTimer({
    key: `timer-${id}`,
    at: START + 1e9,
    message: { stream: 'engine', job: id, payload: {} },
  });
  await store.registerWaiter({
    key: `hook-${id}`,
    job: id,
    message: { stream: 'engine', job: id, payload: {} },
  });
  await store.claimIdempotencyKey(
    { workflow: 'order', key: `key-${id}`, job: id, expiresAt: START + 1e9 },
    clock.now(),
  );
  await store.putDebounce({
    workflow: 'order',
    key: `debounce-${id}`,
    job: id,
    mode: 'trailing',
    firstAt: START,
    untilAt: START,
    starts: 1,
    held: [],
  });
}

const everyTable = (n: number) => Object.fromEntries(PRUNED_TABLES.map((t) => [t.name, n]));

describe('pruneJobs', () => {
  it('removes a finished job and every row it left, and counts them per table', async () => {
    await finishedJob('old');
    await clock.advance(10_000);
    await finishedJob('recent');
    const expected = { ...everyTable(1), messages: 1, queue_items: 0 };

    const dry = await store.pruneJobs({ endedBefore: START + 5_000, dryRun: true });
    expect(dry.jobs).toEqual(['old']);
    expect(dry.rows).toEqual(expected);
    expect(await store.getJob('old')).toBeDefined();

    const done = await store.pruneJobs({ endedBefore: START + 5_000 });
    expect(done).toEqual({ jobs: ['old'], rows: expected });
    expect(await store.getJob('old')).toBeUndefined();
    expect(await store.listActivities('old')).toEqual([]);
    expect(await store.listCounters('old')).toEqual(new Map());
    expect(await store.historyOfJob('old')).toEqual([]);
    expect(await store.readJournal('old')).toEqual([]);
    expect(await store.jobMessages('old')).toEqual([]);
    expect((await store.listDeadLetters()).map((d) => d.job)).toEqual(['recent']);
    // The key and the window are free again: a new start takes them.
    const claim = { workflow: 'order', key: 'key-old', job: 'new', expiresAt: START + 1e9 };
    expect(await store.claimIdempotencyKey(claim, clock.now())).toBe('new');

    // The other job is whole.
    expect((await store.pruneJobs({ endedBefore: START + 5_000, dryRun: true })).jobs).toEqual([]);
    expect((await store.pruneJobs({ endedBefore: clock.now() + 1, dryRun: true })).rows).toEqual(
      expected,
    );
  });

  it('never removes a job that has not ended, nor one that ended at or after endedBefore', async () => {
    await store.createJob(job('pending', { state: 'PENDING' }));
    await store.createJob(job('running'));
    await store.createJob(job('suspended'));
    await store.setJobState('suspended', 'RUNNING', 'SUSPENDING');
    await store.setJobState('suspended', 'SUSPENDING', 'SUSPENDED');
    await finishedJob('edge');
    const result = await store.pruneJobs({ endedBefore: START });
    expect(result.jobs).toEqual([]);
    expect((await store.listJobs()).map((j) => j.id).sort()).toEqual(
      ['edge', 'pending', 'running', 'suspended'].sort(),
    );
    expect((await store.pruneJobs({ endedBefore: START + 1 })).jobs).toEqual(['edge']);
  });

  it('removes a parent only with its children, and only once all of them ended', async () => {
    // A family whose child still runs: neither goes.
    await finishedJob('p1');
    await store.createJob(job('p1-child', { parentId: 'p1', parentActivity: 'a' }));
    // A family all ended: all of it goes, grandchildren included.
    await finishedJob('p2');
    await finishedJob('p2-child', 'FAILURE', { parentId: 'p2', parentActivity: 'a' });
    await finishedJob('p2-grandchild', 'SUCCESS', { parentId: 'p2-child', parentActivity: 'a' });
    // A child that ended under a parent that runs: kept with its parent.
    await store.createJob(job('p3'));
    await finishedJob('p3-child', 'SUCCESS', { parentId: 'p3', parentActivity: 'a' });
    await clock.advance(1_000);

    const result = await store.pruneJobs({ endedBefore: clock.now() });
    expect(result.jobs.sort()).toEqual(['p2', 'p2-child', 'p2-grandchild']);
    expect(result.rows.jobs).toBe(3);
    expect(result.rows.history).toBe(3);
    expect((await store.listJobs()).map((j) => j.id).sort()).toEqual([
      'p1',
      'p1-child',
      'p3',
      'p3-child',
    ]);

    // Once the child ends (later than endedBefore), the family waits for it to be old too.
    await store.setJobState('p1-child', 'RUNNING', 'SUCCESS');
    expect((await store.pruneJobs({ endedBefore: clock.now() })).jobs).toEqual([]);
    await clock.advance(1);
    expect((await store.pruneJobs({ endedBefore: clock.now() })).jobs.sort()).toEqual([
      'p1',
      'p1-child',
    ]);
  });

  it('takes a child whose parent is gone for a top job', async () => {
    await finishedJob('orphan', 'SUCCESS', { parentId: 'gone', parentActivity: 'a' });
    await clock.advance(1);
    expect((await store.pruneJobs({ endedBefore: clock.now() })).jobs).toEqual(['orphan']);
  });

  it('selects by end state and workflow, or leaves workflows out', async () => {
    await finishedJob('s1', 'SUCCESS');
    await finishedJob('f1', 'FAILURE');
    await finishedJob('r1', 'REVERTED', { workflow: 'refund' });
    await finishedJob('s2', 'SUCCESS', { workflow: 'refund' });
    await clock.advance(1);
    const endedBefore = clock.now();
    const dry = (extra: object) =>
      store.pruneJobs({ endedBefore, dryRun: true, ...extra }).then((r) => [...r.jobs].sort());
    expect(await dry({ states: ['FAILURE'] })).toEqual(['f1']);
    expect(await dry({ states: ['SUCCESS', 'REVERTED'] })).toEqual(['r1', 's1', 's2']);
    expect(await dry({ workflow: 'refund' })).toEqual(['r1', 's2']);
    expect(await dry({ workflow: 'refund', states: ['SUCCESS'] })).toEqual(['s2']);
    expect(await dry({ exceptWorkflows: ['refund'] })).toEqual(['f1', 's1']);
    expect(await dry({ exceptWorkflows: ['refund', 'order'] })).toEqual([]);
  });

  it('goes through many jobs in batches by end time, passing over families it keeps', async () => {
    await finishedJob('blocked');
    await store.createJob(job('blocked-child', { parentId: 'blocked', parentActivity: 'a' }));
    for (let i = 0; i < 7; i++) {
      await clock.advance(1);
      await finishedJob(`j${i}`);
    }
    await clock.advance(1);
    const seen: string[][] = [];
    let after: { finishedAt: number; id: string } | undefined;
    for (;;) {
      const r = await store.pruneJobs({
        endedBefore: clock.now(),
        limit: 3,
        ...(after && { after }),
      });
      seen.push(r.jobs);
      if (!r.next) break;
      after = r.next;
    }
    // The first batch looks at the blocked family first, and keeps it.
    expect(seen).toEqual([
      ['j0', 'j1'],
      ['j2', 'j3', 'j4'],
      ['j5', 'j6'],
    ]);
    expect((await store.listJobs()).map((j) => j.id).sort()).toEqual(['blocked', 'blocked-child']);
  });

  it('refuses a state that is not an end state, and a bad limit', async () => {
    await expect(
      store.pruneJobs({ endedBefore: START, states: ['RUNNING'] }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(store.pruneJobs({ endedBefore: START, limit: 0 })).rejects.toThrow(/limit/);
  });

  it.runIf(backend === 'postgres')(
    'passes over a family with a job another transaction holds, without waiting for it',
    async () => {
      await finishedJob('held');
      await finishedJob('free');
      await clock.advance(1);
      // Another transaction holds the job (in its own async context, so the prune below
      // runs on a connection of its own).
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holding = store.transaction(async (tx) => {
        await tx.lockJob('held');
        locked();
        await released;
      });
      await isLocked;
      try {
        const result = await store.pruneJobs({ endedBefore: clock.now() });
        expect(result.jobs).toEqual(['free']);
      } finally {
        release();
        await holding;
      }
      expect((await store.pruneJobs({ endedBefore: clock.now() })).jobs).toEqual(['held']);
    },
  );

  it('runs inside a transaction, and rolls back with it', async () => {
    await finishedJob('old');
    await clock.advance(1);
    await expect(
      store.transaction(async (tx) => {
        expect((await tx.pruneJobs({ endedBefore: clock.now() })).jobs).toEqual(['old']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await store.getJob('old')).toBeDefined();
  });
});

describe('retention policies', () => {
  it('keeps one policy per workflow, and deletes one by its source', async () => {
    expect(await store.listRetentions()).toEqual([]);
    await store.putRetention({ workflow: 'b', policy: { SUCCESS: 1000 }, source: 'file' });
    await store.putRetention({
      workflow: 'a',
      policy: { SUCCESS: 5, FAILURE: null },
      source: 'code',
    });
    expect(await store.listRetentions()).toEqual([
      { workflow: 'a', policy: { SUCCESS: 5, FAILURE: null }, source: 'code', updatedAt: START },
      { workflow: 'b', policy: { SUCCESS: 1000 }, source: 'file', updatedAt: START },
    ]);
    await clock.advance(10);
    await store.putRetention({ workflow: 'b', policy: { REVERTED: 7 }, source: 'file' });
    expect((await store.listRetentions())[1]).toEqual({
      workflow: 'b',
      policy: { REVERTED: 7 },
      source: 'file',
      updatedAt: START + 10,
    });
    expect(await store.deleteRetention('a', 'file')).toBe(false);
    expect(await store.deleteRetention('a', 'code')).toBe(true);
    expect(await store.deleteRetention('b')).toBe(true);
    expect(await store.deleteRetention('b')).toBe(false);
    expect(await store.listRetentions()).toEqual([]);
  });
});
