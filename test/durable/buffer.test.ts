/**
 * The buffer's two use cases from the seed: an event that arrives during the decision
 * that creates its wait is not lost, and an overdue duration wait is released in time
 * order among actions received while the decision was late.
 */
import { describe, expect, it } from 'vitest';
import { defineTask, defineWorkflow, propertiesAt, Workflow } from '../../src/durable/index.js';
import { Simulator } from './support/simulator.js';

const MINUTE = 60_000;

describe('buffer use case 1: an event during the decision that creates its wait', () => {
  const approval = defineWorkflow(
    'approval-wait',
    class extends Workflow {
      async handle() {
        return await this.waitForEvent<{ by: string }>('approved');
      }
    },
  );

  it('releases the wait', async () => {
    const sim = new Simulator({ workflows: [approval] });
    const id = sim.start(approval, []);
    const { outcome } = await sim.compute(id); // the decision runs: handle reaches the wait
    sim.now += 1_000;
    sim.sendEvent(id, 'approved', { by: 'ann' }); // arrives before the decision is applied
    sim.apply(id, outcome);
    expect(sim.instance(id).waits).toEqual([]); // released at once, no wait left running
    await sim.run();
    const instance = sim.instance(id);
    expect(instance.state).toBe('completed');
    expect(instance.output).toEqual({ by: 'ann' });
    expect(instance.branches.map((b) => b.type)).toEqual([
      'handle',
      'onStart',
      'onEvent',
      'onSuccess',
    ]);
    expect(sim.effects.some(({ effect }) => effect.type === 'startWait')).toBe(false);
  });

  it('an event consumed by an earlier decision does not release a later wait', async () => {
    const step = defineTask('step', async () => null);
    const late = defineWorkflow(
      'late-wait',
      class extends Workflow {
        async handle() {
          await this.execute(step);
          return await this.waitForEvent('go', { timeoutMs: MINUTE });
        }
      },
    );
    const sim = new Simulator({ workflows: [late], tasks: [step] });
    const id = sim.start(late, []);
    await sim.decide(id);
    sim.sendEvent(id, 'go', 'too early');
    await sim.run();
    expect(sim.instance(id).output).toBeNull(); // timed out: the early event was not kept
  });
});

describe('buffer use case 2: an overdue duration wait', () => {
  const patient = defineWorkflow(
    'patient',
    class extends Workflow {
      log: string[] = [];
      async handle() {
        await this.waitFor(5 * MINUTE);
        this.log = [...this.log, 'waited'];
      }
      onEvent(name: string) {
        this.log = [...this.log, `event:${name}`];
      }
    },
  );

  it('is released at its end time, before an action received later', async () => {
    const sim = new Simulator({ workflows: [patient] });
    const id = sim.start(patient, []);
    const t0 = sim.now;
    const { outcome } = await sim.compute(id); // triggered at t0; the agent is slow
    sim.now = t0 + 7 * MINUTE;
    sim.sendEvent(id, 'ping'); // received at t0+7min, while the decision is still out
    sim.now = t0 + 10 * MINUTE;
    sim.apply(id, outcome); // the 5-minute wait is already over: it ended at t0+5min
    // The next decision was prepared from the buffer in time order: onStart(wait) at t0,
    // onSuccess(wait) at t0+5min (and handle again), then onEvent at t0+7min.
    const prepared = sim.instance(id);
    expect(prepared.branches.map((b) => b.type)).toEqual([
      'handle',
      'onStart',
      'onSuccess',
      'onEvent',
    ]);
    expect(prepared.executions).toEqual([0, 1, 2, 0, 3]);
    await sim.run();
    const instance = sim.instance(id);
    expect(propertiesAt(instance.properties, instance.executions.length)).toEqual({
      log: ['waited', 'event:ping'],
    });
    expect(instance.state).toBe('completed');
  });

  it('a timer that fires on time is ordered by the wait end as well', async () => {
    const sim = new Simulator({ workflows: [patient] });
    const id = sim.start(patient, []);
    await sim.decide(id);
    expect(sim.instance(id).waits).toHaveLength(1);
    sim.advance(5 * MINUTE);
    sim.sendEvent(id, 'ping');
    await sim.run();
    expect(propertiesAt(sim.instance(id).properties, 99)).toEqual({
      log: ['waited', 'event:ping'],
    });
  });
});
