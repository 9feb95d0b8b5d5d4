/**
 * What every benchmark worker runs: the no-op task handler graph workflows call, and the
 * code-first workflow of scenario 2 with its no-op task — so the figures measure weft and
 * its store, not the work.
 */
import { defineTask, defineWorkflow, Workflow } from '../src/durable/index.js';
import type { TaskHandlers } from '../src/worker/task-handler.js';
import type { WorkerOptions } from '../src/worker/worker-options.js';

/** The task name every benchmark graph task activity runs. */
export const NOOP_TASK = 'noop';

/** Handlers by name: `noop` returns null at once. */
export const benchHandlers: TaskHandlers = {
  [NOOP_TASK]: async () => null,
};

/** The code-first no-op task. */
export const noopTask = defineTask('noop-code-first', async () => null);

/** Steps of the code-first workflow. */
export const CODE_FIRST_STEPS = 10;

/** Scenario 2's workflow: `handle()` executes the no-op task ten times in sequence. */
export const codeFirstWorkflow = defineWorkflow(
  'bench-code-first-10',
  class BenchCodeFirst extends Workflow {
    async handle() {
      for (let i = 0; i < CODE_FIRST_STEPS; i++) await this.execute(noopTask);
      return CODE_FIRST_STEPS;
    }
  },
);

/** The Worker options every benchmark worker shares (store and tuning aside). */
export const benchWork: Pick<WorkerOptions, 'handlers' | 'workflows' | 'tasks'> = {
  handlers: benchHandlers,
  workflows: [codeFirstWorkflow],
  tasks: [noopTask],
};

export default benchHandlers;
