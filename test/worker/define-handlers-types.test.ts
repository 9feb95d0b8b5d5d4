/**
 * `defineHandlers` types graph task handlers: given the signatures, each handler's input
 * is typed without a cast and its result checked; without them, handlers that annotate
 * their input are accepted as written, where a plain `TaskHandlers` object refuses them.
 * Checked by `npm run typecheck` (tsc over test/); the handlers never run here.
 */

import { describe, expectTypeOf, it } from 'vitest';
import {
  defineHandlers,
  type TaskContext,
  type TaskHandlers,
  type TypedTaskHandler,
  type WorkerOptions,
} from 'weft-engine';

interface Signatures {
  charge: (input: { amount: number }) => Promise<{ id: string }>;
  log: (input: string) => void;
}

describe('defineHandlers types', () => {
  it('types each input from its signature and checks each result', () => {
    const handlers = defineHandlers<Signatures>({
      charge: async (input, context) => {
        expectTypeOf(input).toEqualTypeOf<{ amount: number }>();
        expectTypeOf(context).toEqualTypeOf<TaskContext>();
        return { id: `C-${input.amount}` };
      },
      log: (input) => {
        expectTypeOf(input).toEqualTypeOf<string>();
      },
    });
    expectTypeOf(handlers.charge).parameter(0).toEqualTypeOf<{ amount: number }>();
    expectTypeOf(handlers).toMatchTypeOf<TaskHandlers>();
    expectTypeOf<TypedTaskHandler<Signatures['charge']>>().returns.toEqualTypeOf<
      Promise<{ id: string }> | { id: string }
    >();
    // The result is usable wherever handlers are.
    expectTypeOf(handlers).toMatchTypeOf<NonNullable<WorkerOptions['handlers']>>();

    defineHandlers<Signatures>({
      // @ts-expect-error: `id` must be a string
      charge: async (input) => ({ id: input.amount }),
      log: () => {},
    });
    defineHandlers<Signatures>({
      // @ts-expect-error: the input has no `amont`
      charge: async (input) => ({ id: `${input.amont}` }),
      log: () => {},
    });
    defineHandlers<Signatures>({
      charge: async () => ({ id: 'C' }),
      log: () => {},
      // @ts-expect-error: no task is called `chrage`
      chrage: async () => ({ id: 'C' }),
    });
    // @ts-expect-error: `log` is missing
    defineHandlers<Signatures>({ charge: async () => ({ id: 'C' }) });
  });

  it('accepts handlers that annotate their own input, which TaskHandlers refuses', () => {
    const charge = async (input: { amount: number }) => ({ id: `C-${input.amount}` });
    const handlers = defineHandlers({ charge });
    expectTypeOf(handlers.charge).parameter(0).toEqualTypeOf<{ amount: number }>();
    // @ts-expect-error: a TaskHandler takes Json, which is not `{ amount: number }`
    const plain: TaskHandlers = { charge };
    expectTypeOf(plain).toEqualTypeOf<TaskHandlers>();
  });
});
