/**
 * Debounced starts through a real Worker on a simulated clock: the starts with one key in
 * a window are one job that every caller gets; trailing, it runs `delayMs` after the last
 * start with that start's input (graph and code-first), never later than `maxDelayMs`
 * after the first; leading, the first runs at once and the rest get it; a start after the
 * window (or after its job was cancelled) opens a new one; keys are per workflow; twenty
 * starts at once are one job; bad options are refused before anything is stored.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { ValidationError } from '../../../src/core/errors.js';
import { defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;

/** A trigger, then task `index` with the document's revision. */
const INDEX = `
workflow: reindex
input:
  type: object
  required: [rev]
  properties: { rev: { type: integer } }
activities:
  start: { kind: trigger }
  index: { kind: task, input: "{ 'rev': input.rev }" }
transitions:
  start: [index]
`;

const summarise = defineWorkflow(
  'summarise',
  class extends Workflow {
    async handle(doc: { rev: number }) {
      return `summary of rev ${doc.rev}`;
    }
  },
);

let store: Store;
let close: () => Promise<void>;
let clock: SimulatedClock;
let client: Client;
let worker: Worker | undefined;
let indexed: number[] = [];

beforeEach(async () => {
  clock = new SimulatedClock(T0);
  ({ store, close } = await openTestStore({ clock }));
  client = new Client(store, { clock });
  await client.deploy(compileWorkflow(INDEX));
  indexed = [];
  worker = new Worker({
    store,
    clock,
    idleMs: 25,
    leaseMs: 24 * 3_600_000,
    logger: { error: () => {}, warn: () => {}, info: () => {} },
    workflows: [summarise],
    handlers: {
      index: async (input: unknown) => {
        indexed.push((input as { rev: number }).rev);
        return 'indexed';
      },
    },
  });
  await worker.start();
});
afterEach(async () => {
  await worker?.stop();
  await close();
});

const debounce = (key: string, delayMs = 5 * SECOND, extra = {}) => ({
  debounce: { key, delayMs, ...extra },
});

const done = (id: string) => client.result(id, { wait: true, timeoutMs: 20_000 });

describe('a debounced start', () => {
  it('trailing: one job for the window, run delayMs after the last start with its input', async () => {
    const first = await client.start('reindex', { rev: 1 }, debounce('doc-7'));
    expect((await client.status(first.id)).startAt).toBe(new Date(T0 + 5 * SECOND).toISOString());
    await clock.advance(3 * SECOND);
    const second = await client.start('reindex', { rev: 2 }, debounce('doc-7'));
    await clock.advance(3 * SECOND);
    const third = await client.start('reindex', { rev: 3 }, debounce('doc-7'));
    expect([second.id, third.id]).toEqual([first.id, first.id]);
    expect(third.input).toEqual({ rev: 3 });
    // Six seconds in: the first start's time has passed, but the window moved with each start.
    const view = await client.status(first.id);
    expect(view.startAt).toBe(new Date(T0 + 11 * SECOND).toISOString());
    expect(indexed).toEqual([]);
    // Another key, and the same key of another workflow, are windows of their own.
    const other = await client.start('reindex', { rev: 9 }, debounce('doc-8'));
    expect(other.id).not.toBe(first.id);
    await clock.advance(5 * SECOND);
    expect(await done(first.id)).toMatchObject({ state: 'SUCCESS' });
    await done(other.id);
    expect(indexed.sort()).toEqual([3, 9]);
    // The window closed with its job's start: the next start is a new job.
    const next = await client.start('reindex', { rev: 4 }, debounce('doc-7'));
    expect(next.id).not.toBe(first.id);
    await clock.advance(5 * SECOND);
    await done(next.id);
    expect(indexed.sort()).toEqual([3, 4, 9]);
    expect((await store.listJobs({ workflow: 'reindex' })).length).toBe(3);
  });

  it('trailing: starts that keep coming run it maxDelayMs after the first', async () => {
    const options = debounce('busy', 5 * SECOND, { maxDelayMs: 12 * SECOND });
    const first = await client.start('reindex', { rev: 0 }, options);
    // Starts at 4, 8 and 11 s: each before the window's start time (9, 12, 12 s), so none
    // races the worker that fires it.
    for (const [rev, gap] of [4, 4, 3].entries()) {
      await clock.advance(gap * SECOND);
      expect((await client.start('reindex', { rev: rev + 1 }, options)).id).toBe(first.id);
    }
    // The last start (at 11 s) would move it to 16 s; the cap holds it at 12 s.
    expect((await client.status(first.id)).startAt).toBe(new Date(T0 + 12 * SECOND).toISOString());
    expect(indexed).toEqual([]);
    await clock.advance(SECOND);
    await done(first.id);
    expect(indexed).toEqual([3]);
  });

  it('trailing, code-first: the instance runs with the last input', async () => {
    const first = await client.start(summarise, { rev: 1 }, debounce('d'));
    await clock.advance(2 * SECOND);
    const again = await client.start(summarise, { rev: 2 }, debounce('d'));
    expect(again.id).toBe(first.id);
    expect(again.input).toEqual([{ rev: 2 }]);
    await clock.advance(5 * SECOND);
    expect(await done(first.id)).toMatchObject({ state: 'SUCCESS', output: 'summary of rev 2' });
  });

  it('leading: the first start runs at once; the rest of the window get its job', async () => {
    const options = debounce('doc-1', 5 * SECOND, { mode: 'leading' });
    const first = await client.start('reindex', { rev: 1 }, options);
    await done(first.id);
    expect(indexed).toEqual([1]);
    await clock.advance(4 * SECOND);
    expect((await client.start('reindex', { rev: 2 }, options)).id).toBe(first.id);
    // Each start keeps the window open delayMs more.
    await clock.advance(4 * SECOND);
    expect((await client.start('reindex', { rev: 3 }, options)).id).toBe(first.id);
    await clock.advance(5 * SECOND);
    const later = await client.start('reindex', { rev: 4 }, options);
    expect(later.id).not.toBe(first.id);
    await done(later.id);
    expect(indexed).toEqual([1, 4]);
  });

  it('a cancelled window job is not joined: the next start is a new job', async () => {
    const first = await client.start('reindex', { rev: 1 }, debounce('c'));
    await client.cancel(first.id);
    const second = await client.start('reindex', { rev: 2 }, debounce('c'));
    expect(second.id).not.toBe(first.id);
    await clock.advance(5 * SECOND);
    await done(second.id);
    expect(indexed).toEqual([2]);
    expect((await client.status(first.id)).state).toBe('FAILURE');
  });

  it('makes twenty starts with one key at once one job, with one of their inputs', async () => {
    const started = await Promise.all(
      Array.from({ length: 20 }, (_, rev) => client.start('reindex', { rev }, debounce('burst'))),
    );
    expect(new Set(started.map((j) => j.id)).size).toBe(1);
    await clock.advance(5 * SECOND);
    await done(started[0]?.id as string);
    expect(indexed.length).toBe(1);
    expect((await store.listJobs({ workflow: 'reindex' })).length).toBe(1);
  });

  it('an idempotency key given with a start that joined a window names the window job', async () => {
    const first = await client.start('reindex', { rev: 1 }, debounce('i'));
    const joined = await client.start(
      'reindex',
      { rev: 2 },
      { ...debounce('i'), idempotencyKey: 'delivery-2' },
    );
    expect(joined.id).toBe(first.id);
    const again = await client.start('reindex', { rev: 3 }, { idempotencyKey: 'delivery-2' });
    expect(again.id).toBe(first.id);
  });

  it('refuses bad options before anything is stored', async () => {
    const refusal = (options: Parameters<typeof client.start>[2]) =>
      client.start('reindex', { rev: 1 }, options as never).then(
        () => 'started',
        (e: Error) => (e instanceof ValidationError ? e.message : `other: ${e.message}`),
      );
    expect(await refusal({ debounce: { key: '', delayMs: 10 } })).toBe(
      'start: debounce.key "" is not a string of 1 to 200 characters',
    );
    expect(await refusal({ debounce: { key: 'k', delayMs: 0 } })).toMatch(
      /^start: debounce.delayMs 0 is not a whole number of ms from 1 to /,
    );
    expect(await refusal({ debounce: { key: 'k', delayMs: 10, maxDelayMs: 5 } })).toMatch(
      /^start: debounce.maxDelayMs 5 is not a whole number of ms from delayMs \(10\) to /,
    );
    expect(await refusal({ debounce: { key: 'k', delayMs: 10, mode: 'middle' as never } })).toBe(
      'start: debounce.mode "middle" is not one of trailing, leading',
    );
    expect(await refusal({ debounce: { key: 'k', delayMs: 10 }, delayMs: 5 })).toBe(
      'start: a debounced start takes no startAt or delayMs: its window decides when it starts',
    );
    expect(await refusal({ debounce: { key: 'k', delayMs: 10 }, queue: 'q' })).toBe(
      'start: a trailing debounce takes no queue (its job starts when its window closes); use mode leading with a queue',
    );
    expect(await store.listJobs({})).toEqual([]);
  });

  it('store: a claim writes a free window, else returns the one stored; put and prune', async () => {
    const window = {
      workflow: 'w',
      key: 'k',
      job: 'j1',
      mode: 'trailing' as const,
      firstAt: T0,
      untilAt: T0 + 100,
      starts: 1,
      held: [{ stream: 'engine', job: 'j1', payload: { k: 'enter', job: 'j1' } }],
    };
    expect(await store.claimDebounce(window)).toEqual(window);
    expect(await store.claimDebounce({ ...window, job: 'j2', held: [] })).toEqual(window);
    await store.putDebounce({ ...window, untilAt: T0 + 200, starts: 2 });
    expect(await store.claimDebounce({ ...window, job: 'j3' })).toMatchObject({
      job: 'j1',
      untilAt: T0 + 200,
      starts: 2,
    });
    expect(await store.pruneDebounces(T0 + 200)).toBe(0);
    expect(await store.pruneDebounces(T0 + 201)).toBe(1);
    expect((await store.claimDebounce({ ...window, job: 'j4' })).job).toBe('j4');
  });
});
