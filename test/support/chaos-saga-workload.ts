/**
 * The saga chaos workload: a `chaos-saga` job books (a task with a revert), then runs a
 * `pay` scope guarded by a retry controller (`{ times: 3 }`) whose `charge` fails its
 * first run for every even job — so the controller RETRIES: the failed run's `charge`
 * and `hold` are reverted, newest first, and the scope runs again in a new thread with
 * `retry.attempt` 2. A kill can land mid-run, mid-revert or between a revert's end and
 * the next run; every run and every revert must still commit exactly once.
 */
import { compileWorkflow } from '../../src/engine/compiler.js';
import type { Json } from '../../src/store/records.js';
import type { ChaosWorkload } from './chaos-workloads.js';

const SAGA = compileWorkflow(`
workflow: chaos-saga
version: 1
activities:
  start: { kind: trigger }
  book:  { kind: task, task: chaos-work, revert: chaos-undo }
  pay:
    kind: scope
    retry: { times: 3 }
    activities:
      hold:   { kind: task, task: chaos-work, revert: chaos-undo }
      charge:
        kind: task
        task: chaos-charge
        revert: chaos-undo
        retry: { attempts: 1 }
        input: "{ 'n': input.n, 'attempt': retry.attempt }"
    transitions: { hold: [charge] }
    output: "{ 'attempt': retry.attempt }"
  done: { kind: task, task: chaos-work }
transitions: { start: [book], book: [pay], pay: [done] }
output: "{ 'n': input.n, 'attempt': pay.output.attempt }"
`);

function numberOf(input: Json): number {
  const n = (input as { n?: unknown } | null)?.n;
  return typeof n === 'number' ? n : Number.NaN;
}

function work(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(Math.random() * 5)));
}

/** The saga workload (its `chaos-work` handler is the graph workload's). */
export const sagaWorkload: ChaosWorkload = {
  name: 'saga',
  model: 'graph',
  workflows: [SAGA.workflow],
  taskStreams: ['task:chaos-charge', 'task:chaos-undo'],
  async deploy(client) {
    await client.deploy(SAGA);
  },
  async start(client, index, id) {
    await client.start(SAGA.workflow, { n: index }, { id });
  },
  handlers(log) {
    return {
      // Declines the first run of the scope for every even job.
      'chaos-charge': log.wrap(async (input) => {
        await work();
        const { n, attempt } = input as { n: number; attempt: number };
        if (n % 2 === 0 && attempt === 1) throw new Error(`planned decline for n=${n}`);
        return { n, attempt };
      }),
      'chaos-undo': log.wrap(async (input) => {
        await work();
        return { undone: (input as { output: Json }).output };
      }),
    };
  },
  graph: (workflow) => (workflow === SAGA.workflow ? SAGA : undefined),
  expectedKey: () => undefined,
  expectedOutput(workflow, input): Json | undefined {
    if (workflow !== SAGA.workflow) return undefined;
    const n = numberOf(input);
    return { n, attempt: n % 2 === 0 ? 2 : 1 };
  },
};
