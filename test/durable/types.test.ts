/**
 * Types flow from task and workflow definitions into workflow code: `execute` returns a
 * task's output type, a parallel `execute` a tuple in argument order, a child workflow
 * its `handle` result; wrong inputs do not compile.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  defineTask,
  defineWorkflow,
  Workflow,
  type WorkflowDefinition,
} from '../../src/durable/index.js';

const charge = defineTask('charge', async (input: { amount: number }) => ({
  ok: input.amount > 0,
}));
const ship = defineTask('ship', async (input: { to: string }) => `shipped to ${input.to}`);
const ping = defineTask('ping', async () => 1);

describe('typed definitions', () => {
  it('a task carries its input and output types', () => {
    expectTypeOf(charge.run).parameter(0).toEqualTypeOf<{ amount: number }>();
    expectTypeOf(charge.run).returns.resolves.toEqualTypeOf<{ ok: boolean }>();
  });

  it('execute, parallel execute and child workflows are typed in workflow code', () => {
    const child = defineWorkflow(
      'child',
      class extends Workflow {
        async handle(to: string, times: number) {
          return { to, times };
        }
      },
    );
    expectTypeOf(child).toEqualTypeOf<
      WorkflowDefinition<[to: string, times: number], { to: string; times: number }>
    >();

    const order = defineWorkflow(
      'order',
      class extends Workflow {
        async handle(amount: number) {
          const out = await this.execute(charge, { amount });
          expectTypeOf(out).toEqualTypeOf<{ ok: boolean }>();
          const pair = await this.execute([charge, { amount: 5 }], [ship, { to: 'Oslo' }]);
          expectTypeOf(pair).toEqualTypeOf<[{ ok: boolean }, string]>();
          const one = await this.execute(ping);
          expectTypeOf(one).toEqualTypeOf<number>();
          const fromChild = await this.execute(child, 'Paris', 2);
          expectTypeOf(fromChild).toEqualTypeOf<{ to: string; times: number }>();
          const mixed = await this.execute([child, 'Rome', 1], [ping]);
          expectTypeOf(mixed).toEqualTypeOf<[{ to: string; times: number }, number]>();
          const coupon = await this.waitForEvent<string>('coupon', { timeoutMs: 1000 });
          expectTypeOf(coupon).toEqualTypeOf<string | null>();
          // @ts-expect-error wrong input type
          await this.execute(charge, { amount: 'five' });
          // @ts-expect-error missing input
          await this.execute(charge);
          // @ts-expect-error wrong input inside a parallel call
          await this.execute([charge, { to: 'x' }], [ship, { to: 'y' }]);
          // @ts-expect-error wrong child arguments
          await this.execute(child, 'Paris');
          return out.ok;
        }
      },
    );
    expectTypeOf(order).toEqualTypeOf<WorkflowDefinition<[amount: number], boolean>>();
  });

  it('an object workflow types `this` with its properties and the workflow API', () => {
    // A method whose result depends on `this` needs its return type written out
    // (TypeScript cannot infer it through ThisType); the class form needs nothing.
    const counter = defineWorkflow('counter', {
      properties: { count: 0 },
      async handle(step: number): Promise<number> {
        this.count += step;
        const shipped = await this.execute(ship, { to: 'Lima' });
        expectTypeOf(shipped).toEqualTypeOf<string>();
        return this.count;
      },
    });
    expectTypeOf(counter).toEqualTypeOf<WorkflowDefinition<[step: number], number>>();
  });
});
