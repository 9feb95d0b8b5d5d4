/**
 * The seed's worked example: `execute(task1, task2, task3)` then `execute(task4)`, with
 * the tasks starting and finishing in the seed's order, reproduces its 15-step history.
 */
import { describe, expect, it } from 'vitest';
import { defineTask, defineWorkflow, Workflow } from '../../src/durable/index.js';
import { Simulator } from './support/simulator.js';

const task1 = defineTask('task1', async () => 'one');
const task2 = defineTask('task2', async () => 'two');
const task3 = defineTask('task3', async () => 'three');
const task4 = defineTask('task4', async (input: { after: string[] }) => input.after.join('+'));

const seedExample = defineWorkflow(
  'seed-example',
  class extends Workflow {
    async handle() {
      const after = await this.execute([task1], [task2], [task3]);
      return await this.execute(task4, { after });
    }
  },
);

function scheduledTasks(sim: Simulator): string[] {
  return sim.effects.flatMap(({ effect }) => (effect.type === 'scheduleTask' ? [effect.name] : []));
}

/** The executions each decision ran, as the engine sent them. */
function decisionExecutions(sim: Simulator): number[][] {
  return sim.requests.map((r) => r.executions.slice(r.ongoing_index));
}

describe('the seed example', () => {
  it('reproduces the 15-step history', async () => {
    const sim = new Simulator({ workflows: [seedExample], tasks: [task1, task2, task3, task4] });
    const id = sim.start(seedExample, []);

    // 1. branch 0 (handle) schedules task1, task2, task3.
    await sim.decide(id);
    expect(scheduledTasks(sim)).toEqual(['task1', 'task2', 'task3']);
    // 2. task2 starts first: branch 1 onStart(task2) is scheduled at once.
    sim.startWork('task2');
    // 3-4. task1, task3 start while that decision is ongoing: postponed.
    sim.startWork('task1');
    sim.startWork('task3');
    expect(sim.instance(id).buffer.map((a) => a.type)).toEqual(['onStart', 'onStart']);
    // 5. branch 1 ends with no decision; branches 2 and 3 are scheduled.
    await sim.decide(id);
    // 6. branches 2 and 3 run with no decision; the decision process stalls.
    await sim.decide(id);
    expect(sim.pending.size).toBe(0);
    // 7. task3 completes: branch 4 onSuccess(task3) and branch 0 again.
    await sim.completeWork('task3');
    // 8-9. task1 then task2 complete during that decision: postponed.
    await sim.completeWork('task1');
    await sim.completeWork('task2');
    // 10. branches 4 and 0 end with no decision (task1 and task2 are not visible yet).
    await sim.decide(id);
    expect(scheduledTasks(sim)).toEqual(['task1', 'task2', 'task3']);
    // 11. branches 5, 0, 6, 0: the last run of branch 0 schedules task4.
    await sim.decide(id);
    expect(scheduledTasks(sim)).toEqual(['task1', 'task2', 'task3', 'task4']);
    // 12-13. task4 starts: branch 7, no decision.
    sim.startWork('task4');
    await sim.decide(id);
    // 14-15. task4 completes: branches 8 and 0; setOutput; the instance ends.
    await sim.completeWork('task4');
    await sim.decide(id);

    const instance = sim.instance(id);
    expect(decisionExecutions(sim)).toEqual([[0], [1], [2, 3], [4, 0], [5, 0, 6, 0], [7], [8, 0]]);
    expect(
      instance.branches.map((b) => (b.task_name ? `${b.type}(${b.task_name})` : b.type)),
    ).toEqual([
      'handle',
      'onStart(task2)',
      'onStart(task1)',
      'onStart(task3)',
      'onSuccess(task3)',
      'onSuccess(task1)',
      'onSuccess(task2)',
      'onStart(task4)',
      'onSuccess(task4)',
    ]);
    // Index:        0  1  2  3  4  5  6  7  8  9 10 11 12
    // Step:         1  2  6  6  10 10 11 11 11 11 13 15 15
    expect(instance.executions).toEqual([0, 1, 2, 3, 4, 0, 5, 0, 6, 0, 7, 8, 0]);
    // Each completion is recorded at the index of its onSuccess branch.
    expect(instance.statuses.map((s) => [s.name, s.completion_index])).toEqual([
      ['task1', 6],
      ['task2', 8],
      ['task3', 4],
      ['task4', 11],
    ]);
    expect(instance.state).toBe('completed');
    expect(instance.output).toBe('one+two+three');
    expect(instance.branches.every((b) => b.ended)).toBe(true);
  });

  it('schedules task4 only in the run of branch 0 that sees all three outputs', async () => {
    const sim = new Simulator({ workflows: [seedExample], tasks: [task1, task2, task3, task4] });
    const id = sim.start(seedExample, []);
    await sim.decide(id);
    for (const t of ['task2', 'task1', 'task3']) sim.startWork(t);
    await sim.decide(id);
    await sim.decide(id);
    await sim.completeWork('task3');
    await sim.completeWork('task1');
    await sim.completeWork('task2');
    await sim.decide(id);
    const outcome = await sim.decide(id);
    const task4Decision = outcome.decisions.find((d) => d.type === 'scheduleTask');
    // Executions 6..9 are branches 5, 0, 6, 0: the run at index 9 schedules task4.
    expect(task4Decision).toMatchObject({ name: 'task4', branch_key: 0, position: '1' });
    const request = sim.requests.at(-1);
    expect(request?.ongoing_index).toBe(6);
  });
});
