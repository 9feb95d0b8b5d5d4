/**
 * What a workflow can wait for and start: task failures (an onFailure branch and a
 * catchable TaskFailedError), waits (event, duration, date, event with timeout), child
 * workflows, dispatch, events to itself, and recorded values.
 */
import { describe, expect, it } from 'vitest';
import { TaskFailedError } from '../../src/core/errors.js';
import {
  defineTask,
  defineWorkflow,
  type ValueSource,
  Workflow,
  type WorkInfo,
} from '../../src/durable/index.js';
import { Simulator } from './support/simulator.js';

const MINUTE = 60_000;
const charge = defineTask('charge', async (input: { amount: number }) => {
  if (input.amount > 100) throw new Error('card declined');
  return { ok: true };
});
const ship = defineTask('ship', async (input: { to: string }) => `shipped to ${input.to}`);

describe('task failure', () => {
  const order = defineWorkflow(
    'order',
    class extends Workflow {
      failures: string[] = [];
      async handle(amount: number) {
        try {
          await this.execute(charge, { amount });
          return 'paid';
        } catch (error) {
          if (error instanceof TaskFailedError) return `not paid: ${error.failure.message}`;
          throw error;
        }
      }
      onFailure(work: WorkInfo, error: TaskFailedError) {
        this.failures = [...this.failures, `${work.name}: ${error.failure.message}`];
      }
    },
  );

  it('runs onFailure and throws a catchable TaskFailedError in handle', async () => {
    const sim = new Simulator({ workflows: [order], tasks: [charge] });
    const id = sim.start(order, [500]);
    await sim.run();
    const instance = sim.instance(id);
    expect(instance.output).toBe('not paid: card declined');
    const failure = instance.branches.find((b) => b.type === 'onFailure');
    expect(failure).toMatchObject({ task_name: 'charge', error_name: 'Error' });
    expect(instance.statuses[0]).toMatchObject({
      status: 'failed',
      error: { message: 'card declined' },
    });
    expect(instance.properties.at(-1)?.values).toEqual({ failures: ['charge: card declined'] });
  });

  it('an uncaught failure fails the instance', async () => {
    const strict = defineWorkflow('strict', {
      async handle() {
        return await this.execute([ship, { to: 'x' }], [charge, { amount: 1000 }]);
      },
    });
    const sim = new Simulator({ workflows: [strict], tasks: [charge, ship] });
    const id = sim.start(strict, []);
    await sim.run();
    expect(sim.instance(id).state).toBe('failed');
    expect(sim.instance(id).error).toMatchObject({ name: 'TaskFailedError', code: 'TASK_FAILED' });
    expect(sim.effects.at(-1)?.effect).toMatchObject({ type: 'failed' });
  });
});

describe('waits', () => {
  const waits = defineWorkflow(
    'waits',
    class extends Workflow {
      async handle(mode: 'event' | 'duration' | 'until' | 'timeout') {
        if (mode === 'event') return await this.waitForEvent('go');
        if (mode === 'duration') {
          await this.waitFor(10 * MINUTE);
          return this.date().getTime();
        }
        if (mode === 'until') {
          await this.waitUntil(Date.UTC(2026, 0, 2));
          return this.date().getTime();
        }
        return await this.waitForEvent('go', { timeoutMs: 5 * MINUTE });
      }
    },
  );
  const start = Date.UTC(2026, 0, 1);
  const clock: ValueSource = { now: () => sim.now, random: () => 0.5, uuid: () => 'u' };
  let sim = new Simulator({ workflows: [waits], now: start, values: clock });
  const fresh = () => {
    sim = new Simulator({ workflows: [waits], now: start, values: clock });
    return sim;
  };

  it('for an event: resolves with its data', async () => {
    const s = fresh();
    const id = s.start(waits, ['event']);
    await s.run();
    expect(s.instance(id).state).toBe('running');
    expect(s.instance(id).waits).toEqual([
      expect.objectContaining({ event: 'go', timestamp: null }),
    ]);
    s.sendEvent(id, 'go', { n: 1 });
    await s.run();
    expect(s.instance(id).output).toEqual({ n: 1 });
  });

  it('for a duration: counted from the decision that reached it', async () => {
    const s = fresh();
    const id = s.start(waits, ['duration']);
    await s.run();
    expect(s.instance(id).output).toBe(start + 10 * MINUTE);
  });

  it('until a date', async () => {
    const s = fresh();
    const id = s.start(waits, ['until']);
    await s.run();
    expect(s.instance(id).output).toBe(Date.UTC(2026, 0, 2));
  });

  it('for an event with a timeout: null on timeout, the data when it comes first', async () => {
    const s = fresh();
    const late = s.start(waits, ['timeout']);
    await s.run();
    expect(s.instance(late).output).toBeNull();
    const early = s.start(waits, ['timeout']);
    await s.decide(early);
    s.advance(MINUTE);
    s.sendEvent(early, 'go', 'yes');
    expect(s.timers).toEqual([]);
    await s.run();
    expect(s.instance(early).output).toBe('yes');
  });
});

describe('child workflows', () => {
  const child = defineWorkflow(
    'child',
    class extends Workflow {
      async handle(to: string, times: number) {
        const label = await this.execute(ship, { to });
        return `${label} x${times}`;
      }
    },
  );

  it('execute waits for the child output; dispatch does not', async () => {
    const parent = defineWorkflow(
      'parent',
      class extends Workflow {
        async handle() {
          await this.dispatch(child, 'nowhere', 0);
          const label: string = await this.execute(child, 'Paris', 2);
          return label;
        }
      },
    );
    const sim = new Simulator({ workflows: [parent, child], tasks: [ship] });
    const id = sim.start(parent, []);
    await sim.run();
    const starts = sim.effects.filter(({ effect }) => effect.type === 'startChild');
    expect(starts.map(({ effect }) => effect)).toEqual([
      expect.objectContaining({ workflow: 'child', input: ['nowhere', 0], sync: false }),
      expect.objectContaining({ workflow: 'child', input: ['Paris', 2], sync: true }),
    ]);
    expect(sim.instance(id).output).toBe('shipped to Paris x2');
    // The child's id is its work uuid, so starting it twice would find the same child.
    const childId = starts[1]?.effect.type === 'startChild' ? starts[1].effect.uuid : '';
    expect(sim.instance(childId).output).toBe('shipped to Paris x2');
  });
});

describe('dispatch and events', () => {
  it('dispatch does not make handle wait or run again when the task completes', async () => {
    const fire = defineWorkflow(
      'fire',
      class extends Workflow {
        async handle() {
          await this.dispatch(ship, { to: 'Rome' });
          return await this.execute(charge, { amount: 5 });
        }
      },
    );
    const sim = new Simulator({ workflows: [fire], tasks: [ship, charge] });
    const id = sim.start(fire, []);
    await sim.decide(id);
    sim.startWork('ship');
    sim.startWork('charge');
    await sim.run();
    const instance = sim.instance(id);
    expect(instance.output).toEqual({ ok: true });
    const handleRuns = instance.executions.filter((k) => k === 0).length;
    expect(handleRuns).toBe(2); // the start, and after charge; not after ship
    expect(instance.statuses.find((s) => s.name === 'ship')).toMatchObject({
      sync: false,
      status: 'completed',
    });
  });

  it('send delivers an event to this instance through the runtime', async () => {
    const selfish = defineWorkflow(
      'selfish',
      class extends Workflow {
        got: string[] = [];
        async handle() {
          await this.send('hello', 'me');
          await this.sendTo('other-instance', 'hi', 1);
          return await this.waitForEvent('hello');
        }
        onEvent(name: string, data: unknown) {
          this.got = [...this.got, `${name}:${String(data)}`];
        }
      },
    );
    const sim = new Simulator({ workflows: [selfish] });
    const id = sim.start(selfish, []);
    await sim.run();
    const sends = sim.effects
      .filter(({ effect }) => effect.type === 'sendEvent')
      .map((e) => e.effect);
    expect(sends).toEqual([
      { type: 'sendEvent', instance: id, name: 'hello', data: 'me' },
      { type: 'sendEvent', instance: 'other-instance', name: 'hi', data: 1 },
    ]);
    expect(sim.instance(id).output).toBe('me');
    expect(sim.instance(id).properties.at(-1)?.values).toEqual({ got: ['hello:me'] });
  });
});

describe('recorded values', () => {
  it('date, random and uuid come from the source once, then from history', async () => {
    const calls = { now: 0, random: 0, uuid: 0 };
    const source: ValueSource = {
      now: () => 1_000 + calls.now++,
      random: () => 0.25 + calls.random++,
      uuid: () => `id-${calls.uuid++}`,
    };
    const stamps = defineWorkflow(
      'stamps',
      class extends Workflow {
        async handle() {
          const first = [this.date().getTime(), this.random(), this.uuid()];
          await this.execute(ship, { to: 'Oslo' });
          await this.execute(ship, { to: 'Bergen' });
          return { first, again: [this.date().getTime()] };
        }
      },
    );
    const sim = new Simulator({ workflows: [stamps], tasks: [ship], values: source });
    const id = sim.start(stamps, []);
    await sim.run();
    expect(sim.instance(id).output).toEqual({ first: [1000, 0.25, 'id-0'], again: [1001] });
    // handle ran three times; each value was drawn once.
    expect(calls).toEqual({ now: 2, random: 1, uuid: 1 });
  });

  it('awaiting something that is not a workflow operation fails with NonDeterminismError', async () => {
    const io = defineWorkflow(
      'io',
      class extends Workflow {
        async handle() {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return 1;
        }
      },
    );
    const sim = new Simulator({ workflows: [io] });
    const id = sim.start(io, []);
    await sim.run();
    expect(sim.instance(id).error).toMatchObject({ name: 'NonDeterminismError' });
  });
});
