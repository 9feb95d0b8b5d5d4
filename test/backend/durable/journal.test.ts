/**
 * Code-first instances as append-only journals, through the real Worker: a step writes
 * what it adds, not the whole history (a 1,000-task instance writes as much for its
 * 990th task as for its 10th); workflow code that changes values it was handed cannot
 * change the recorded history; and instances stored as whole documents by an earlier
 * weft are converted by migration 5 and run on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import {
  applyDecisions,
  defineTask,
  defineWorkflow,
  initialProperties,
  receiveAction,
  runDecision,
  seededValueSource,
  startInstance,
  tryTriggerDecision,
  Workflow,
} from '../../../src/durable/index.js';
import type { Instance } from '../../../src/durable/instance.js';
import { readInstance } from '../../../src/durable/stored-instance.js';
import { openStore } from '../../../src/store/open-store.js';
import type { JobPatch, JournalEntry } from '../../../src/store/records.js';
import type { Store, StoreTx } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { rawSql } from '../../support/raw-sql.js';
import { backend, freshStoreUrl, openTestStore } from '../../support/store-under-test.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startWorker(
  store: Store,
  options: Partial<ConstructorParameters<typeof Worker>[0]>,
) {
  const worker = new Worker({ store, idleMs: 200, ...options });
  await worker.start();
  cleanups.push(() => worker.stop());
  return worker;
}

/** What the runtime asked the store to write for instances, and timers it cancelled. */
interface Writes {
  bytes: number;
  cancelledTimers: number;
}

/** `store`, counting the bytes of journal entries and job contexts it is asked to write. */
function countingInstanceWrites(store: Store, writes: Writes): Store {
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
  const context = (patch: JobPatch | undefined) => {
    if (patch?.context !== undefined) writes.bytes += size(patch.context);
  };
  const tap = <T extends StoreTx>(tx: T): T =>
    new Proxy(tx, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        switch (property) {
          case 'appendJournal':
            return (entries: JournalEntry[]) => {
              writes.bytes += size(entries);
              return target.appendJournal(entries);
            };
          case 'updateJob':
            return (id: string, patch: JobPatch) => {
              context(patch);
              return target.updateJob(id, patch);
            };
          case 'setJobState':
            return (...args: Parameters<StoreTx['setJobState']>) => {
              context(args[3]);
              return target.setJobState(...args);
            };
          case 'cancelTimer':
            return (key: string) => {
              writes.cancelledTimers++;
              return target.cancelTimer(key);
            };
          case 'transaction':
            return (fn: (inner: StoreTx) => Promise<unknown>) =>
              (target as unknown as Store).transaction((inner) => fn(tap(inner)));
          default:
            return value.bind(target);
        }
      },
    });
  return tap(store);
}

const TASKS = 1_000;
/** The bytes written when task i started, by i. */
const marks: number[] = [];
const writes: Writes = { bytes: 0, cancelledTimers: 0 };

const tick = defineTask('journal-tick', async (i: number) => {
  marks[i] = writes.bytes;
  return i;
});

const long = defineWorkflow(
  'journal-long',
  class extends Workflow {
    async handle(n: number) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += await this.execute(tick, i);
      return sum;
    }
  },
);

/** Mean bytes written per task over `count` tasks from task `from`. */
function meanStep(from: number, count: number): number {
  let total = 0;
  for (let i = from; i < from + count; i++)
    total += (marks[i + 1] as number) - (marks[i] as number);
  return total / count;
}

describe('code-first instances as journals', () => {
  it('write as much per step at task 990 of 1,000 as at task 10', async () => {
    const { store, close } = await openTestStore();
    cleanups.push(close);
    await startWorker(countingInstanceWrites(store, writes), {
      workflows: [long],
      tasks: [tick],
    });
    const job = await new Client(store).start(long.name, [TASKS]);
    const done = await new Client(store).result(job.id, { wait: true, timeoutMs: 300_000 });
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toBe((TASKS * (TASKS - 1)) / 2);
    const early = meanStep(10, 10);
    const late = meanStep(TASKS - 11, 10);
    // A whole-instance rewrite would be about 100 times larger by task 990.
    expect(late).toBeLessThan(early * 1.2);
    expect(late).toBeLessThan(10_000);
    // No task had a timeout and no wait a timer: nothing to cancel.
    expect(writes.cancelledTimers).toBe(0);
    const instance = (await readInstance(store, job.id)) as Instance;
    expect(instance.statuses).toHaveLength(TASKS);
    expect(instance.statuses.every((s) => s.status === 'completed')).toBe(true);
  }, 300_000);

  it('keeps the history as recorded when workflow code changes what it was handed', async () => {
    const { store, close } = await openTestStore();
    cleanups.push(close);
    const fetchOrder = defineTask('journal-fetch-order', async () => ({ items: ['a'] }));
    const noop = defineTask('journal-noop', async () => null);
    const mutating = defineWorkflow(
      'journal-mutating',
      class extends Workflow {
        async handle(input: { tags: string[] }) {
          input.tags.push('seen');
          const order = await this.execute(fetchOrder);
          order.items.push('local');
          await this.execute(noop);
          await this.execute(noop);
          return { items: order.items, tags: input.tags };
        }
      },
    );
    await startWorker(store, { workflows: [mutating], tasks: [fetchOrder, noop] });
    const client = new Client(store);
    const job = await client.start(mutating.name, [{ tags: ['x'] }]);
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.output).toEqual({ items: ['a', 'local'], tags: ['x', 'seen'] });
    const instance = (await readInstance(store, job.id)) as Instance;
    expect(instance.branches[0]?.input).toEqual([{ tags: ['x'] }]);
    expect(instance.statuses[0]?.output).toEqual({ items: ['a'] });
  });
});

describe('migration 5', () => {
  const step = defineTask('legacy-step', async (n: number) => n + 1);
  const legacy = defineWorkflow(
    'legacy',
    class extends Workflow {
      count = 0;
      async handle(n: number) {
        const m = await this.execute(step, n);
        this.count = m;
        const go = await this.waitForEvent<{ by: string }>('go');
        return { m, by: go.by, count: this.count };
      }
    },
  );

  /** An instance as today's weft leaves it: a task done, a wait running, an event buffered. */
  async function legacyInstance(): Promise<Instance> {
    const now = Date.UTC(2026, 0, 1);
    const values = seededValueSource(3, now);
    let instance = startInstance({
      id: 'legacy-1',
      workflowName: legacy.name,
      input: [1],
      properties: initialProperties(legacy),
      customId: 'legacy-1',
      now,
    });
    const decide = async (at: number, uuid: string) => {
      const triggered = tryTriggerDecision(instance, { now: at, uuid });
      instance = triggered.instance;
      if (!triggered.request) throw new Error('no decision');
      const outcome = await runDecision(triggered.request, legacy, { values });
      instance = applyDecisions(instance, outcome, at).instance;
    };
    await decide(now, 'd1');
    const task = instance.statuses[0]?.uuid as string;
    instance = receiveAction(instance, { type: 'onStart', uuid: task }, now + 1).instance;
    await decide(now + 1, 'd2');
    instance = receiveAction(
      instance,
      { type: 'onSuccess', uuid: task, output: 2 },
      now + 2,
    ).instance;
    await decide(now + 2, 'd3');
    // The wait's own onStart, as the runtime triggers right away.
    await decide(now + 2, 'd4');
    instance = receiveAction(
      instance,
      { type: 'onEvent', name: 'noise', data: { k: 1 } },
      now + 3,
    ).instance;
    expect(instance.waits).toHaveLength(1);
    expect(instance.buffer).toHaveLength(1);
    expect(instance.properties.length).toBeGreaterThan(1);
    return instance;
  }

  const literal = (value: unknown) => `'${JSON.stringify(value).replaceAll("'", "''")}'`;

  // A SQL schema migration: the Redis store has no migration 5 (its layout starts with journals).
  it.skipIf(backend === 'redis')(
    'converts instances stored whole into journals, and they run on',
    async () => {
      const location = await freshStoreUrl();
      cleanups.push(() => location.cleanup());
      // A database as the previous weft left it: schema 3, an instance in a job's context.
      await (await openStore(location.url)).close();
      await rawSql(location.url, 'DROP TABLE weft_journal');
      await rawSql(location.url, 'DELETE FROM weft_migrations WHERE version = 5');
      const instance = await legacyInstance();
      const pending = startInstance({
        id: 'legacy-2',
        workflowName: legacy.name,
        input: [5],
        properties: null,
        now: 1,
      });
      const insert = (id: string, model: string, input: unknown, context: unknown) =>
        rawSql(
          location.url,
          `INSERT INTO weft_jobs (id, workflow, version, model, state, input, context, created_at, updated_at)
         VALUES ('${id}', 'legacy', 1, '${model}', 'RUNNING', ${literal(input)}, ${literal(context)}, 1, 1)`,
        );
      await insert('legacy-1', 'durable', [1], instance);
      await insert('legacy-2', 'durable', [5], pending);
      await insert('graph-1', 'graph', {}, { parent: { job: 'p', activity: 'a', dimension: '' } });

      const store = await openStore(location.url);
      cleanups.push(() => store.close());
      expect(await readInstance(store, 'legacy-1')).toEqual(instance);
      expect(await readInstance(store, 'legacy-2')).toEqual(pending);
      expect((await store.getJob('graph-1'))?.context).toEqual({
        parent: { job: 'p', activity: 'a', dimension: '' },
      });
      expect(await store.readJournal('graph-1')).toEqual([]);

      await startWorker(store, { workflows: [legacy], tasks: [step] });
      const client = new Client(store);
      await client.sendEvent('legacy-1', 'go', { by: 'ana' });
      const done = await client.result('legacy-1', { wait: true, timeoutMs: 30_000 });
      expect(done.state).toBe('SUCCESS');
      expect(done.output).toEqual({ m: 2, by: 'ana', count: 2 });
      const after = (await readInstance(store, 'legacy-1')) as Instance;
      expect(after.branches.map((b) => b.type)).toContain('onEvent');
      expect(after.branches.every((b) => b.ended)).toBe(true);
      expect(after.buffer).toEqual([]);
    },
  );
});
