/**
 * A code-first workflow: an order that reserves stock for every line in parallel, waits
 * up to a day for an approval event, charges the card, ships, and emails the customer
 * without waiting. Types flow from each task into the workflow code.
 */
import { defineTask, defineWorkflow, Workflow } from 'weft-engine';

/** One order line. */
export interface OrderLine {
  sku: string;
  qty: number;
}

/** What the workflow is started with. */
export interface Order {
  id: string;
  email: string;
  address: string;
  amount: number;
  lines: OrderLine[];
}

/** Reserves stock for one line. */
export const reserveStock = defineTask('reserve-stock', async (line: OrderLine) => ({
  sku: line.sku,
  reserved: line.qty,
}));

/** Charges the customer's card. */
export const chargeCard = defineTask(
  'charge-card',
  async (input: { orderId: string; amount: number }) => ({ receipt: `R-${input.orderId}` }),
  { timeoutMs: 30_000 },
);

/** Hands the parcel to the carrier. */
export const shipOrder = defineTask(
  'ship-order',
  async (input: { orderId: string; address: string }) => ({ tracking: `T-${input.orderId}` }),
);

/** Sends an email. */
export const sendEmail = defineTask(
  'send-email',
  async (input: { to: string; subject: string }) => {
    return { sent: input.subject.length > 0 };
  },
);

const DAY = 24 * 60 * 60 * 1000;

/** The order workflow. */
export const orderWorkflow = defineWorkflow(
  'order',
  class OrderWorkflow extends Workflow {
    // Properties: JSON fields, shared by every branch of the instance.
    status = 'new';
    cancelled = false;

    async handle(order: Order) {
      const reservations = await this.execute(
        ...order.lines.map((line) => [reserveStock, line] as const),
      );
      this.status = 'reserved';
      const approval = await this.waitForEvent<{ by: string }>('approved', { timeoutMs: DAY });
      if (approval === null || this.cancelled) {
        this.status = 'cancelled';
        return { status: this.status, reservations };
      }
      const { receipt } = await this.execute(chargeCard, {
        orderId: order.id,
        amount: order.amount,
      });
      const { tracking } = await this.execute(shipOrder, {
        orderId: order.id,
        address: order.address,
      });
      await this.dispatch(sendEmail, { to: order.email, subject: `Order ${order.id} shipped` });
      this.status = 'shipped';
      return {
        status: this.status,
        approvedBy: approval.by,
        receipt,
        tracking,
        shippedAt: this.date().toISOString(),
      };
    }

    onEvent(name: string) {
      if (name === 'cancel') this.cancelled = true;
    }
  },
);
