/**
 * The engine functions on their own: start, a repeated report of the same work, a
 * timeout report, and decisions that arrive under a stale uuid after a redelivery.
 */
import { describe, expect, it } from 'vitest';
import {
  applyDecisions,
  defineTask,
  defineWorkflow,
  receiveAction,
  redeliverDecision,
  runDecision,
  seededValueSource,
  startInstance,
  tryTriggerDecision,
  Workflow,
  type WorkInfo,
} from '../../src/durable/index.js';
import { Simulator } from './support/simulator.js';

const job = defineTask('job', async () => 'ok', { timeoutMs: 1_000 });
const watched = defineWorkflow(
  'watched',
  class extends Workflow {
    timeouts: string[] = [];
    async handle() {
      return await this.execute(job);
    }
    onTimeout(work: WorkInfo) {
      this.timeouts = [...this.timeouts, work.name];
    }
  },
);

describe('engine', () => {
  it('starts with the seed structure: handle buffered, properties(0), nothing else', () => {
    const instance = startInstance({
      id: 'i1',
      workflowName: 'watched',
      input: [1, 'two'],
      properties: { timeouts: [] },
      now: 5,
    });
    expect(instance).toMatchObject({
      branches: [],
      executions: [],
      statuses: [],
      ongoing_index: null,
      properties: [{ key: 0, values: { timeouts: [] } }],
      buffer: [{ timestamp: 5, type: 'handle', data: { input: [1, 'two'] }, seq: 0 }],
      decision_ongoing: false,
      decision_mode: 'run',
    });
  });

  it('a work reported twice completes once; a timeout runs onTimeout only', async () => {
    const sim = new Simulator({ workflows: [watched], tasks: [job] });
    const id = sim.start(watched, []);
    await sim.decide(id);
    expect(sim.effects[0]?.effect).toMatchObject({ type: 'scheduleTask', timeoutMs: 1_000 });
    const { uuid } = sim.work('job');
    sim.startWork('job');
    sim.act(id, { type: 'onStart', uuid });
    await sim.decide(id);
    sim.act(id, { type: 'onTimeout', uuid });
    await sim.decide(id);
    sim.act(id, { type: 'onSuccess', uuid, output: 'late' });
    sim.act(id, { type: 'onSuccess', uuid, output: 'again' });
    await sim.run();
    const instance = sim.instance(id);
    expect(instance.branches.map((b) => b.type)).toEqual([
      'handle',
      'onStart',
      'onTimeout',
      'onSuccess',
    ]);
    expect(instance.output).toBe('late');
    expect(instance.properties.at(-1)?.values).toEqual({ timeouts: ['job'] });
  });

  it('decisions under a stale uuid are ignored after a redelivery', async () => {
    const start = startInstance({
      id: 'i2',
      workflowName: 'watched',
      input: [],
      properties: { timeouts: [] },
      now: 0,
    });
    const first = tryTriggerDecision(start, { now: 1, uuid: 'd1' });
    if (!first.request) throw new Error('expected a decision');
    const again = redeliverDecision(first.instance, { now: 2, uuid: 'd2' });
    if (!again.request) throw new Error('expected a redelivered decision');
    expect(again.request).toEqual({ ...first.request, uuid: 'd2' });

    const values = seededValueSource(3);
    const stale = await runDecision(first.request, watched, { values });
    const ignored = applyDecisions(again.instance, stale, 3);
    expect(ignored.instance).toBe(again.instance);
    expect(ignored.effects).toEqual([]);

    const fresh = await runDecision(again.request, watched, { values });
    const applied = applyDecisions(again.instance, fresh, 3);
    expect(applied.effects.map((e) => e.type)).toEqual(['scheduleTask']);
    // The same decision applied twice does nothing the second time.
    expect(applyDecisions(applied.instance, fresh, 4).effects).toEqual([]);
    // An action for an unknown work changes nothing.
    const unknown = receiveAction(applied.instance, { type: 'onStart', uuid: 'nope' }, 5);
    expect(unknown.instance).toBe(applied.instance);
  });
});
