/**
 * What a benchmark scenario is: something that runs on a started target and returns
 * named figures. The runner repeats it, takes medians and divides steps/s figures by
 * the baseline measured in the same repetition on the same target.
 */
import type { Sizes } from './sizes.js';
import { percentile } from './stats.js';
import type { RunningTarget } from './targets.js';

/** One measured number. */
export interface Figure {
  /** Stable key within the scenario, e.g. `c50.steps`. */
  key: string;
  /** Row label, e.g. `c=50 steps/s`. */
  label: string;
  value: number;
  /** Printed after the value: `jobs/s`, `ms`, `s`, `MB`… */
  unit: string;
  /** Decimals to print (default: 0 for values ≥ 100, else 1). */
  digits?: number;
  /**
   * A steps/s figure: also printed divided by the baseline writes/s measured on one
   * connection (`sequential`) or on the workers' connection count (`parallel`).
   */
  ratio?: 'sequential' | 'parallel';
}

/**
 * The p50 of a whole job when jobs ran one at a time (`c=1`), watched beside the
 * throughput; none at other concurrencies.
 */
export function oneAtATimeLatency(concurrency: number, latenciesMs: readonly number[]): Figure[] {
  if (concurrency !== 1) return [];
  return [
    {
      key: 'c1.p50',
      label: 'c=1 p50 of a job',
      value: percentile(latenciesMs, 50),
      unit: 'ms',
      digits: 2,
    },
  ];
}

/** What a scenario run gets. */
export interface ScenarioContext {
  target: RunningTarget;
  sizes: Sizes;
  /** Progress line to stderr. */
  log(line: string): void;
}

/** A benchmark scenario. */
export interface Scenario {
  /** The scenario's number (1–6 from the benchmark issue, 7 spread and collect). */
  number: number;
  /** Short id for `--only`, e.g. `linear`. */
  id: string;
  title: string;
  /** What it measures, for BENCHMARKS.md. */
  description: string;
  /**
   * False when the engine it needs is not built yet: the runner prints "not available
   * yet" for it and runs nothing.
   */
  available: boolean;
  /** How many repetitions it runs (default: `sizes.runs`). */
  repetitions?(sizes: Sizes): number;
  /** Lines about its sizes for BENCHMARKS.md (scaled-down counts, budgets). */
  notes?(sizes: Sizes): string[];
  run(context: ScenarioContext): Promise<Figure[]>;
}
