/**
 * Scenario 1: a 10-step linear graph workflow with no-op handlers, run at concurrency 1
 * and 50: jobs/s and steps/s (10 task steps per job).
 */
import { runJobs } from '../drive.js';
import { startStepProfile } from '../profile/step-profile.js';
import { type Figure, oneAtATimeLatency, type Scenario } from '../scenario.js';
import { perSecond } from '../stats.js';
import { linearWorkflow } from '../workflows.js';

/** Task steps per job. */
export const LINEAR_STEPS = 10;

/** Scenario 1. */
export const linearGraphScenario: Scenario = {
  number: 1,
  id: 'linear',
  title: '10-step linear graph workflow',
  description:
    'start → s01 → … → s10, each a no-op task. Each lane starts a job and waits for its result, then starts the next; jobs/s over the run and steps/s = 10 × jobs/s.',
  available: true,
  notes: (sizes) =>
    sizes.throughput.map(
      (t) =>
        `concurrency ${t.concurrency}: up to ${t.jobs} jobs or ${t.budgetMs / 1000} s, whichever comes first (no new job starts after the budget; started jobs finish and count)`,
    ),
  async run({ target, sizes, log }) {
    const wf = linearWorkflow(LINEAR_STEPS);
    await target.client.deploy(wf);
    await runJobs(target.client, wf.workflow, { concurrency: 5, jobs: sizes.warmupJobs });
    const figures: Figure[] = [];
    for (const { concurrency, jobs, budgetMs } of sizes.throughput) {
      const profile = startStepProfile(target.counts, `c${concurrency}`, `c=${concurrency}`);
      const run = await runJobs(target.client, wf.workflow, { concurrency, jobs, budgetMs });
      const jobsPerSecond = perSecond(run.finished, run.elapsedMs);
      log(`c=${concurrency}: ${run.finished} jobs in ${(run.elapsedMs / 1000).toFixed(1)} s`);
      figures.push(
        {
          key: `c${concurrency}.jobs`,
          label: `c=${concurrency}`,
          value: jobsPerSecond,
          unit: 'jobs/s',
        },
        {
          key: `c${concurrency}.steps`,
          label: `c=${concurrency}`,
          value: jobsPerSecond * LINEAR_STEPS,
          unit: 'steps/s',
          ratio: concurrency === 1 ? 'sequential' : 'parallel',
        },
        ...oneAtATimeLatency(concurrency, run.latenciesMs),
        ...profile.finish(run.finished * LINEAR_STEPS),
      );
    }
    return figures;
  },
};
