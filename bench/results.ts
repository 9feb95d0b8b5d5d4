/**
 * Everything a run measured, kept per scenario, target and repetition, and reduced to
 * medians for the report. A steps/s figure's ratio is taken per repetition (against the
 * baseline measured in that repetition on that target) and then its median, so a slow
 * moment on the machine moves both together.
 */
import type { BaselineResult } from './baseline.js';
import type { Figure, Scenario } from './scenario.js';
import { median } from './stats.js';
import type { TargetName } from './targets.js';

/** One figure's samples on one target. */
export interface FigureSamples {
  figure: Omit<Figure, 'value'>;
  values: number[];
  ratios: number[];
}

/** A cell of the report: the median and the ratio's median, or why there is none. */
export type Cell =
  | { kind: 'value'; value: number; ratio?: number; samples: number[] }
  | { kind: 'missing'; reason: string };

/** A row of the report. */
export interface Row {
  scenario: Scenario;
  key: string;
  label: string;
  unit: string;
  digits?: number;
  ratio?: Figure['ratio'];
  cells: Map<TargetName, Cell>;
}

/** The results of a run. */
export class ResultSet {
  private readonly baselines = new Map<TargetName, BaselineResult[]>();
  private readonly figures = new Map<string, Map<TargetName, Map<string, FigureSamples>>>();
  private readonly errors = new Map<string, Map<TargetName, string[]>>();

  constructor(
    readonly scenarios: readonly Scenario[],
    readonly targets: readonly TargetName[],
  ) {}

  /** Records a repetition's baseline on a target; returns its index. */
  addBaseline(target: TargetName, result: BaselineResult): number {
    const list = this.baselines.get(target) ?? [];
    list.push(result);
    this.baselines.set(target, list);
    return list.length - 1;
  }

  /** The baseline samples of a target. */
  baseline(target: TargetName): BaselineResult[] {
    return this.baselines.get(target) ?? [];
  }

  /** Records a scenario run's figures, with the baseline of the same repetition. */
  addFigures(
    scenario: Scenario,
    target: TargetName,
    figures: Figure[],
    baseline: BaselineResult | undefined,
  ): void {
    const byTarget = this.figures.get(scenario.id) ?? new Map();
    this.figures.set(scenario.id, byTarget);
    const byKey: Map<string, FigureSamples> = byTarget.get(target) ?? new Map();
    byTarget.set(target, byKey);
    for (const f of figures) {
      const { value, ...meta } = f;
      const samples = byKey.get(f.key) ?? { figure: meta, values: [], ratios: [] };
      samples.values.push(value);
      if (f.ratio && baseline) samples.ratios.push(value / baseline[f.ratio]);
      byKey.set(f.key, samples);
    }
  }

  /** Records why a scenario run produced nothing. */
  addError(scenario: Scenario, target: TargetName, message: string): void {
    const byTarget = this.errors.get(scenario.id) ?? new Map<TargetName, string[]>();
    this.errors.set(scenario.id, byTarget);
    byTarget.set(target, [...(byTarget.get(target) ?? []), message]);
  }

  /** Errors of a scenario on a target. */
  errorsOf(scenario: Scenario, target: TargetName): string[] {
    return this.errors.get(scenario.id)?.get(target) ?? [];
  }

  /** Baseline rows: writes/s on one connection and on the workers' connection count. */
  baselineRows(): { label: string; cells: Map<TargetName, Cell> }[] {
    const row = (label: string, pick: (b: BaselineResult) => number) => {
      const cells = new Map<TargetName, Cell>();
      for (const t of this.targets) {
        const samples = this.baseline(t).map(pick);
        cells.set(
          t,
          samples.length
            ? { kind: 'value', value: median(samples), samples }
            : { kind: 'missing', reason: 'not measured' },
        );
      }
      return { label, cells };
    };
    return [
      row('durable writes/s, 1 connection', (b) => b.sequential),
      row('durable writes/s, workers’ connections', (b) => b.parallel),
      row('connections (parallel baseline)', (b) => b.connections),
    ];
  }

  /** The report rows of one scenario: one per figure key, in the order first measured. */
  rows(scenario: Scenario): Row[] {
    const keys = new Map<string, Omit<Figure, 'value'>>();
    const byTarget = this.figures.get(scenario.id);
    for (const t of this.targets) {
      for (const [key, s] of byTarget?.get(t) ?? []) if (!keys.has(key)) keys.set(key, s.figure);
    }
    return [...keys].map(([key, figure]) => {
      const cells = new Map<TargetName, Cell>();
      for (const t of this.targets) {
        const s = byTarget?.get(t)?.get(key);
        if (s?.values.length) {
          cells.set(t, {
            kind: 'value',
            value: median(s.values),
            samples: s.values,
            ...(s.ratios.length ? { ratio: median(s.ratios) } : {}),
          });
        } else {
          const errors = this.errorsOf(scenario, t);
          cells.set(t, { kind: 'missing', reason: errors.length ? 'error' : 'not run' });
        }
      }
      return {
        scenario,
        key,
        label: figure.label,
        unit: figure.unit,
        ...(figure.digits !== undefined ? { digits: figure.digits } : {}),
        ...(figure.ratio ? { ratio: figure.ratio } : {}),
        cells,
      };
    });
  }
}
