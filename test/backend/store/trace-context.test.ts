/**
 * Conformance: a job's stored trace context (migration 0017). A job created with a W3C
 * `traceparent` (and `tracestate`) reads back with it from every read — get, lock, lock
 * many, list — and inside a transaction; one created without has no `trace` at all; a
 * duplicate create keeps the first job's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewJob, Store } from '../../../src/store/store.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';

let store: Store;
let close: (() => Promise<void>) | undefined;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const job = (id: string, extra: Partial<NewJob> = {}): NewJob => ({
  id,
  workflow: 'order',
  version: 1,
  model: 'graph',
  input: null,
  ...extra,
});

describe.skipIf(skipBackend)('a job trace context', () => {
  it('reads back from every read of the job, with its tracestate', async () => {
    const trace = { traceparent: TRACEPARENT, tracestate: 'vendor=abc,other=1' };
    const { job: created } = await store.createJob(job('t1', { trace }));
    expect(created.trace).toEqual(trace);
    expect((await store.getJob('t1'))?.trace).toEqual(trace);
    expect((await store.listJobs({ workflow: 'order' }))[0]?.trace).toEqual(trace);
    await store.transaction(async (tx) => {
      expect((await tx.lockJob('t1'))?.trace).toEqual(trace);
      expect((await tx.lockJobs(['t1']))[0]?.trace).toEqual(trace);
    });
  });

  it('keeps a traceparent without a tracestate, and no trace for a job started without one', async () => {
    await store.createJob(job('only', { trace: { traceparent: TRACEPARENT } }));
    expect((await store.getJob('only'))?.trace).toEqual({ traceparent: TRACEPARENT });
    const { job: plain } = await store.createJob(job('plain'));
    expect('trace' in plain).toBe(false);
    expect('trace' in ((await store.getJob('plain')) ?? {})).toBe(false);
  });

  it('a duplicate create keeps the first job trace', async () => {
    await store.createJob(job('dup', { trace: { traceparent: TRACEPARENT } }));
    const other = '00-11111111111111111111111111111111-2222222222222222-01';
    const again = await store.createJob(job('dup', { trace: { traceparent: other } }));
    expect(again.created).toBe(false);
    expect(again.job.trace).toEqual({ traceparent: TRACEPARENT });
  });
});
