/**
 * Scenario 2: a 10-step code-first workflow — `handle()` calls `execute(noop)` ten times
 * in sequence — at concurrency 1 and 50: the same figures as scenario 1.
 */
import { CODE_FIRST_STEPS, codeFirstWorkflow } from '../bench-handlers.js';
import { runJobs } from '../drive.js';
import { startStepProfile } from '../profile/step-profile.js';
import { type Figure, oneAtATimeLatency, type Scenario } from '../scenario.js';
import { perSecond } from '../stats.js';

/** Scenario 2. */
export const codeFirstScenario: Scenario = {
  number: 2,
  id: 'code-first',
  title: '10-step code-first workflow',
  description:
    'handle() awaits this.execute(noop) ten times in sequence (the workers register the workflow and the task). Each lane starts a job through Client.start and waits for its result; jobs/s and steps/s = 10 × jobs/s.',
  available: true,
  notes: (sizes) =>
    sizes.throughput.map(
      (t) => `concurrency ${t.concurrency}: up to ${t.jobs} jobs or ${t.budgetMs / 1000} s`,
    ),
  async run({ target, sizes, log }) {
    const name = codeFirstWorkflow.name;
    await runJobs(target.client, name, { concurrency: 5, jobs: sizes.warmupJobs, input: [] });
    const figures: Figure[] = [];
    for (const { concurrency, jobs, budgetMs } of sizes.throughput) {
      const profile = startStepProfile(target.counts, `c${concurrency}`, `c=${concurrency}`);
      const run = await runJobs(target.client, name, { concurrency, jobs, budgetMs, input: [] });
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
          value: jobsPerSecond * CODE_FIRST_STEPS,
          unit: 'steps/s',
          ratio: concurrency === 1 ? 'sequential' : 'parallel',
        },
        ...oneAtATimeLatency(concurrency, run.latenciesMs),
        ...profile.finish(run.finished * CODE_FIRST_STEPS),
      );
    }
    return figures;
  },
};
