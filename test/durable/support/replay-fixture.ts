/**
 * A workflow that exercises most of what replay must reproduce (recorded values,
 * properties, parallel and sequential tasks, an event wait with timeout), shared by the
 * in-process run and the fresh process of the replay determinism test.
 */
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';

/** Seed of the value source both processes use. */
export const REPLAY_SEED = 42;

/** Prices an item. */
export const price = defineTask('price', async (item: string) => item.length * 10);
/** Reserves stock. */
export const reserve = defineTask('reserve', async (input: { item: string; qty: number }) => ({
  reserved: input.qty,
}));

/** The fixture workflow. */
export const checkout = defineWorkflow(
  'checkout',
  class extends Workflow {
    total = 0;
    notes: string[] = [];
    async handle(items: string[]) {
      const orderId = this.uuid();
      const prices = await this.execute(...items.map((item) => [price, item] as const));
      this.total = prices.reduce((a, b) => a + b, 0);
      const coupon = await this.waitForEvent<string>('coupon', { timeoutMs: 60_000 });
      if (coupon) this.total = Math.round(this.total * 0.9);
      const lucky = this.random() < 0.5;
      for (const item of items) await this.execute(reserve, { item, qty: lucky ? 2 : 1 });
      return { orderId, total: this.total, at: this.date().getTime(), notes: this.notes };
    }
    onEvent(name: string) {
      this.notes = [...this.notes, name];
    }
  },
);
