/**
 * A `/metrics` scrape costs the same however much history the store keeps: the
 * dashboard's scrape makes the same store calls, and answers the same store-wide series,
 * with no finished jobs and with 600 finished jobs of 4 activities and 3 attempts each;
 * on SQLite the statements behind it read indexes only — unfinished jobs over the state
 * index, the history's high-water mark over its key — and never the activity records
 * (which the scrape used to sum for `weft_handler_runs_total`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import { createHttpApi } from '../../../src/server/http-api/api.js';
import { SQLITE_STATS_SQL } from '../../../src/store/sqlite/ops/stats.js';
import type { Store } from '../../../src/store/store.js';
import { rawSql } from '../../support/raw-sql.js';
import { backend, openTestStore, skipBackend } from '../../support/store-under-test.js';

/** `store`, counting each call of each of its methods into `calls`. */
function counting(store: Store, calls: Map<string, number>): Store {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
}

describe.skipIf(skipBackend)('the /metrics scrape', () => {
  let clock: SimulatedClock;
  let store: Store;
  let url: string;
  let close: () => Promise<void>;
  beforeEach(async () => {
    clock = new SimulatedClock();
    ({ store, url, close } = await openTestStore({ clock }));
  });
  afterEach(async () => close());

  /** Finished jobs `from`…`to - 1`, each with 4 activities of 3 attempts and history. */
  async function finishedJobs(from: number, to: number): Promise<void> {
    await store.transaction(async (tx) => {
      for (let i = from; i < to; i++) {
        const id = `done-${String(i).padStart(5, '0')}`;
        await tx.createJob({
          id,
          workflow: 'w',
          version: 1,
          model: 'graph',
          input: null,
          state: i % 3 === 0 ? 'FAILURE' : 'SUCCESS',
        });
        await tx.putActivities(
          ['a', 'b', 'c', 'd'].map((activity) => ({
            job: id,
            activity,
            status: 'SUCCESS' as const,
            attempt: 3,
          })),
        );
        await tx.appendHistory([
          { job: id, kind: 'start', change: {} },
          { job: id, kind: 'task', activity: 'a', change: {} },
          { job: id, kind: 'end', change: {} },
        ]);
      }
    });
  }

  /** One scrape of the dashboard's `/metrics`: the store calls it made, and its text. */
  async function scrape(): Promise<{ calls: Map<string, number>; text: string }> {
    const calls = new Map<string, number>();
    const api = createHttpApi({ store: counting(store, calls) });
    calls.clear();
    const response = await api.request('/metrics');
    expect(response.status).toBe(200);
    return { calls, text: await response.text() };
  }

  /** The store-wide series whose values do not move with history (steps do, by design). */
  const steady = (text: string) =>
    text
      .split('\n')
      .filter((line) => !/^weft_steps_total /.test(line))
      .join('\n');

  it('makes the same store calls, and reads no more, with 0 or 600 finished jobs', async () => {
    await store.createJob({ id: 'live', workflow: 'w', version: 1, model: 'graph', input: null });
    await store.setJobState('live', 'PENDING', 'RUNNING');
    const empty = await scrape();
    for (let from = 0; from < 600; from += 200) await finishedJobs(from, from + 200);
    const full = await scrape();
    expect([...full.calls].sort()).toEqual([...empty.calls].sort());
    // Four reads, each answered with a fixed set of statements: stats, schedules, queues.
    expect([...full.calls.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4);
    expect(steady(full.text)).toBe(steady(empty.text));
    expect(full.text).toContain('weft_jobs{state="RUNNING"} 1\n');
    expect(full.text).not.toMatch(/state="(SUCCESS|FAILURE)"/);
    expect(full.text).not.toContain('weft_handler_runs');
  });

  it.runIf(backend === 'sqlite')(
    'reads indexes only on SQLite, and never the activity records',
    async () => {
      await finishedJobs(0, 50);
      const path = url;
      for (const [name, sql] of Object.entries(SQLITE_STATS_SQL)) {
        expect(sql, name).not.toContain('weft_activities');
        const plan = (await rawSql(path, `EXPLAIN QUERY PLAN ${sql.replace(/@now/g, '0')}`))
          .map((row) => String(row.detail))
          .join('\n');
        if (name === 'unfinished') {
          expect(plan).toMatch(/SEARCH weft_jobs USING COVERING INDEX weft_jobs_state/);
        }
        if (name === 'steps') expect(plan).not.toMatch(/SCAN weft_history\b(?! USING)/);
        expect(plan).not.toMatch(/weft_activities/);
      }
    },
  );
});
