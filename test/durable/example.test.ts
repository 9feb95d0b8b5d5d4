/** The code-first example in examples/ runs to the end, approved or cancelled. */
import { describe, expect, it } from 'vitest';
import {
  chargeCard,
  type Order,
  orderWorkflow,
  reserveStock,
  sendEmail,
  shipOrder,
} from '../../examples/code-first-order.js';
import { Simulator } from './support/simulator.js';

const order: Order = {
  id: 'o-1',
  email: 'ann@example.com',
  address: '1 Main St',
  amount: 42,
  lines: [
    { sku: 'apple', qty: 3 },
    { sku: 'pear', qty: 1 },
  ],
};

const setup = () =>
  new Simulator({
    workflows: [orderWorkflow],
    tasks: [reserveStock, chargeCard, shipOrder, sendEmail],
  });

describe('examples/code-first-order.ts', () => {
  it('ships an approved order', async () => {
    const sim = setup();
    const id = sim.start(orderWorkflow, [order]);
    await sim.run({ advanceTime: false }); // reserved, now waiting for the approval
    expect(sim.instance(id).waits).toHaveLength(1);
    sim.sendEvent(id, 'approved', { by: 'bob' });
    await sim.run();
    expect(sim.instance(id).output).toMatchObject({
      status: 'shipped',
      approvedBy: 'bob',
      receipt: 'R-o-1',
      tracking: 'T-o-1',
    });
  });

  it('cancels an order when a cancel event came and the approval never did', async () => {
    const sim = setup();
    const id = sim.start(orderWorkflow, [order]);
    await sim.run({ advanceTime: false });
    sim.sendEvent(id, 'cancel');
    await sim.run(); // the day passes
    expect(sim.instance(id).output).toMatchObject({ status: 'cancelled' });
    expect(
      sim.effects.some(
        ({ effect }) => effect.type === 'scheduleTask' && effect.name === 'charge-card',
      ),
    ).toBe(false);
  });
});
