/** Conformance: jobs — idempotent create, compare-and-set of the state, patches, listing. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import { InvalidStateError, NotFoundError } from '../../../src/core/errors.js';
import type { NewJob, Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

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
  ...extra,
});

describe('createJob and getJob', () => {
  it('creates a job with defaults taken from the clock', async () => {
    const { job: created, created: isNew } = await store.createJob(job('j1'));
    expect(isNew).toBe(true);
    expect(created).toMatchObject({
      id: 'j1',
      state: 'PENDING',
      output: null,
      error: null,
      context: null,
      parentId: null,
      parentActivity: null,
      createdAt: START,
      finishedAt: null,
    });
    expect(await store.getJob('j1')).toEqual(created);
  });

  it('a second create with the same id returns the first job and makes no second one', async () => {
    const first = await store.createJob(job('dup', { input: { n: 1 } }));
    await clock.advance(1000);
    const second = await store.createJob(job('dup', { input: { n: 2 }, workflow: 'other' }));
    expect(second.created).toBe(false);
    expect(second.job).toEqual(first.job);
    expect(await store.listJobs()).toHaveLength(1);
  });

  it('keeps parent links, context and an explicit state', async () => {
    await store.createJob(
      job('child', { parentId: 'p', parentActivity: 'a1', context: { k: [1] }, state: 'RUNNING' }),
    );
    expect(await store.getJob('child')).toMatchObject({
      parentId: 'p',
      parentActivity: 'a1',
      context: { k: [1] },
      state: 'RUNNING',
    });
  });

  it('returns undefined for a job that does not exist', async () => {
    expect(await store.getJob('nope')).toBeUndefined();
  });
});

describe('setJobState', () => {
  it('moves when the stored state is `from`, and not when it is not', async () => {
    await store.createJob(job('j'));
    expect(await store.setJobState('j', 'PENDING', 'RUNNING')).toBe(true);
    expect(await store.setJobState('j', 'PENDING', 'RUNNING')).toBe(false);
    expect((await store.getJob('j'))?.state).toBe('RUNNING');
  });

  it('throws InvalidStateError on an illegal move and writes nothing', async () => {
    await store.createJob(job('j'));
    await expect(store.setJobState('j', 'PENDING', 'SUCCESS')).rejects.toBeInstanceOf(
      InvalidStateError,
    );
    expect((await store.getJob('j'))?.state).toBe('PENDING');
  });

  it('returns false for a same-state move and for a missing job', async () => {
    await store.createJob(job('j'));
    expect(await store.setJobState('j', 'PENDING', 'PENDING', { output: 1 })).toBe(false);
    expect((await store.getJob('j'))?.output).toBeNull();
    expect(await store.setJobState('missing', 'PENDING', 'RUNNING')).toBe(false);
  });

  it('applies the patch with the move and stamps the finish time on a final state', async () => {
    await store.createJob(job('j'));
    await store.setJobState('j', 'PENDING', 'RUNNING');
    await clock.advance(5000);
    expect(await store.setJobState('j', 'RUNNING', 'SUCCESS', { output: { total: 3 } })).toBe(true);
    expect(await store.getJob('j')).toMatchObject({
      state: 'SUCCESS',
      output: { total: 3 },
      finishedAt: START + 5000,
      updatedAt: START + 5000,
    });
  });

  it('returns false for an ignored move (a suspend request on an idle job)', async () => {
    await store.createJob(job('j'));
    expect(await store.setJobState('j', 'PENDING', 'SUSPENDING')).toBe(false);
    expect((await store.getJob('j'))?.state).toBe('PENDING');
  });

  it('a move out of a final state clears the finish time', async () => {
    await store.createJob(job('j', { state: 'RUNNING' }));
    await store.setJobState('j', 'RUNNING', 'SUCCESS');
    expect((await store.getJob('j'))?.finishedAt).toBe(START);
    expect(await store.setJobState('j', 'SUCCESS', 'RUNNING')).toBe(true);
    expect((await store.getJob('j'))?.finishedAt).toBeNull();
  });

  it('records an error on failure', async () => {
    await store.createJob(job('j', { state: 'RUNNING' }));
    const error = { name: 'Boom', message: 'it broke', code: 'X' };
    await store.setJobState('j', 'RUNNING', 'FAILURE', { error });
    expect((await store.getJob('j'))?.error).toEqual(error);
  });
});

describe('updateJob', () => {
  it('changes only the given fields, never the state', async () => {
    await store.createJob(job('j', { context: { a: 1 } }));
    await store.updateJob('j', { output: 'partial' });
    expect(await store.getJob('j')).toMatchObject({
      state: 'PENDING',
      output: 'partial',
      context: { a: 1 },
    });
    await store.updateJob('j', { context: { a: 2 }, error: null, finishedAt: 42 });
    expect(await store.getJob('j')).toMatchObject({
      output: 'partial',
      context: { a: 2 },
      error: null,
      finishedAt: 42,
    });
  });

  it('throws NotFoundError for a missing job', async () => {
    await expect(store.updateJob('missing', { output: 1 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('updateJobs patches several jobs at once, each only in its given fields', async () => {
    await store.createJob(job('j1', { context: { a: 1 } }));
    await store.createJob(job('j2', { state: 'RUNNING', context: { b: 1 } }));
    await store.transaction(async (tx) => {
      await tx.lockJobs(['j1', 'j2']);
      await tx.updateJobs([
        { id: 'j2', patch: { context: { b: 2 }, error: { name: 'E', message: 'm' } } },
        { id: 'j1', patch: { output: [1, 'x'], finishedAt: 7 } },
      ]);
    });
    expect(await store.getJob('j1')).toMatchObject({
      state: 'PENDING',
      output: [1, 'x'],
      context: { a: 1 },
      finishedAt: 7,
    });
    expect(await store.getJob('j2')).toMatchObject({
      state: 'RUNNING',
      output: null,
      context: { b: 2 },
      error: { name: 'E', message: 'm' },
    });
    await store.updateJobs([]);
  });

  it('updateJobs with a missing job throws NotFoundError naming it and patches none', async () => {
    await store.createJob(job('j1', { context: { a: 1 } }));
    const error = await store
      .transaction((tx) =>
        tx.updateJobs([
          { id: 'j1', patch: { context: { a: 2 } } },
          { id: 'gone', patch: { context: { a: 3 } } },
        ]),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toContain('gone');
    expect((await store.getJob('j1'))?.context).toEqual({ a: 1 });
  });

  it('lockJob reads the job inside a transaction', async () => {
    await store.createJob(job('j'));
    const locked = await store.transaction(async (tx) => tx.lockJob('j'));
    expect(locked?.id).toBe('j');
  });
});

describe('listJobs', () => {
  beforeEach(async () => {
    // ids sort by creation, as real ids do: j00 … j09, one second apart.
    for (let i = 0; i < 10; i++) {
      await store.createJob(
        job(`j${String(i).padStart(2, '0')}`, {
          workflow: i % 2 === 0 ? 'even' : 'odd',
          parentId: i < 3 ? 'parent' : null,
          createdAt: START + i * 1000,
        }),
      );
    }
    await store.setJobState('j01', 'PENDING', 'RUNNING');
    await store.setJobState('j02', 'PENDING', 'RUNNING');
    await store.setJobState('j02', 'RUNNING', 'SUCCESS');
  });

  const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id);

  it('lists in id order, ascending or descending, with a limit', async () => {
    expect(ids(await store.listJobs())).toEqual([
      'j00',
      'j01',
      'j02',
      'j03',
      'j04',
      'j05',
      'j06',
      'j07',
      'j08',
      'j09',
    ]);
    expect(ids(await store.listJobs({ descending: true, limit: 3 }))).toEqual([
      'j09',
      'j08',
      'j07',
    ]);
  });

  it('filters by state, states, workflow, parent and time, combined with AND', async () => {
    expect(ids(await store.listJobs({ state: 'RUNNING' }))).toEqual(['j01']);
    expect(ids(await store.listJobs({ state: ['RUNNING', 'SUCCESS'] }))).toEqual(['j01', 'j02']);
    expect(ids(await store.listJobs({ state: [] }))).toEqual([]);
    expect(ids(await store.listJobs({ workflow: 'odd', limit: 2 }))).toEqual(['j01', 'j03']);
    expect(ids(await store.listJobs({ parentId: 'parent' }))).toEqual(['j00', 'j01', 'j02']);
    expect(
      ids(await store.listJobs({ createdAfter: START + 2000, createdBefore: START + 5000 })),
    ).toEqual(['j02', 'j03', 'j04']);
    expect(
      ids(await store.listJobs({ workflow: 'even', state: 'PENDING', parentId: 'parent' })),
    ).toEqual(['j00']);
  });

  it('pages by keyset: `after` continues in the listing order', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.listJobs({ limit: 4, ...(after ? { after } : {}) });
      if (page.length === 0) break;
      seen.push(...ids(page));
      after = page[page.length - 1]?.id;
    }
    expect(seen).toHaveLength(10);
    expect(ids(await store.listJobs({ after: 'j06', descending: true, limit: 2 }))).toEqual([
      'j05',
      'j04',
    ]);
  });
});
