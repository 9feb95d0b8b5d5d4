/**
 * The profile figures of a throughput run: statements (store calls plus BEGIN and COMMIT
 * of each transaction) and durable commits per step, round trips per transaction, and how
 * busy the machine's CPUs were. Store counts and the Node process's CPU per step exist
 * only when the worker runs in the driver's process (its store is wrapped in a
 * {@link countingStore}; the process's CPU is then the Client's and the Worker's, from
 * `process.cpuUsage`); CPU busy is read from /proc/stat for every target, so it covers
 * worker processes and the database too.
 */
import { readFileSync } from 'node:fs';
import type { Figure } from '../scenario.js';
import type { StoreCounts } from './counting-store.js';

interface CpuTimes {
  busy: number;
  total: number;
}

/** The machine's CPU time so far (Linux); undefined elsewhere. */
function cpuTimes(): CpuTimes | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal …: idle and iowait are not busy.
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/** A profile in progress; `finish` turns it into figures for `steps` steps. */
export interface StepProfile {
  finish(steps: number): Figure[];
}

/** Starts profiling a run whose figures get keys `<prefix>.…` and labels `label`. */
export function startStepProfile(
  counts: StoreCounts | undefined,
  prefix: string,
  label: string,
): StepProfile {
  counts?.reset();
  const before = cpuTimes();
  const nodeBefore = process.cpuUsage();
  return {
    finish(steps) {
      const after = cpuTimes();
      const node = process.cpuUsage(nodeBefore);
      const figures: Figure[] = [];
      if (counts && steps > 0) {
        const transactions = counts.transactions + counts.directWrites + counts.directReads;
        figures.push(
          {
            key: `${prefix}.statements`,
            label: `${label} statements/step`,
            value: counts.roundTrips / steps,
            unit: '',
            digits: 2,
          },
          {
            key: `${prefix}.commits`,
            label: `${label} commits/step`,
            value: counts.durableCommits / steps,
            unit: '',
            digits: 2,
          },
          {
            key: `${prefix}.batch`,
            label: `${label} round trips/transaction`,
            value: transactions > 0 ? counts.roundTrips / transactions : 0,
            unit: '',
            digits: 2,
          },
          {
            key: `${prefix}.nodeCpu`,
            label: `${label} Node CPU/step`,
            // user + system, µs → ms
            value: (node.user + node.system) / 1000 / steps,
            unit: 'ms',
            digits: 3,
          },
        );
      }
      if (before && after && after.total > before.total) {
        figures.push({
          key: `${prefix}.cpu`,
          label: `${label} machine CPU busy`,
          value: (100 * (after.busy - before.busy)) / (after.total - before.total),
          unit: '%',
          digits: 0,
        });
      }
      return figures;
    },
  };
}
