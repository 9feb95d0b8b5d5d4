/**
 * The table printed on stdout at the end of a run: one column per target, one row per
 * figure, steps/s figures followed by their ratio to the baseline.
 */
import { formatCell, rowTitle } from './format.js';
import type { ResultSet } from './results.js';
import { TARGETS } from './targets.js';

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/** Renders the results as aligned text. */
export function renderTable(results: ResultSet): string {
  const lines: string[][] = [];
  const header = ['', ...results.targets.map((t) => TARGETS[t].title)];
  lines.push(header);
  lines.push(['Baseline (single-row durable writes)']);
  for (const row of results.baselineRows()) {
    lines.push([`  ${row.label}`, ...results.targets.map((t) => formatCell(row.cells.get(t), 0))]);
  }
  for (const scenario of results.scenarios) {
    if (!scenario.available) {
      lines.push([`${scenario.number}. ${scenario.title}: not available yet`]);
      continue;
    }
    lines.push([`${scenario.number}. ${scenario.title}`]);
    for (const row of results.rows(scenario)) {
      lines.push([
        `  ${rowTitle(row)}`,
        ...results.targets.map((t) => formatCell(row.cells.get(t), row.digits)),
      ]);
    }
    for (const t of results.targets) {
      for (const error of results.errorsOf(scenario, t)) {
        lines.push([`  ! ${TARGETS[t].title}: ${error}`]);
      }
    }
  }
  const widths = header.map((_, col) =>
    Math.max(...lines.filter((l) => l.length > 1).map((l) => (l[col] ?? '').length)),
  );
  return lines
    .map((cells) =>
      cells.length === 1
        ? (cells[0] as string)
        : cells.map((c, col) => pad(c, widths[col] ?? 0, col > 0)).join('   '),
    )
    .join('\n');
}
