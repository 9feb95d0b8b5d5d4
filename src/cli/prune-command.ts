/**
 * `weft prune`: removes the jobs that ended longer ago than a duration — each with its
 * descendants and every row they left in the store — in small transactions, and says
 * how many rows of each table went (or, with `--dry-run`, would go).
 *
 *     weft prune --older-than 7d [--state failed] [--workflow shop] [--dry-run] [--jobs] [--json]
 */
import type { Command } from 'commander';
import type { PruneSummary } from '../client/prune.js';
import type { FinalState } from '../core/retention.js';
import { clientAction, STORE_FLAGS, STORE_HELP } from './client-action.js';
import { duration } from './duration-option.js';
import { positiveWholeNumber } from './numeric-option.js';
import { alignColumns, type Output, printJson } from './print.js';
import { endStatesOption } from './retention-option.js';

interface Flags {
  store?: string;
  json?: boolean;
  olderThan: number;
  state?: FinalState[];
  workflow?: string;
  dryRun?: boolean;
  jobs?: boolean;
  batch?: number;
}

/** What a prune did, for a person: a line, then rows per table (those with any). */
export function formatPrune(summary: PruneSummary, listJobs = false): string {
  const verb = summary.dryRun ? 'would prune' : 'pruned';
  const n = summary.jobs.length;
  const head = `${verb} ${n} job${n === 1 ? '' : 's'} that ended before ${new Date(summary.endedBefore).toISOString()}`;
  const counted = Object.entries(summary.rows).filter(([, rows]) => rows > 0);
  const lines = [head];
  if (counted.length > 0) {
    lines.push(alignColumns([['TABLE', 'ROWS'], ...counted.map(([t, rows]) => [t, String(rows)])]));
  }
  if (listJobs && n > 0) lines.push(...summary.jobs);
  return lines.join('\n');
}

/** Adds `weft prune` to the program; `setExit` receives its exit code. */
export function registerPruneCommand(
  program: Command,
  output: Output,
  setExit: (code: number) => void,
): void {
  const withClient = clientAction(output, setExit);
  program
    .command('prune')
    .description(
      'remove finished jobs that ended longer ago than --older-than, with their child jobs and everything they wrote (never a job that has not ended)',
    )
    .option(STORE_FLAGS, STORE_HELP)
    .requiredOption(
      '--older-than <duration>',
      'jobs that ended at least this long ago (7d, 12h, 30m)',
      duration,
    )
    .option(
      '--state <state>',
      'only jobs that ended in this state: succeeded, failed, reverted (comma-separated, or again)',
      endStatesOption,
    )
    .option('--workflow <name>', 'only jobs of this workflow')
    .option('--dry-run', 'count what would be removed, remove nothing')
    .option('--jobs', 'also print the id of every job removed')
    .option('--batch <n>', 'top jobs per transaction', positiveWholeNumber, 100)
    .option('--json', 'print the result as JSON: { dryRun, endedBefore, jobs, rows }')
    .action(
      withClient(async (client, flags: Flags) => {
        const summary = await client.prune({
          olderThanMs: flags.olderThan,
          ...(flags.state && { states: flags.state }),
          ...(flags.workflow !== undefined && { workflow: flags.workflow }),
          dryRun: flags.dryRun === true,
          ...(flags.batch !== undefined && { batch: flags.batch }),
        });
        if (flags.json) printJson(output, summary);
        else output.out(formatPrune(summary, flags.jobs === true));
      }),
    );
}
