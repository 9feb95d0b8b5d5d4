/**
 * The saga of examples/saga.yaml as a code-first workflow: each task names the task
 * that undoes it, and the workflow reverts on failure. When `handle()` throws — here
 * because `ship` fails and nothing catches it — the tasks that finished are undone
 * newest first and the instance ends REVERTED.
 *
 *   npx weft run examples/code-first-saga.ts --input '["tea"]'
 */
import { defineTask, defineWorkflow, Workflow } from 'weft-engine';

/** What a revert task receives: the run it undoes. */
interface Run<I, O> {
  input: I;
  output: O | null;
  error: { message: string } | null;
}

/** Gives the stock back. */
export const release = defineTask(
  'release',
  async (run: Run<{ sku: string }, { hold: string }>) => {
    console.log(`release: undoing ${run.output?.hold}`);
    return { released: run.output?.hold ?? null };
  },
);

/** Pays the money back. */
export const refund = defineTask(
  'refund',
  async (run: Run<{ amount: number }, { receipt: string }>) => {
    console.log(`refund: undoing ${run.output?.receipt}`);
    return { refunded: run.input.amount };
  },
);

/** Reserves stock. */
export const reserve = defineTask(
  'reserve',
  async (input: { sku: string }) => ({ hold: `H-${input.sku}` }),
  { revert: release },
);

/** Charges the card. */
export const charge = defineTask(
  'charge',
  async (input: { amount: number }) => ({ receipt: `R-${input.amount}` }),
  { revert: refund },
);

/** Books a courier; this one never finds one. */
export const ship = defineTask(
  'ship',
  async (_input: { to: string }): Promise<{ courier: string }> => {
    throw new Error('no courier today');
  },
);

/** Reserve, charge, ship — or undo what was done. */
export const saga = defineWorkflow(
  'code-first-saga',
  class extends Workflow {
    async handle(sku: string) {
      const { hold } = await this.execute(reserve, { sku });
      const { receipt } = await this.execute(charge, { amount: 42 });
      const { courier } = await this.execute(ship, { to: '1 Main St' });
      return { hold, receipt, courier };
    }
  },
  { onFailure: 'revert' },
);
