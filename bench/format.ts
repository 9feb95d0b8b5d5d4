/**
 * How figures print: thousands separators, a few decimals for small values, the ratio to
 * the baseline after a steps/s figure.
 */
import type { Cell } from './results.js';

/** A number for the report: no decimals from 100 up, one below (or `digits`). */
export function formatNumber(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return '–';
  const d = digits ?? (Math.abs(value) >= 100 ? 0 : 1);
  return value.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

/** A ratio to the baseline: `2.6×`. */
export function formatRatio(ratio: number): string {
  return `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}×`;
}

/** A table cell. */
export function formatCell(cell: Cell | undefined, digits?: number): string {
  if (!cell) return '';
  if (cell.kind === 'missing') return cell.reason;
  const value = formatNumber(cell.value, digits);
  return cell.ratio === undefined ? value : `${value} (${formatRatio(cell.ratio)})`;
}

/** Bytes as MB with one decimal. */
export function formatMegabytes(bytes: number): string {
  return `${formatNumber(bytes / (1024 * 1024), 1)} MB`;
}

/** A row's title: its label, and its unit in parentheses when it has one. */
export function rowTitle(row: { label: string; unit: string }): string {
  return row.unit ? `${row.label} (${row.unit})` : row.label;
}
