/**
 * Pause, resume and terminate: a paused instance keeps buffering actions but starts no
 * decision; resume starts one; terminate ends the instance and cancels its waits.
 */
import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../../src/core/errors.js';
import {
  defineTask,
  defineWorkflow,
  flowStateOf,
  instanceResult,
  instanceStatus,
  resumeInstance,
  Workflow,
} from '../../src/durable/index.js';
import { Simulator } from './support/simulator.js';

const work = defineTask('work', async (n: number) => n * 2);

const doubler = defineWorkflow(
  'doubler',
  class extends Workflow {
    async handle(n: number) {
      return await this.execute(work, n);
    }
  },
);

const waiter = defineWorkflow(
  'waiter',
  class extends Workflow {
    async handle() {
      return await this.waitForEvent('go', { timeoutMs: 60_000 });
    }
  },
);

describe('pause and resume', () => {
  it('buffers actions while paused and decides again on resume', async () => {
    const sim = new Simulator({ workflows: [doubler], tasks: [work] });
    const id = sim.start(doubler, [21]);
    await sim.decide(id);
    sim.control(id, 'pause');
    expect(instanceStatus(sim.instance(id)).life).toBe('paused');
    expect(flowStateOf(sim.instance(id))).toBe('SUSPENDED');
    sim.startWork('work');
    await sim.completeWork('work');
    expect(sim.pending.size).toBe(0);
    expect(sim.instance(id).buffer.map((a) => a.type)).toEqual(['onStart', 'onSuccess']);
    sim.control(id, 'resume');
    expect(sim.pending.size).toBe(1);
    await sim.run();
    expect(instanceResult(sim.instance(id))).toEqual({
      done: true,
      state: 'completed',
      output: 42,
    });
  });

  it('a decision already running when paused is still applied, and no new one starts', async () => {
    const sim = new Simulator({ workflows: [doubler], tasks: [work] });
    const id = sim.start(doubler, [1]);
    const { outcome } = await sim.compute(id);
    sim.control(id, 'pause');
    sim.apply(id, outcome);
    expect(sim.effects.some(({ effect }) => effect.type === 'scheduleTask')).toBe(true);
    sim.startWork('work');
    expect(sim.pending.size).toBe(0);
    sim.control(id, 'resume');
    await sim.run();
    expect(sim.instance(id).output).toBe(2);
  });
});

describe('terminate', () => {
  it('ends the instance, cancels its waits and ignores later actions', async () => {
    const sim = new Simulator({ workflows: [waiter] });
    const id = sim.start(waiter, []);
    await sim.decide(id);
    expect(sim.timers).toHaveLength(1);
    sim.control(id, 'terminate');
    const instance = sim.instance(id);
    expect(instance.state).toBe('terminated');
    expect(instance.waits).toEqual([]);
    expect(sim.timers).toHaveLength(0);
    expect(sim.effects.map(({ effect }) => effect.type).slice(-2)).toEqual([
      'cancelWait',
      'terminated',
    ]);
    sim.sendEvent(id, 'go', 1);
    expect(sim.instance(id)).toBe(instance);
    expect(instanceResult(instance)).toEqual({ done: true, state: 'terminated', error: null });
  });

  it('cannot resume or terminate an instance that has ended', async () => {
    const sim = new Simulator({ workflows: [doubler], tasks: [work] });
    const id = sim.start(doubler, [1]);
    await sim.run();
    expect(() => sim.control(id, 'terminate')).toThrow(InvalidStateError);
    expect(() => resumeInstance(sim.instance(id), sim.now)).toThrow(InvalidStateError);
    expect(() => sim.control(id, 'pause')).toThrow(/completed -> paused/);
  });
});
