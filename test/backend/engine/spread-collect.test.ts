/**
 * spread and collect (crossflow): one thread per item, the collected array is exactly
 * what reached the collect, `max` starts new collections, `min` not reached is a disposal,
 * a collect in a cycle, a scoped collect, and the `min: 0, max: 1` fallback pattern.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { GraphEngine } from '../../../src/engine/graph-engine.js';
import {
  ENGINE_STREAM,
  type EngineMessage,
  type TaskMessage,
  taskStream,
} from '../../../src/engine/messages.js';
import type { Json } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store.js';
import type { TaskHandlers } from '../../../src/worker/task-handler.js';
import { EngineStepper, runHandler } from '../../support/engine-stepper.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let close: () => Promise<void>;
let client: Client;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => close());

async function run(yaml: string, handlers: TaskHandlers, input: Json = {}) {
  const wf = compileWorkflow(yaml);
  await client.deploy(wf);
  const job = await client.start(wf.workflow, input);
  await new EngineStepper(store, handlers).runUntilIdle();
  return client.status(job.id);
}

const ORDERS = (collect = '{ kind: collect, min: 1, max: 500 }') => `
workflow: orders
activities:
  start:  { kind: trigger }
  fan:    { kind: spread, items: "input.orders" }
  price:  { kind: task, input: "{ 'item': fan.item, 'index': fan.index }" }
  gather: ${collect}
  report: { kind: task, input: "{ 'prices': gather.output }" }
transitions: { start: [fan], fan: [price], price: [gather], gather: [report] }
end: report
`;

/** A handler that keeps each input it gets in `list` and returns `output()`. */
function keep(list: Json[], output: () => Json) {
  return async (input: Json) => {
    list.push(input);
    return output();
  };
}

const price = async (input: Json) => {
  const { item, index } = input as { item: number; index: number };
  return item * 10 + index;
};

describe('spread and collect', () => {
  it('spreads each item into its own thread and collects every result', async () => {
    const reports: Json[] = [];
    const view = await run(
      ORDERS(),
      { price, report: keep(reports, () => 'reported') },
      { orders: [1, 2, 3] },
    );
    expect(view.state).toBe('SUCCESS');
    expect(view.output).toBe('reported');
    expect(reports).toEqual([{ prices: [10, 21, 32] }]);
    // fan 6, gather 6, price 6, report 6, start 6
    expect(view.collation).toBe('666660000000000');
  });

  it('spreads one item', async () => {
    const reports: Json[] = [];
    const view = await run(ORDERS(), { price, report: keep(reports, () => 'ok') }, { orders: [7] });
    expect(view.state).toBe('SUCCESS');
    expect(reports).toEqual([{ prices: [70] }]);
  });

  it('an empty spread is a disposal: under min the collect disposes too, and the end is unreachable', async () => {
    const view = await run(ORDERS(), { price, report: async () => 'never' }, { orders: [] });
    expect(view.state).toBe('FAILURE');
    expect(view.error).toMatchObject({ code: 'UNREACHABLE', activity: 'gather' });
    expect(view.error?.message).toMatch(/collect gather under its min \(0 of 1\)/);
    // fan 6, gather 3, price 3, report 3, start 6
    expect(view.collation).toBe('633360000000000');
  });

  it('an empty spread with min 0 emits an empty collection', async () => {
    const reports: Json[] = [];
    const view = await run(
      ORDERS('{ kind: collect }'),
      { price, report: keep(reports, () => 'ok') },
      { orders: [] },
    );
    expect(view.state).toBe('SUCCESS');
    expect(reports).toEqual([{ prices: [] }]);
  });

  it('max: emits as soon as it holds max items, later ones go to the next collection', async () => {
    const reports: Json[] = [];
    const view = await run(
      ORDERS('{ kind: collect, max: 2 }').replace('end: report', ''),
      { price, report: keep(reports, () => 'ok') },
      { orders: [1, 2, 3, 4, 5] },
    );
    expect(view.state).toBe('SUCCESS');
    expect(reports).toEqual([{ prices: [10, 21] }, { prices: [32, 43] }, { prices: [54] }]);
  });

  it('min and max: a last collection under min is discarded (a disposal)', async () => {
    const reports: Json[] = [];
    const view = await run(
      ORDERS('{ kind: collect, min: 2, max: 2 }').replace('end: report', ''),
      { price, report: keep(reports, () => 'ok') },
      { orders: [1, 2, 3] },
    );
    expect(view.state).toBe('SUCCESS');
    expect(reports).toEqual([{ prices: [10, 21] }]);
  });

  it('holds only what reaches it: a when not taken in some threads drops their items', async () => {
    const reports: Json[] = [];
    const view = await run(
      ORDERS('{ kind: collect }').replace(
        'price: [gather]',
        'price: [{ to: gather, when: "price.output > 20" }]',
      ),
      { price, report: keep(reports, () => 'ok') },
      { orders: [1, 2, 3] },
    );
    expect(view.state).toBe('SUCCESS');
    expect(reports).toEqual([{ prices: [21, 32] }]);
  });

  it('the fallback pattern: min 0, max 1 emits [] when the branch it watches is not taken', async () => {
    const yaml = `
workflow: fallback
activities:
  start:    { kind: trigger }
  lookup:   { kind: task }
  use:      { kind: task }
  watch:    { kind: collect, min: 0, max: 1 }
  decide:   { kind: task, input: "watch.output" }
transitions:
  start: [lookup]
  lookup: [{ to: use, when: "lookup.output.found" }]
  use: [watch]
  watch: [decide]
`;
    const decisions: Json[] = [];
    const handlers = (found: boolean): TaskHandlers => ({
      lookup: async () => ({ found }),
      use: async () => 'value',
      decide: async (input) => {
        decisions.push(input);
        return (input as Json[]).length === 0 ? 'fallback' : 'primary';
      },
    });
    expect((await run(yaml, handlers(true))).state).toBe('SUCCESS');
    expect((await run(yaml.replace('fallback', 'fallback2'), handlers(false))).state).toBe(
      'SUCCESS',
    );
    expect(decisions).toEqual([['value'], []]);
  });

  it('a collect in a cycle emits once per iteration', async () => {
    const reports: Json[] = [];
    let round = 0;
    const view = await run(
      `
workflow: rounds
activities:
  start:  { kind: trigger }
  fan:    { kind: spread, items: "[1, 2]" }
  work:   { kind: task, input: "fan.item" }
  gather: { kind: collect }
  check:  { kind: task, input: "gather.output" }
  again:  { kind: cycle, ancestor: fan, max: 5 }
transitions:
  start: [fan]
  fan: [work]
  work: [gather]
  gather: [check]
  check: [{ to: again, when: "check.output < 3" }]
`,
      {
        work: async (input) => (input as number) * 100,
        check: keep(reports, () => ++round),
      },
    );
    expect(view.state).toBe('SUCCESS');
    expect(reports).toEqual([
      [100, 200],
      [100, 200],
      [100, 200],
    ]);
  });

  it('a collect in a scope watches only the scope', async () => {
    const seen: Json[] = [];
    const view = await run(
      `
workflow: scoped-collect
activities:
  start: { kind: trigger }
  slow:  { kind: task }
  batch:
    kind: scope
    activities:
      fan:    { kind: spread, items: "input.items" }
      double: { kind: task, input: "fan.item * 2" }
      gather: { kind: collect }
    transitions: { fan: [double], double: [gather] }
    output: "gather.output"
  after: { kind: task, input: "batch.output" }
transitions: { start: [slow, batch], batch: [after] }
`,
      {
        // The scope's collect emits although slow (outside it) has not run yet: the
        // stepper runs handlers in this order, and slow's comes last.
        double: async (input) => input,
        after: keep(seen, () => 'done'),
        slow: async () => {
          seen.push('slow');
          return 'slow';
        },
      },
      { items: [1, 2] },
    );
    expect(view.state).toBe('SUCCESS');
    expect(seen).toEqual([[2, 4], 'slow']);
  });

  it("counts the threads on the spread's semaphore (seed 001): entries spawned, exits reached", async () => {
    const wf = compileWorkflow(ORDERS());
    await client.deploy(wf);
    const job = await client.start(wf.workflow, { orders: [1, 2, 3] });
    await new EngineStepper(store, { price, report: async () => 'ok' }).runUntilIdle();
    const sem = await store.getCounter({
      job: job.id,
      activity: 'fan',
      dimension: '',
      field: 'sem',
    });
    // Leg1 done (8, 8), Leg2 open (9), 3 threads entered, 3 threads out.
    expect(sem).toBe(889_000_003_000_003n);
  });

  it('the scoped version of two collects in one cycle runs', async () => {
    const rounds: Json[] = [];
    const view = await run(
      `
workflow: two-collects
activities:
  start: { kind: trigger }
  fan:   { kind: spread, items: "[1, 2, 3]" }
  a:     { kind: task, input: "fan.item" }
  left:  { kind: collect }
  inner:
    kind: scope
    activities:
      fan2:  { kind: spread, items: "left.output" }
      b:     { kind: task, input: "fan2.item" }
      right: { kind: collect }
    transitions: { fan2: [b], b: [right] }
    output: "right.output"
  check: { kind: task, input: "inner.output" }
  again: { kind: cycle, ancestor: fan, max: 3 }
transitions:
  start: [fan]
  fan: [a]
  a: [left]
  left: [inner]
  inner: [check]
  check: [{ to: again, when: "check.output < 2" }]
`,
      {
        a: async (input) => (input as number) + 1,
        b: async (input) => (input as number) * 10,
        check: keep(rounds, () => rounds.length),
      },
    );
    expect(view.error ?? null).toBeNull();
    expect(view.state).toBe('SUCCESS');
    expect(rounds).toEqual([
      [20, 30, 40],
      [20, 30, 40],
    ]);
  });

  it('spreads 10,000 items through one task and collects exactly them', {
    timeout: 120_000,
  }, async () => {
    const wf = compileWorkflow(ORDERS('{ kind: collect }'));
    await client.deploy(wf);
    const count = Number(process.env.WEFT_SPREAD_COUNT ?? 10_000);
    const orders = Array.from({ length: count }, (_, i) => i);
    const job = await client.start(wf.workflow, { orders });
    let collected: Json = null;
    const handlers: TaskHandlers = {
      price: async (input) => (input as { item: number }).item,
      report: async (input) => {
        collected = (input as { prices: Json }).prices;
        return 'ok';
      },
    };
    // Batches, as a worker runs them: up to 500 engine messages or task results a commit.
    const engine = new GraphEngine();
    const consumer = 'big';
    for (;;) {
      const steps = await store.claim(ENGINE_STREAM, { consumer, max: 500, leaseMs: 60_000 });
      if (steps.length > 0) {
        await store.transaction(async (tx) => {
          await engine.handleBatch(
            tx,
            steps.map((m) => m.payload as unknown as EngineMessage),
          );
          await tx.ackMany(
            ENGINE_STREAM,
            steps.map((m) => m.id),
            consumer,
          );
        });
        continue;
      }
      let ran = false;
      for (const name of ['price', 'report']) {
        const tasks = await store.claim(taskStream(name), { consumer, max: 500, leaseMs: 60_000 });
        if (tasks.length === 0) continue;
        ran = true;
        const responses = await Promise.all(
          tasks.map((m) => runHandler(store, handlers, m.payload as unknown as TaskMessage)),
        );
        await store.transaction(async (tx) => {
          await tx.ackMany(
            taskStream(name),
            tasks.map((m) => m.id),
            consumer,
          );
          await engine.respondBatch(tx, responses);
        });
      }
      if (!ran) break;
    }
    const view = await client.status(job.id);
    expect(view.state).toBe('SUCCESS');
    expect(collected).toHaveLength(count);
    expect([...(collected as unknown as number[])].sort((x, y) => x - y)).toEqual(orders);
    const sem = await store.getCounter({
      job: job.id,
      activity: 'fan',
      dimension: '',
      field: 'sem',
    });
    expect(sem).toBe(889_000_000_000_000n + BigInt(count) * 1_000_001n);
  });

  it('runs examples/orders-crossflow.yaml as the README shows', async () => {
    const module = new URL('../../../examples/orders-crossflow.js', import.meta.url).href;
    const handlers = (await import(module)).default as TaskHandlers;
    const yaml = readFileSync(
      new URL('../../../examples/orders-crossflow.yaml', import.meta.url),
      'utf8',
    );
    const ok = await run(yaml, handlers, {
      lines: [
        { sku: 'tea', qty: 2 },
        { sku: 'pot', qty: 1, gift: true },
      ],
    });
    expect(ok.output).toEqual({ lines: 2, sum: 38, note: 'gift: pot wrapped' });
    const none = await run(yaml, handlers, { lines: [] });
    expect(none.state).toBe('FAILURE');
    expect(none.error).toMatchObject({ code: 'UNREACHABLE', activity: 'gather' });
  });

  it('more than 999,999 items is a SpreadLimitError, never a wrap of the thread counters', async () => {
    const view = await run(ORDERS().replace('items: "input.orders"', 'items: "[1..1000000]"'), {
      price,
      report: async () => 'never',
    });
    expect(view.state).toBe('FAILURE');
    expect(view.error).toMatchObject({ code: 'SPREAD_LIMIT' });
    expect(view.error?.message).toMatch(/1000000 items: at most 999999 threads/);
  });
});
