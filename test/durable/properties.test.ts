/**
 * Workflow properties follow the seed's index rules: a branch starts with
 * `properties(start_index)`, continues after a completed `execute` with
 * `properties(completion_index)`, and what it changes is stored only when it changes.
 */
import { describe, expect, it } from 'vitest';
import { defineTask, defineWorkflow, propertiesAt, Workflow } from '../../src/durable/index.js';
import { Simulator } from './support/simulator.js';

const slow = defineTask('slow', async () => 'done');
const a = defineTask('a', async () => 'A');
const b = defineTask('b', async () => 'B');

function latest(sim: Simulator, id: string) {
  const { properties, executions } = sim.instance(id);
  return propertiesAt(properties, executions.length);
}

describe('properties', () => {
  it('a value set in onEvent while a task runs is seen by handle after that task', async () => {
    const approval = defineWorkflow(
      'approval',
      class extends Workflow {
        approvedBy: string | null = null;
        async handle() {
          const before = this.approvedBy;
          await this.execute(slow);
          return { before, after: this.approvedBy };
        }
        onEvent(name: string, data: unknown) {
          if (name === 'approve') this.approvedBy = String(data);
        }
      },
    );
    const sim = new Simulator({ workflows: [approval], tasks: [slow] });
    const id = sim.start(approval, []);
    await sim.decide(id);
    sim.startWork('slow');
    await sim.decide(id);
    sim.sendEvent(id, 'approve', 'ann');
    await sim.decide(id);
    await sim.completeWork('slow');
    await sim.decide(id);
    expect(sim.instance(id).output).toEqual({ before: null, after: 'ann' });
  });

  it('stores properties only when they change, keyed by the index after the branch', async () => {
    const counter = defineWorkflow('counter', {
      properties: { count: 0, note: 'unchanged' },
      async handle() {
        await this.execute(a);
        this.count += 1;
        await this.execute(b);
        return this.count;
      },
    });
    const sim = new Simulator({ workflows: [counter], tasks: [a, b] });
    const id = sim.start(counter, []);
    await sim.run();
    const instance = sim.instance(id);
    expect(instance.output).toBe(1);
    // Only one branch run changed anything: the run of handle after `a` completed.
    expect(instance.properties).toHaveLength(2);
    const [first, second] = instance.properties;
    expect(first).toEqual({ key: 0, values: { count: 0, note: 'unchanged' } });
    const writer = (second?.key ?? 0) - 1;
    expect(instance.executions[writer]).toBe(0);
    expect(second?.values).toEqual({ count: 1, note: 'unchanged' });
  });

  it('a workflow that changes nothing keeps a single properties entry', async () => {
    const quiet = defineWorkflow('quiet', {
      properties: { label: 'x' },
      async handle() {
        await this.execute([a], [b]);
        return this.label;
      },
      onSuccess() {},
    });
    const sim = new Simulator({ workflows: [quiet], tasks: [a, b] });
    const id = sim.start(quiet, []);
    await sim.run();
    expect(sim.instance(id).output).toBe('x');
    expect(sim.instance(id).properties).toEqual([{ key: 0, values: { label: 'x' } }]);
  });

  it('after execute, handle continues with properties(completion_index); on* writes are kept', async () => {
    const logged = defineWorkflow(
      'logged',
      class extends Workflow {
        log: string[] = [];
        async handle() {
          await this.execute(a);
          await this.execute(b);
          return [...this.log];
        }
        onSuccess(work: { name: string }) {
          this.log = [...this.log, work.name];
        }
      },
    );
    const sim = new Simulator({ workflows: [logged], tasks: [a, b] });
    const id = sim.start(logged, []);
    await sim.run();
    // handle resumes after b with properties(completion_index of b): onSuccess(b) runs at
    // that very index, so handle sees only a's entry, as the seed's rule says...
    expect(sim.instance(id).output).toEqual(['a']);
    // ...and its own run does not wipe what onSuccess(b) wrote.
    expect(latest(sim, id)).toEqual({ log: ['a', 'b'] });
  });

  it('a replayed run that parks again does not undo changes made by other branches', async () => {
    const review = defineWorkflow(
      'review',
      class extends Workflow {
        status = 'new';
        async handle() {
          this.status = 'waiting';
          await this.execute([a], [b]);
          return this.status;
        }
        onEvent(name: string) {
          this.status = name;
        }
      },
    );
    const sim = new Simulator({ workflows: [review], tasks: [a, b] });
    const id = sim.start(review, []);
    await sim.decide(id);
    sim.startWork('a');
    sim.startWork('b');
    await sim.decide(id);
    await sim.decide(id);
    sim.sendEvent(id, 'approved');
    await sim.decide(id);
    expect(latest(sim, id)).toEqual({ status: 'approved' });
    // a completes: handle runs again from the top and parks at the same execute.
    await sim.completeWork('a');
    await sim.decide(id);
    expect(latest(sim, id)).toEqual({ status: 'approved' });
    await sim.completeWork('b');
    await sim.decide(id);
    expect(sim.instance(id).state).toBe('completed');
    expect(sim.instance(id).output).toBe('approved');
  });

  it('rejects a property that is not plain JSON, failing the instance with a typed error', async () => {
    const dated = defineWorkflow(
      'dated',
      class extends Workflow {
        at: unknown = null;
        async handle() {
          this.at = new Date(0);
        }
      },
    );
    const sim = new Simulator({ workflows: [dated] });
    const id = sim.start(dated, []);
    await sim.run();
    expect(sim.instance(id).state).toBe('failed');
    expect(sim.instance(id).error).toMatchObject({ name: 'ValidationError' });
  });
});
