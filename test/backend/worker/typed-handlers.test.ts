/**
 * Graph task handlers written with `defineHandlers`, typed by their signatures instead of
 * cast from `Json`, run in a worker like any handlers: each gets the input its task's
 * expression made, and its result feeds the next task and the job's output. A member
 * that is not a function is refused before any worker starts.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, compileWorkflow, defineHandlers, ValidationError, Worker } from 'weft-engine';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

const order = compileWorkflow(`
workflow: typed-order
activities:
  start:   { kind: trigger }
  charge:  { kind: task, input: "{ 'amount': input.qty * input.price }" }
  receipt: { kind: task, input: "{ 'id': charge.output.id, 'sku': input.sku }" }
transitions:
  start: [charge]
  charge: [receipt]
output: "receipt.output"
`);

interface Signatures {
  charge: (input: { amount: number }) => Promise<{ id: string }>;
  receipt: (input: { id: string; sku: string }) => string;
}

let store: Store;
let close: () => Promise<void>;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => close());

describe('defineHandlers', () => {
  it('runs typed handlers in a worker: inputs as the expressions made them, outputs chained', async () => {
    const seen: unknown[] = [];
    const handlers = defineHandlers<Signatures>({
      charge: async (input, context) => {
        seen.push(input);
        return { id: `C-${input.amount}-${context.attempt}` };
      },
      receipt: (input) => {
        seen.push(input);
        return `${input.sku} paid by ${input.id}`;
      },
    });
    const client = new Client(store);
    await client.deploy(order);
    const worker = new Worker({ store, handlers });
    await worker.start();
    try {
      const job = await client.start('typed-order', { sku: 'tea', qty: 2, price: 4 });
      const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
      expect(done.state).toBe('SUCCESS');
      expect(done.output).toBe('tea paid by C-8-1');
      expect(seen).toEqual([{ amount: 8 }, { id: 'C-8-1', sku: 'tea' }]);
    } finally {
      await worker.stop();
    }
  });

  it('returns the same handlers, refusing a member that is not a function', () => {
    const charge = async (input: { amount: number }) => ({ id: `C-${input.amount}` });
    const handlers = defineHandlers({ charge });
    expect(handlers.charge).toBe(charge);
    expect(() => defineHandlers({ charge: 'nope' } as never)).toThrow(ValidationError);
    expect(() => defineHandlers({ charge: 'nope' } as never)).toThrow(
      'defineHandlers: the handler of task charge must be a function',
    );
  });
});
