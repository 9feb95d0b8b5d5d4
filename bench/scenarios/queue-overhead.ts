/**
 * Scenario 10: what a queue costs when it does not limit. The 10-step linear graph
 * workflow of scenario 1 runs at concurrency 1 and 50, started with no queue and on a
 * queue whose concurrency (1,000) never binds, interleaved in each repetition: steps/s
 * and the c=1 p50 both ways, and their ratio.
 */
import { runJobs } from '../drive.js';
import type { Figure, Scenario } from '../scenario.js';
import { percentile, perSecond } from '../stats.js';
import { linearWorkflow } from '../workflows.js';
import { LINEAR_STEPS } from './linear-graph.js';

/** The queue the scenario creates: room for every lane. */
const QUEUE = 'bench-unlimited';

/** Scenario 10. */
export const queueOverheadScenario: Scenario = {
  number: 10,
  id: 'queue',
  title: 'A queue that does not limit',
  description:
    "Scenario 1's workflow started with no queue, then on a queue of concurrency 1,000 (never full), at c=1 and c=50: steps/s and the c=1 p50 of each, and queued ÷ plain.",
  available: true,
  notes: (sizes) =>
    sizes.throughput.map(
      (t) =>
        `concurrency ${t.concurrency}: each way up to ${t.jobs} jobs or ${t.budgetMs / 2000} s`,
    ),
  async run({ target, sizes, log }) {
    const wf = linearWorkflow(LINEAR_STEPS);
    await target.client.deploy(wf);
    await target.client.queues.create({ name: QUEUE, concurrency: 1000 });
    await runJobs(target.client, wf.workflow, { concurrency: 5, jobs: sizes.warmupJobs });
    await runJobs(target.client, wf.workflow, {
      concurrency: 5,
      jobs: sizes.warmupJobs,
      queue: QUEUE,
    });
    const figures: Figure[] = [];
    for (const { concurrency, jobs, budgetMs } of sizes.throughput) {
      const each = { concurrency, jobs, budgetMs: budgetMs / 2 };
      const plain = await runJobs(target.client, wf.workflow, each);
      const queued = await runJobs(target.client, wf.workflow, { ...each, queue: QUEUE });
      const steps = (run: typeof plain) => perSecond(run.finished, run.elapsedMs) * LINEAR_STEPS;
      log(
        `c=${concurrency}: plain ${steps(plain).toFixed(0)} steps/s, queued ${steps(queued).toFixed(0)} steps/s`,
      );
      figures.push(
        {
          key: `c${concurrency}.plain`,
          label: `c=${concurrency} no queue`,
          value: steps(plain),
          unit: 'steps/s',
        },
        {
          key: `c${concurrency}.queued`,
          label: `c=${concurrency} on a queue`,
          value: steps(queued),
          unit: 'steps/s',
        },
        {
          key: `c${concurrency}.ratio`,
          label: `c=${concurrency} queued ÷ no queue`,
          value: steps(queued) / steps(plain),
          unit: '×',
          digits: 2,
        },
      );
      if (concurrency === 1) {
        figures.push(
          {
            key: 'c1.p50.plain',
            label: 'c=1 p50, no queue',
            value: percentile(plain.latenciesMs, 50),
            unit: 'ms',
            digits: 2,
          },
          {
            key: 'c1.p50.queued',
            label: 'c=1 p50, on a queue',
            value: percentile(queued.latenciesMs, 50),
            unit: 'ms',
            digits: 2,
          },
        );
      }
    }
    return figures;
  },
};
