/**
 * The code-first chaos workload: a `chaos-flow` instance runs two tasks in parallel,
 * waits a few milliseconds on a durable timer, runs a third task, and returns the sum —
 * so a kill can land mid-decision, mid-task or mid-wait. Its tasks run through the same
 * logged handlers as the graph workload's, so handler re-runs are accounted the same way.
 */

import { defineTask, defineWorkflow } from '../../src/durable/definitions.js';
import { DURABLE_VERSION } from '../../src/durable/durable-engine.js';
import { Workflow } from '../../src/durable/workflow.js';
import type { Json } from '../../src/store/records.js';
import type { ChaosWorkload } from './chaos-workloads.js';

/** The task every step of the flow runs (its worker runs the logged handler instead). */
const step = defineTask('chaos-step', async (n: number) => n);

/** The code-first workflow. */
export const chaosFlow = defineWorkflow(
  'chaos-flow',
  class ChaosFlow extends Workflow {
    async handle(n: number) {
      const [a, b] = await this.execute([step, n], [step, n + 1]);
      await this.waitFor(3);
      const c = await this.execute(step, a + b);
      return { n, sum: c };
    }
  },
);

function work(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(Math.random() * 5)));
}

/** The code-first workload. */
export const durableWorkload: ChaosWorkload = {
  name: 'code-first',
  model: 'durable',
  workflows: [chaosFlow.name],
  taskStreams: ['task:chaos-step'],
  code: [chaosFlow],
  async deploy(client) {
    // Workers register it on start; register it here too, so jobs can start before them.
    await client.store.putDefinition({
      workflow: chaosFlow.name,
      version: DURABLE_VERSION,
      model: 'durable',
      definition: { workflow: chaosFlow.name },
      source: null,
    });
  },
  async start(client, index, id) {
    await client.start(chaosFlow.name, [index], { id });
  },
  handlers(log) {
    return {
      'chaos-step': log.wrap(async (input) => {
        await work();
        return input;
      }),
    };
  },
  graph: () => undefined,
  expectedKey: () => undefined,
  expectedOutput(workflow, input): Json | undefined {
    if (workflow !== chaosFlow.name) return undefined;
    const n = (input as number[])[0] as number;
    return { n, sum: 2 * n + 1 };
  },
};
