/**
 * How big each scenario is, for the full run and for `--quick`. The full sizes are the
 * issue's, except where a time budget caps a scenario on a slow store: a throughput
 * scenario stops starting jobs when its budget runs out and reports what it finished.
 */

/** The sizes of one run. */
export interface Sizes {
  /** Milliseconds each baseline write loop runs. */
  baselineMs: number;
  /** Scenario 1 and 2: jobs at each concurrency, and a time budget per concurrency. */
  throughput: { concurrency: number; jobs: number; budgetMs: number }[];
  /** Jobs run before measuring (JIT, caches, connection pools). */
  warmupJobs: number;
  /** Scenario 3: parallel tasks in the one job. */
  fanOutTasks: number;
  /** Scenario 7: items the one job spreads through a task and collects. */
  spreadItems: number;
  /** Scenario 8: items of the big spread (the largest weft supports is 999,999). */
  bigSpreadItems: number;
  /** Scenario 8 runs this many times (a long one). */
  bigSpreadRuns: number;
  /** Scenario 9: activities in the workflow file compiled. */
  compileActivities: number;
  /** Scenario 4: one-step jobs, one at a time. */
  latencyJobs: number;
  /** Scenarios 4 and 5: no new job or signal starts after this long (the figures say how many ran). */
  latencyBudgetMs: number;
  /** Scenario 5: jobs parked on a hook, then signalled one at a time (and as many again at once). */
  signalJobs: number;
  /** Scenario 6: jobs parked on a hook. */
  idleJobs: number;
  /** Scenario 6: how many clients start jobs at once. */
  idleStartConcurrency: number;
  /** Scenario 6 runs this many times (it is the slowest; the others run `runs` times). */
  idleRuns: number;
  /** Repetitions; figures are medians across them. */
  runs: number;
}

/** The sizes, three repetitions. */
export const FULL_SIZES: Sizes = {
  baselineMs: 3000,
  throughput: [
    { concurrency: 1, jobs: 300, budgetMs: 10_000 },
    { concurrency: 50, jobs: 5000, budgetMs: 15_000 },
  ],
  warmupJobs: 20,
  fanOutTasks: 1000,
  spreadItems: 10_000,
  bigSpreadItems: 100_000,
  bigSpreadRuns: 1,
  compileActivities: 10_000,
  latencyJobs: 1000,
  latencyBudgetMs: 20_000,
  signalJobs: 1000,
  idleJobs: 100_000,
  idleStartConcurrency: 64,
  idleRuns: 1,
  runs: 3,
};

/** Small counts, one repetition: a smoke test of the harness and a rough figure. */
export const QUICK_SIZES: Sizes = {
  baselineMs: 1000,
  throughput: [
    { concurrency: 1, jobs: 50, budgetMs: 5000 },
    { concurrency: 50, jobs: 500, budgetMs: 8000 },
  ],
  warmupJobs: 5,
  fanOutTasks: 200,
  spreadItems: 1000,
  bigSpreadItems: 10_000,
  bigSpreadRuns: 1,
  compileActivities: 2000,
  latencyJobs: 200,
  latencyBudgetMs: 10_000,
  signalJobs: 200,
  idleJobs: 5000,
  idleStartConcurrency: 64,
  idleRuns: 1,
  runs: 1,
};
