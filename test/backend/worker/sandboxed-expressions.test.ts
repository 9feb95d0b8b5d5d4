/**
 * Expressions that are not provably cheap are evaluated outside the worker's transaction,
 * in the expression sandbox, and the step is planned again with their results: jobs get
 * the same outputs as if they had been evaluated in place, at every place an expression
 * stands (task inputs, `when` conditions on many threads of one batch, a spread's items,
 * a scope's and a workflow's output); the store is free for other work meanwhile; and a
 * driver outside any worker (the engine stepper) gets the same answers.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { sharedSandbox } from '../../../src/engine/expression-sandbox.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { EngineStepper } from '../../support/engine-stepper.js';
import { openTestStore } from '../../support/store-under-test.js';

// Every expression below calls a function outside the cheap set ($join, $sort, $map,
// $filter, $contains, $reduce, regular expressions), so each goes to the sandbox.
const everywhere = compileWorkflow(`
workflow: everywhere
activities:
  start: { kind: trigger }
  fan: { kind: spread, items: "$sort(input.numbers)" }
  each: { kind: task, task: double, input: "$reduce([fan.item], function($a, $b) { $a + $b }, 0)" }
  keep: { kind: task, task: echo, input: "$join(['kept', $string(each.output)], '-')" }
  gather: { kind: collect }
  box:
    kind: scope
    activities:
      inner: { kind: task, task: echo, input: "$map(input.words, function($w) { $uppercase($w) })" }
    output: "$join(inner.output, ' ')"
transitions:
  start: [fan, box]
  fan: [each]
  each: [{ to: keep, when: "$contains($string(each.output), /^1/)" }]
  keep: [gather]
output: "{ 'kept': $sort(gather.output), 'box': box.output }"
`);

const runaway = compileWorkflow(`
workflow: runaway
activities:
  start: { kind: trigger }
  work: { kind: task, task: echo, input: "$contains(input.s, /^(a+)+$/)" }
transitions: { start: [work] }
`);

const quick = compileWorkflow(`
workflow: quick
activities:
  start: { kind: trigger }
  work: { kind: task, task: echo, input: "input" }
transitions: { start: [work] }
`);

const handlers = {
  double: async (n: unknown) => (n as number) * 2,
  echo: async (value: unknown) => value,
};

const EXPECTED = {
  // 5..9 doubled: 10, 12, 14, 16, 18; those starting with 1 are kept (all of them).
  kept: ['kept-10', 'kept-12', 'kept-14', 'kept-16', 'kept-18'],
  box: 'A B',
};
const INPUT = { numbers: [9, 7, 5, 8, 6], words: ['a', 'b'] };

let store: Store;
let close: () => Promise<void>;
let client: Client;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
  for (const wf of [everywhere, runaway, quick]) await client.deploy(wf);
});
afterEach(async () => close());
afterAll(() => sharedSandbox().close());

describe('expressions evaluated in the sandbox', () => {
  it('give a worker the same job output as in place, at every kind of place', async () => {
    const worker = new Worker({ store, handlers, concurrency: 8 });
    await worker.start();
    try {
      const jobs = await Promise.all([1, 2, 3].map(() => client.start('everywhere', INPUT)));
      for (const job of jobs) {
        const done = await client.result(job.id, { wait: true, timeoutMs: 60_000 });
        expect(done.error).toBeNull();
        expect(done.state).toBe('SUCCESS');
        expect(done.output).toEqual(EXPECTED);
      }
    } finally {
      await worker.stop();
    }
  }, 120_000);

  it('give the engine stepper (no worker around it) the same output', async () => {
    const job = await client.start('everywhere', INPUT);
    await new EngineStepper(store, handlers).runUntilIdle();
    const done = await client.status(job.id);
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toEqual(EXPECTED);
  }, 120_000);

  it('leave the store free while one runs: a start and a list commit before it is stopped', async () => {
    const worker = new Worker({ store, handlers, concurrency: 8 });
    const stuck = await client.start('runaway', { s: `${'a'.repeat(31)}b` });
    await worker.start();
    try {
      // Wait until the worker's sandbox evaluates the runaway expression.
      while (sharedSandbox().active === 0) await new Promise((r) => setTimeout(r, 10));
      const other = await client.start('quick', { n: 1 });
      await client.list({});
      expect(sharedSandbox().active).toBe(1);
      expect((await client.status(stuck.id)).state).toBe('RUNNING');
      const done = await client.result(other.id, { wait: true, timeoutMs: 60_000 });
      expect(done.output).toEqual({ work: { n: 1 } });
      const failed = await client.result(stuck.id, { wait: true, timeoutMs: 60_000 });
      expect(failed.state).toBe('FAILURE');
      expect(failed.error).toMatchObject({ code: 'EXPRESSION_LIMIT', activity: 'work' });
    } finally {
      await worker.stop();
    }
  }, 120_000);

  it('check a job input before its start: in place for a plain schema, in the sandbox for a pattern', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: typed
input:
  type: object
  required: [n, code]
  properties:
    n: { type: number }
    code: { type: string, pattern: "^[A-Z]{3}$" }
activities:
  start: { kind: trigger }
`),
    );
    await client.deploy(
      compileWorkflow(`
workflow: plain
input: { type: object, properties: { n: { type: number } } }
activities:
  start: { kind: trigger }
`),
    );
    await expect(client.start('plain', { n: 'one' })).rejects.toMatchObject({
      code: 'INVALID_JOB_INPUT',
      where: 'input.n',
    });
    await expect(client.start('typed', { n: 1, code: 'abc' })).rejects.toMatchObject({
      code: 'INVALID_JOB_INPUT',
      where: 'input.code',
    });
    expect(await client.list({})).toEqual([]);
    expect((await client.start('typed', { n: 1, code: 'ABC' })).state).toBe('RUNNING');
    expect((await client.start('plain', { n: 1 })).state).toBe('RUNNING');
  });
});
