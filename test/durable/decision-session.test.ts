/**
 * The Agent's decision session, driven by hand through its endpoints' operations on
 * the request of the seed's step 11 (executions 6..9 are branches 5, 0, 6, 0).
 */
import { describe, expect, it } from 'vitest';
import { InvalidStateError, ModifiedDeciderError } from '../../src/core/errors.js';
import {
  type DecisionRequest,
  DecisionSession,
  defineTask,
  defineWorkflow,
  seededValueSource,
  Workflow,
  type WorkRequest,
} from '../../src/durable/index.js';
import { Simulator } from './support/simulator.js';

const t = (name: string) => defineTask(name, async () => name);
const [task1, task2, task3, task4] = ['task1', 'task2', 'task3', 'task4'].map(t) as [
  ReturnType<typeof t>,
  ReturnType<typeof t>,
  ReturnType<typeof t>,
  ReturnType<typeof t>,
];
const example = defineWorkflow(
  'seed-example',
  class extends Workflow {
    async handle() {
      await this.execute([task1], [task2], [task3]);
      return await this.execute(task4);
    }
  },
);

/** The request of the seed's step 11. */
async function step11(): Promise<DecisionRequest> {
  const sim = new Simulator({ workflows: [example], tasks: [task1, task2, task3, task4] });
  const id = sim.start(example, []);
  await sim.decide(id);
  for (const name of ['task2', 'task1', 'task3']) sim.startWork(name);
  await sim.decide(id);
  await sim.decide(id);
  for (const name of ['task3', 'task1', 'task2']) await sim.completeWork(name);
  await sim.decide(id);
  const request = sim.pending.get(id);
  if (!request) throw new Error('expected a pending decision');
  return request;
}

const work = (name: string, position: string): WorkRequest => ({
  type: 'task',
  name,
  input: null,
  position,
  sync: true,
});
const parallel = [work('task1', '0.0'), work('task2', '0.1'), work('task3', '0.2')];

describe('DecisionSession', () => {
  it('answers execute per the seed: completed only when completion_index <= ongoing_index', async () => {
    const request = await step11();
    expect(request.executions.slice(request.ongoing_index)).toEqual([5, 0, 6, 0]);
    const session = new DecisionSession(request, { values: seededValueSource(1) });

    expect(session.nextBranch()).toMatchObject({ index: 6, branch: { key: 5, type: 'onSuccess' } });
    session.endBranch({ properties: {} });

    expect(session.nextBranch()).toMatchObject({ index: 7, branch: { key: 0, type: 'handle' } });
    // task2 completed at index 8 > 7: not visible yet.
    expect(session.execute(parallel)).toEqual({ status: 'scheduled' });
    session.endBranch({ properties: {}, parked: true });

    expect(session.nextBranch()).toMatchObject({ index: 8, branch: { key: 6 } });
    session.endBranch({ properties: {} });

    expect(session.nextBranch()).toMatchObject({ index: 9, branch: { key: 0 } });
    expect(session.execute(parallel)).toEqual({
      status: 'completed',
      outputs: ['task1', 'task2', 'task3'],
      properties: {},
    });
    expect(session.execute([work('task4', '1')])).toEqual({ status: 'scheduled' });
    session.endBranch({ properties: {}, parked: true });

    expect(session.nextBranch()).toEqual({});
    const { decisions } = session.decisions();
    expect(decisions.filter((d) => d.type === 'scheduleTask')).toEqual([
      expect.objectContaining({
        name: 'task4',
        branch_key: 0,
        position: '1',
        uuid: `${request.instance_id}.0.1`,
      }),
    ]);
    expect(decisions.filter((d) => d.type === 'endBranch').map((d) => d.branch_key)).toEqual([
      5, 6,
    ]);
  });

  it('records properties that changed as properties(index + 1), and outputs', async () => {
    const request = await step11();
    const session = new DecisionSession(request, { values: seededValueSource(1) });
    session.nextBranch();
    session.endBranch({ properties: { seen: 'task1' }, output: 'ok' });
    session.nextBranch();
    session.endBranch({ properties: {}, parked: true }); // a replayed run writes nothing
    const next = session.nextBranch();
    expect(next).toMatchObject({ index: 8, properties: { seen: 'task1' } }); // branch 6 starts at 8
    session.endBranch({ properties: { seen: 'task1' } }); // unchanged: nothing stored
    expect(session.decisions().decisions).toEqual([
      { type: 'updateProperties', key: 7, values: { seen: 'task1' } },
      { type: 'setOutput', branch_key: 5, output: 'ok' },
      { type: 'endBranch', branch_key: 5 },
      { type: 'endBranch', branch_key: 6 },
    ]);
  });

  it('a known position with another hash stops the decision as modified', async () => {
    const request = await step11();
    const session = new DecisionSession(request, { values: seededValueSource(1) });
    session.nextBranch();
    session.endBranch({ properties: {} });
    session.nextBranch();
    const changed = [work('task1', '0.0'), work('taskX', '0.1'), work('task3', '0.2')];
    const result = session.execute(changed);
    expect(result.status).toBe('modified');
    expect(session.modified).toBeInstanceOf(ModifiedDeciderError);
    expect(session.modified).toMatchObject({ branchKey: 0, position: '0.1' });
    expect(session.nextBranch()).toEqual({});
    expect(session.decisions().decisions).toEqual([
      expect.objectContaining({ type: 'modified', branch_key: 0, position: '0.1' }),
    ]);
  });

  it('refuses execute and endBranch when no branch is running', async () => {
    const session = new DecisionSession(await step11(), { values: seededValueSource(1) });
    expect(() => session.execute(parallel)).toThrow(InvalidStateError);
    expect(() => session.endBranch({ properties: {} })).toThrow(InvalidStateError);
  });
});
