/**
 * Scenario 2: a 10-step code-first workflow (`execute` ten times in sequence) at
 * concurrency 1 and 50 — the same figures as scenario 1.
 *
 * Not available yet: the code-first engine (src/durable/) is not wired into the Worker
 * and Client. When it is, `run` deploys a workflow whose `handle()` calls
 * `execute(noop)` ten times, starts jobs through the Client exactly as
 * {@link linearGraphScenario} does (`runJobs`), reports `c1.jobs`, `c1.steps`,
 * `c50.jobs`, `c50.steps` with the same ratios, and `available` becomes true.
 */
import { BenchError } from '../bench-error.js';
import type { Scenario } from '../scenario.js';

/** Scenario 2 (a stub until the code-first engine runs in workers). */
export const codeFirstScenario: Scenario = {
  number: 2,
  id: 'code-first',
  title: '10-step code-first workflow',
  description:
    'handle() calls execute(noop) ten times in sequence; jobs/s and steps/s at concurrency 1 and 50, as scenario 1.',
  available: false,
  async run() {
    throw new BenchError('BENCH_NOT_AVAILABLE', 'the code-first engine is not available yet');
  },
};
