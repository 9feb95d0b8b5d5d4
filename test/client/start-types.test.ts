/**
 * `Client.start` typed from a code-first `WorkflowDefinition`: its `handle` arguments are
 * the input a start takes, its result the output the job's result carries. Checked by
 * `npm run typecheck` (tsc over test/); the calls never run.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  type Client,
  defineWorkflow,
  type JobRecord,
  type Json,
  Workflow,
  type WorkflowBuilder,
  workflow,
} from 'weft-engine';

interface Order {
  id: string;
  amount: number;
}

const order = defineWorkflow(
  'order',
  class extends Workflow {
    async handle(o: Order) {
      return { receipt: `R-${o.id}`, total: o.amount };
    }
  },
);
const pair = defineWorkflow(
  'pair',
  class extends Workflow {
    async handle(to: string, times: number) {
      return times > 1 ? [to, to] : [to];
    }
  },
);
const batch = defineWorkflow(
  'batch',
  class extends Workflow {
    async handle(ids: string[]) {
      return ids.length;
    }
  },
);

// Never called: only its types are checked.
async function typedStarts(client: Client) {
  const job = await client.start(order, { id: 'A1', amount: 42 });
  const done = await client.result(job, { wait: true });
  expectTypeOf(done.output).toEqualTypeOf<{ receipt: string; total: number } | null>();
  // The arguments of `handle` as an array work too, and a custom id still goes in options.
  await client.start(order, [{ id: 'A2', amount: 1 }], { id: 'order-A2' });
  // @ts-expect-error: `amount` must be a number
  await client.start(order, { id: 'A3', amount: '1' });
  // @ts-expect-error: `handle` needs an order
  await client.start(order);

  const two = await client.start(pair, ['Oslo', 2]);
  expectTypeOf((await client.result(two)).output).toEqualTypeOf<string[] | null>();
  // @ts-expect-error: two arguments go as an array
  await client.start(pair, 'Oslo');

  // One array argument is passed inside the arguments array, as it is at run time.
  await client.start(batch, [['a', 'b']]);
  // @ts-expect-error: a bare array would be spread into `handle`'s arguments
  await client.start(batch, ['a', 'b']);

  // By name, untyped as before.
  const byName = await client.start('order', { id: 'A4', amount: 3 });
  expectTypeOf(byName).toMatchTypeOf<JobRecord>();
  expectTypeOf((await client.result(byName.id)).output).toEqualTypeOf<Json>();
}

describe('Client.start from a WorkflowDefinition', () => {
  it('types flow from handle() to the start input and the result output', () => {
    expectTypeOf(typedStarts).returns.resolves.toBeVoid();
  });

  it('the graph builder is exported from the package', () => {
    expectTypeOf(workflow).returns.toEqualTypeOf<WorkflowBuilder<never>>();
  });
});
