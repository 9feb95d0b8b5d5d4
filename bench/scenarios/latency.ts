/**
 * Scenario 4: latency. One-step jobs run one at a time: start → result, p50/p90/p99.
 */
import { runJobs } from '../drive.js';
import type { Scenario } from '../scenario.js';
import { percentile } from '../stats.js';
import { oneStepWorkflow } from '../workflows.js';

/** Scenario 4. */
export const latencyScenario: Scenario = {
  number: 4,
  id: 'latency',
  title: 'Latency of a one-step workflow',
  description:
    'start → one no-op task, one job at a time: the time from calling Client.start to Client.result (woken by the store notice) returning SUCCESS.',
  available: true,
  notes: (sizes) => [
    `${sizes.latencyJobs} jobs at concurrency 1 or ${sizes.latencyBudgetMs / 1000} s, whichever comes first, after ${sizes.warmupJobs} warm-up jobs`,
  ],
  async run({ target, sizes }) {
    const wf = oneStepWorkflow();
    await target.client.deploy(wf);
    await runJobs(target.client, wf.workflow, { concurrency: 1, jobs: sizes.warmupJobs });
    const run = await runJobs(target.client, wf.workflow, {
      concurrency: 1,
      jobs: sizes.latencyJobs,
      budgetMs: sizes.latencyBudgetMs,
    });
    const ms = (p: number) => percentile(run.latenciesMs, p);
    return [
      { key: 'jobs', label: 'jobs measured', value: run.finished, unit: 'jobs', digits: 0 },
      { key: 'p50', label: 'p50', value: ms(50), unit: 'ms', digits: 2 },
      { key: 'p90', label: 'p90', value: ms(90), unit: 'ms', digits: 2 },
      { key: 'p99', label: 'p99', value: ms(99), unit: 'ms', digits: 2 },
    ];
  },
};
