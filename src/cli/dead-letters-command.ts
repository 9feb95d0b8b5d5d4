/**
 * `weft dead-letters`: the messages that failed every delivery allowed, and requeueing
 * one (which reopens the job it ended, so a worker finishes it).
 *
 *     weft dead-letters [list] [--stream engine] [--limit 100] [--json]
 *     weft dead-letters requeue <id> [--json]
 */

import type { Command } from 'commander';
import type { DeadLetter } from '../store/records.js';
import { clientAction, STORE_FLAGS, STORE_HELP } from './client-action.js';
import { positiveWholeNumber } from './numeric-option.js';
import { alignColumns, type Output, printJson } from './print.js';

interface Flags {
  store?: string;
  json?: boolean;
  stream?: string;
  limit?: number;
}

/** One line of the error a dead letter last failed with. */
function lastError(dead: DeadLetter): string {
  const e = dead.lastError;
  return e ? (`${e.name}: ${e.message}`.split('\n')[0] ?? '') : '(none recorded)';
}

/** The dead letters as a table, oldest first. */
export function formatDeadLetters(dead: readonly DeadLetter[]): string {
  if (dead.length === 0) return 'no dead letters';
  const rows = [
    ['ID', 'STREAM', 'JOB', 'DELIVERIES', 'DEAD AT', 'LAST ERROR'],
    ...dead.map((d) => [
      d.id,
      d.stream,
      d.job ?? '-',
      String(d.deliveries),
      new Date(d.deadAt).toISOString(),
      lastError(d),
    ]),
  ];
  return alignColumns(rows);
}

/** Adds `weft dead-letters [list|requeue <id>]` to the program; `setExit` receives its exit code. */
export function registerDeadLettersCommand(
  program: Command,
  output: Output,
  setExit: (code: number) => void,
): void {
  const withClient = clientAction(output, setExit);
  const storeOption = STORE_FLAGS;
  const storeHelp = STORE_HELP;

  const deadLetters = program
    .command('dead-letters')
    .description('list the messages that failed every delivery allowed, or requeue one');
  deadLetters
    .command('list', { isDefault: true })
    .description('list dead letters, oldest first (the default)')
    .option(storeOption, storeHelp)
    .option('--stream <name>', 'only those of this stream (engine, task:<name>, …)')
    .option('--limit <n>', 'at most this many', positiveWholeNumber, 100)
    .option('--json', 'print a JSON array of dead letters')
    .action(
      withClient(async (client, flags: Flags) => {
        const dead = await client.deadLetters({
          ...(flags.stream ? { stream: flags.stream } : {}),
          ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
        });
        if (flags.json) printJson(output, dead);
        else output.out(formatDeadLetters(dead));
      }),
    );
  deadLetters
    .command('requeue <id>')
    .description('put a dead letter back on its stream; the job it ended runs again')
    .option(storeOption, storeHelp)
    .option('--json', 'print the result as JSON')
    .action(
      withClient(async (client, flags: Flags, id: string) => {
        const requeued = await client.requeueDeadLetter(id);
        if (flags.json) {
          printJson(output, requeued);
          return;
        }
        const { deadLetter, messageId, reopened } = requeued;
        const job = deadLetter.job
          ? reopened
            ? `; job ${deadLetter.job} is RUNNING again`
            : `; job ${deadLetter.job} was not ended by it and is left as it is`
          : '';
        output.out(
          `requeued dead letter ${id} as message ${messageId} on ${deadLetter.stream}${job}`,
        );
      }),
    );
}
