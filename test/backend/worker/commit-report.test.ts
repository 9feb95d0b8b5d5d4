/**
 * A worker learns what its commits did (worker/commit-report.ts): a committed
 * transaction reports the jobs it created and ended, its history lines and its dead
 * letters, once; a rolled-back one reports nothing; a write made outside a transaction
 * is reported on its own.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { type CommitReport, reportingCommits } from '../../../src/worker/commit-report.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';

describe.skipIf(skipBackend)('commit reports', () => {
  let base: Store;
  let store: Store;
  let reports: CommitReport[];
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ store: base, close } = await openTestStore());
    reports = [];
    store = reportingCommits(base, (report) => reports.push(report));
  });
  afterEach(async () => close());

  const job = (id: string) => ({
    id,
    workflow: 'w',
    version: 1,
    model: 'graph' as const,
    input: null,
    state: 'RUNNING' as const,
  });

  it('reports what a committed transaction did, once it committed', async () => {
    await base.append([{ stream: 's', job: null, payload: 1 }]);
    const [held] = await base.claim('s', { consumer: 'c', leaseMs: 60_000 });
    await store.transaction(async (tx) => {
      await tx.createJob(job('j1'));
      await tx.createJob(job('j1')); // a duplicate id: not a new job
      await tx.appendHistory([
        { job: 'j1', kind: 'start', change: {} },
        { job: 'j1', kind: 'end', change: {} },
      ]);
      await tx.setJobState('j1', 'RUNNING', 'SUCCESS', { finishedAt: 5 });
      await tx.deadLetter('s', held?.id as string, 'c', 'gave up');
      expect(reports).toEqual([]);
    });
    expect(reports).toHaveLength(1);
    const [report] = reports as [CommitReport];
    expect(report.created.map((j) => j.id)).toEqual(['j1']);
    expect(report.ended.map((j) => [j.id, j.state])).toEqual([['j1', 'SUCCESS']]);
    expect(report.history.map((h) => h.kind)).toEqual(['start', 'end']);
    expect(report.deadLettered).toEqual(['s']);
  });

  it('reports nothing of a transaction that rolled back, and a lone write on its own', async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.createJob(job('j2'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(reports).toEqual([]);
    await store.createJob(job('j3'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(reports.map((r) => r.created.map((j) => j.id))).toEqual([['j3']]);
  });
});
