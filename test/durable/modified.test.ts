/**
 * Modified detection and versioning: replay that meets a recorded work with another hash
 * stops the decision with ModifiedDeciderError and records nothing; resuming with code
 * that matches carries on; `this.version(id)` lets new code run under old instances.
 */
import { describe, expect, it } from 'vitest';
import { ModifiedDeciderError } from '../../src/core/errors.js';
import {
  defineTask,
  defineWorkflow,
  instanceStatus,
  modifiedError,
  Workflow,
} from '../../src/durable/index.js';
import { Simulator } from './support/simulator.js';

const a = defineTask('a', async () => 'A');
const b = defineTask('b', async () => 'B');
const c = defineTask('c', async () => 'C');

const v1 = defineWorkflow(
  'shipping',
  class extends Workflow {
    step = 0;
    async handle() {
      await this.execute(a);
      this.step = 1;
      await this.execute(b);
      return 'v1';
    }
  },
);

const v2Changed = defineWorkflow(
  'shipping',
  class extends Workflow {
    step = 0;
    async handle() {
      await this.execute(c); // was `a` at this position
      this.step = 1;
      await this.execute(b);
      return 'v2';
    }
  },
);

const v2Versioned = defineWorkflow(
  'shipping',
  class extends Workflow {
    step = 0;
    async handle() {
      await this.execute(a);
      this.step = 1;
      if (this.version('ship-with-c')) {
        await this.execute(c);
        return 'new path';
      }
      await this.execute(b);
      return 'old path';
    }
  },
);

const tasks = [a, b, c];

describe('modified detection', () => {
  it('stops the decision, marks the instance modified and records nothing', async () => {
    const sim = new Simulator({ workflows: [v1], tasks });
    const id = sim.start(v1, []);
    await sim.decide(id);
    sim.startWork('a');
    await sim.decide(id);
    await sim.completeWork('a'); // a decision is now pending: onSuccess(a), handle again
    const before = sim.instance(id);

    sim.deploy(v2Changed);
    const { outcome } = await sim.compute(id);
    expect(outcome.decisions).toHaveLength(1);
    const [decision] = outcome.decisions;
    if (decision?.type !== 'modified') throw new Error('expected a modified decision');
    const error = modifiedError(decision);
    expect(error).toBeInstanceOf(ModifiedDeciderError);
    expect(error).toMatchObject({ branchKey: 0, position: '0', code: 'MODIFIED_DECIDER' });

    sim.apply(id, outcome);
    const after = sim.instance(id);
    expect(instanceStatus(after).life).toBe('modified');
    expect(after.error).toMatchObject({ name: 'ModifiedDeciderError' });
    expect(sim.effects.at(-1)?.effect.type).toBe('modified');
    // Nothing recorded changed.
    expect(after.statuses).toEqual(before.statuses);
    expect(after.properties).toEqual(before.properties);
    expect(after.branches).toEqual(before.branches);
    expect(after.executions).toEqual(before.executions);
    expect(sim.pending.size).toBe(0);

    // New events still buffer; no decision starts while modified.
    sim.sendEvent(id, 'noise');
    expect(sim.pending.size).toBe(0);

    // Deploy code that matches the history again and resume: the stopped decision reruns.
    sim.deploy(v1);
    sim.control(id, 'resume');
    const retried = sim.requests.at(-1);
    expect(retried?.ongoing_index).toBe(before.ongoing_index);
    await sim.run();
    expect(sim.instance(id).state).toBe('completed');
    expect(sim.instance(id).output).toBe('v1');
  });

  it('detects a work added to a segment that already ran (a new parallel member)', async () => {
    const two = defineWorkflow(
      'fanout',
      class extends Workflow {
        async handle() {
          return await this.execute([a], [b]);
        }
      },
    );
    const three = defineWorkflow(
      'fanout',
      class extends Workflow {
        async handle() {
          return await this.execute([a], [b], [c]);
        }
      },
    );
    const sim = new Simulator({ workflows: [two], tasks });
    const id = sim.start(two, []);
    await sim.decide(id);
    sim.startWork('a');
    sim.deploy(three);
    await sim.decide(id); // onStart(a) only: handle does not run
    await sim.completeWork('a');
    const { outcome } = await sim.compute(id);
    expect(outcome.decisions).toEqual([
      expect.objectContaining({ type: 'modified', position: '0.2', expected_hash: 'none' }),
    ]);
  });
});

describe('version markers', () => {
  it('an instance past the marker point keeps the old path', async () => {
    const sim = new Simulator({ workflows: [v1], tasks });
    const id = sim.start(v1, []);
    await sim.decide(id);
    sim.startWork('a');
    await sim.decide(id);
    await sim.completeWork('a');
    await sim.decide(id); // handle ran after `a` under v1 and scheduled `b`
    sim.deploy(v2Versioned);
    await sim.run();
    expect(sim.instance(id).output).toBe('old path');
  });

  it('an instance that reaches the marker for the first time takes the new path', async () => {
    const sim = new Simulator({ workflows: [v1], tasks });
    const id = sim.start(v1, []);
    await sim.decide(id); // `a` scheduled under v1; nothing after it has run yet
    sim.deploy(v2Versioned);
    await sim.run();
    expect(sim.instance(id).output).toBe('new path');
    expect(sim.instance(id).statuses.map((s) => s.name)).toEqual(['a', 'version', 'c']);
  });

  it('a new instance takes the new path', async () => {
    const sim = new Simulator({ workflows: [v2Versioned], tasks });
    const id = sim.start(v2Versioned, []);
    await sim.run();
    expect(sim.instance(id).output).toBe('new path');
  });
});
