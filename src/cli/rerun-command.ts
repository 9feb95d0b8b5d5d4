/**
 * `weft rerun <job> --from <step>`: a new job of the same workflow version and input that
 * keeps the old job's results before the step and runs the step and what follows. For a
 * graph job the step is an activity id; for a code-first job, a step as its timeline
 * shows it (`charge`, `charge#2`) or its work id. Prints the new job's id and what it
 * kept and runs again; the old job is left as it is.
 *
 *     weft rerun <job> --from <step> [--id <new id>] [--json]
 */
import type { Command } from 'commander';
import type { Rerun } from '../engine/rerun-job.js';
import { clientAction, STORE_FLAGS, STORE_HELP } from './client-action.js';
import { type Output, printJson } from './print.js';

interface Flags {
  store?: string;
  json?: boolean;
  from: string;
  id?: string;
}

/** What a rerun did, for a person. */
export function formatRerun(source: string, from: string, rerun: Rerun): string {
  const list = (items: string[]) => (items.length > 0 ? items.join(', ') : 'nothing');
  return [
    `${rerun.job.id} ${rerun.job.state} (rerun of ${source} from ${from})`,
    `kept: ${list(rerun.kept)}`,
    `runs again: ${list(rerun.again)}`,
  ].join('\n');
}

/** Adds `weft rerun` to the program; `setExit` receives its exit code. */
export function registerRerunCommand(
  program: Command,
  output: Output,
  setExit: (code: number) => void,
): void {
  const withClient = clientAction(output, setExit);
  program
    .command('rerun <job>')
    .description(
      'start a new job that keeps what <job> did before a step and runs the step and everything after it (the old job is left as it is)',
    )
    .option(STORE_FLAGS, STORE_HELP)
    .requiredOption(
      '--from <step>',
      'graph: an activity id; code-first: a step as its timeline names it (charge, charge#2) or its work id',
    )
    .option('--id <id>', "the new job's id (default: a new one)")
    .option('--json', 'print the result as JSON: { job, rerunOf, from, kept, again }')
    .action(
      withClient(async (client, flags: Flags, job: string) => {
        const rerun = await client.rerun(job, {
          from: flags.from,
          ...(flags.id !== undefined && { id: flags.id }),
        });
        if (flags.json) {
          printJson(output, {
            job: rerun.job.id,
            rerunOf: job,
            from: flags.from,
            kept: rerun.kept,
            again: rerun.again,
          });
        } else {
          output.out(formatRerun(job, flags.from, rerun));
        }
      }),
    );
}
