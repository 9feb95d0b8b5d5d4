/**
 * The chaos report: one table of what a run did and what it found, then the violations
 * (at most 20 shown) and a PASS/FAIL line.
 */
import type { ChaosResult } from './chaos-run.js';
import { DEFAULT_LEASE_MS } from './chaos-worker-settings.js';
import { CHAOS_WORKLOADS } from './chaos-workloads.js';

interface Row {
  label: string;
  value: number | string;
  /** What a good run shows; rows without one are information. */
  must?: number;
}

function rows(result: ChaosResult): Row[] {
  const f = result.facts;
  return [
    { label: 'jobs started', value: f.jobsStarted },
    { label: 'jobs ended (SUCCESS)', value: f.jobsEnded, must: f.jobsStarted },
    { label: 'child jobs ended (SUCCESS)', value: f.childJobsEnded, must: f.childJobs },
    { label: 'jobs lost', value: f.jobsLost, must: 0 },
    { label: 'jobs failed', value: f.jobsFailed, must: 0 },
    { label: 'jobs ended twice', value: f.jobsEndedTwice, must: 0 },
    { label: 'wrong collation keys', value: f.wrongKeys, must: 0 },
    { label: 'wrong outputs', value: f.wrongOutputs, must: 0 },
    { label: 'semaphores checked', value: f.semaphoresChecked },
    { label: 'engine steps run twice (semaphores)', value: f.stepsRunTwice, must: 0 },
    { label: 'duplicate deliveries refused', value: f.duplicatesRefused },
    { label: 'messages after their job ended', value: f.lateMessages },
    { label: 'handler runs', value: f.handlerRuns },
    { label: 'handler re-runs', value: f.handlerReruns },
    { label: '  after a kill mid-handler', value: f.rerunsKilledMidHandler },
    { label: '  after a kill before the commit', value: f.rerunsKilledBeforeCommit },
    { label: '  unaccounted', value: f.rerunsUnaccounted, must: 0 },
    { label: 'retries timed against their backoff', value: f.retriesTimed },
    { label: '  run before their backoff', value: f.retriesEarly, must: 0 },
    {
      label: '  closest start past its backoff',
      value: f.closestMarginMs === null ? '-' : `${f.closestMarginMs} ms`,
    },
    { label: 'workers killed (SIGKILL)', value: result.kills },
    { label: 'store server restarts', value: result.storeRestarts },
    { label: 'worker processes started', value: result.workersStarted },
    { label: 'worker start-up, mean', value: `${result.meanStartupMs} ms` },
    { label: 'worker error lines (recovered)', value: result.workerErrors.length },
    { label: 'messages left in streams', value: f.messagesLeft, must: 0 },
    { label: 'dead letters', value: f.deadLetters, must: 0 },
    { label: 'timers left', value: f.timersLeft, must: 0 },
    { label: 'duration', value: `${(result.durationMs / 1000).toFixed(1)} s` },
  ];
}

/** Renders the report as text. */
export function renderChaosReport(result: ChaosResult): string {
  const s = result.settings;
  const table = rows(result);
  const width = Math.max(...table.map((r) => r.label.length));
  const valueWidth = Math.max(5, ...table.map((r) => String(r.value).length));
  const lines = [
    `weft chaos: ${result.storeUrl}`,
    `${s.jobs} jobs (${CHAOS_WORKLOADS.map((w) => w.name).join(' + ')}), ${s.workers} workers, kill every ~${s.killEveryMs} ms${Number.isFinite(s.maxKills) ? ` (at most ${s.maxKills})` : ''}, lease ${s.worker.leaseMs ?? DEFAULT_LEASE_MS} ms, seed ${result.seed}`,
    '',
    `| ${'check'.padEnd(width)} | ${'value'.padStart(valueWidth)} | must be |`,
    `| ${'-'.repeat(width)} | ${'-'.repeat(valueWidth)} | ------- |`,
    ...table.map((r) => {
      const must = r.must === undefined ? '' : String(r.must);
      const bad = r.must !== undefined && r.value !== r.must ? ' <-' : '';
      return `| ${r.label.padEnd(width)} | ${String(r.value).padStart(valueWidth)} | ${must.padEnd(7)} |${bad}`;
    }),
    '',
  ];
  if (result.violations.length === 0) {
    lines.push('PASS: no violations');
    return lines.join('\n');
  }
  lines.push(`FAIL: ${result.violations.length} violation(s)`);
  const byCheck = new Map<string, string[]>();
  for (const v of result.violations)
    byCheck.set(v.check, [...(byCheck.get(v.check) ?? []), v.detail]);
  for (const [check, details] of byCheck) {
    lines.push(`  ${check}: ${details.length}`);
    for (const d of details.slice(0, 3)) lines.push(`    - ${d}`);
  }
  lines.push(`all of them, the handler logs and worker errors are in ${result.logDir}`);
  for (const e of result.workerErrors.slice(0, 5)) lines.push(`  worker error: ${e}`);
  return lines.join('\n');
}
