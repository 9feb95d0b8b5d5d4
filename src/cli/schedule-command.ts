/**
 * `weft schedule`: cron schedules from the command line. Workers fire them (every `weft
 * worker` does); these commands only write and read them.
 *
 *     weft schedule create <name> <workflow> --cron "0 3 * * *" [--tz Europe/Berlin]
 *         [--input JSON] [--overlap skip|buffer_one|allow_all|cancel_other] [--catchup 10m]
 *     weft schedule list            (also: weft schedules)
 *     weft schedule show <name>
 *     weft schedule pause|resume|delete <name>
 *     weft schedule backfill <name> --from <ISO time> --to <ISO time>
 */
import type { Command } from 'commander';
import type { Client } from '../client/client.js';
import { scheduleJson } from '../client/schedule-json.js';
import { ValidationError } from '../core/errors.js';
import { OVERLAP_POLICIES } from '../core/schedule-rules.js';
import type { Json, OverlapPolicy } from '../store/records.js';
import { oneOf } from './choice-option.js';
import { type ClientFlags, clientAction, STORE_FLAGS, STORE_HELP } from './client-action.js';
import { duration } from './duration-option.js';
import { parseJsonArgument } from './json-argument.js';
import { type Output, printJson } from './print.js';
import { formatSchedule, formatScheduleList, formatUpcoming } from './schedule-format.js';
import { isoTimeOption } from './time-option.js';

interface CreateFlags extends ClientFlags {
  cron?: string;
  tz?: string;
  input?: string;
  overlap?: string;
  catchup?: number;
}

interface BackfillFlags extends ClientFlags {
  from?: number;
  to?: number;
}

/** Adds `weft schedule …` and `weft schedules` to the program. */
export function registerScheduleCommand(
  program: Command,
  output: Output,
  setExit: (code: number) => void,
): void {
  const withClient = clientAction(output, setExit);
  const list = async (client: Client, flags: ClientFlags) => {
    const schedules = await client.schedules.list();
    if (flags.json) printJson(output, schedules.map(scheduleJson));
    else output.out(formatScheduleList(schedules));
  };

  const schedule = program
    .command('schedule')
    .description('cron schedules: create, list, show, pause, resume, delete, backfill');

  schedule
    .command('create <name> <workflow>')
    .description(
      'create a schedule (or update the one of that name): each tick starts a job of <workflow> named <name>@<tick time>',
    )
    .requiredOption(
      '--cron <expression>',
      'five fields (minute hour day month weekday), six with seconds first, or @hourly, @daily, …',
    )
    .option('--tz <zone>', 'IANA time zone the expression is read in (default: UTC)')
    .option('--input <json>', "every tick's job input, as JSON")
    .option(
      '--overlap <policy>',
      `a tick while the last job still runs: ${OVERLAP_POLICIES.join(', ')} (default: skip)`,
    )
    .option(
      '--catchup <duration>',
      'ticks missed by more than this (no worker ran) are skipped: 0, 30s, 10m, 1h… (default: 1m)',
      duration,
    )
    .option(STORE_FLAGS, STORE_HELP)
    .option('--json', 'print the schedule as JSON')
    .action(
      withClient(async (client, flags: CreateFlags, name: string, workflow: string) => {
        const overlap =
          flags.overlap === undefined
            ? undefined
            : oneOf(OVERLAP_POLICIES, flags.overlap, '--overlap');
        const created = await client.schedules.create(
          {
            name,
            workflow,
            cron: flags.cron as string,
            ...(flags.tz !== undefined && { timezone: flags.tz }),
            input: (parseJsonArgument(flags.input, '--input') ?? null) as Json,
            ...(overlap !== undefined && { overlap: overlap as OverlapPolicy }),
            ...(flags.catchup !== undefined && { catchupWindowMs: flags.catchup }),
          },
          'cli',
        );
        if (flags.json)
          return printJson(output, {
            ...(scheduleJson(created) as object),
            status: created.status,
          });
        const what =
          created.status === 'unchanged'
            ? `schedule ${name} unchanged`
            : `${created.status} schedule ${name}`;
        output.out(
          `${what}: ${created.workflow} at "${created.cron}" (${created.timezone}), overlap ${created.overlap}`,
        );
        output.out(formatUpcoming(created));
      }),
    );

  schedule
    .command('list', { isDefault: true })
    .description('list schedules: state, next run, runs and skipped ticks, last job (the default)')
    .option(STORE_FLAGS, STORE_HELP)
    .option('--json', 'print a JSON array of schedules')
    .action(withClient(list));

  program
    .command('schedules')
    .description('list schedules (as weft schedule list)')
    .option(STORE_FLAGS, STORE_HELP)
    .option('--json', 'print a JSON array of schedules')
    .action(withClient(list));

  schedule
    .command('show <name>')
    .description('show a schedule: what it starts, where it stands, its next five runs')
    .option(STORE_FLAGS, STORE_HELP)
    .option('--json', 'print the schedule as JSON')
    .action(
      withClient(async (client, flags: ClientFlags, name: string) => {
        const s = await client.schedules.get(name);
        if (flags.json) printJson(output, scheduleJson(s));
        else output.out(formatSchedule(s));
      }),
    );

  for (const [op, description] of [
    ['pause', 'pause a schedule: its ticks start nothing until it is resumed'],
    ['resume', 'resume a paused schedule from its next tick (the ticks meanwhile are skipped)'],
  ] as const) {
    schedule
      .command(`${op} <name>`)
      .description(description)
      .option(STORE_FLAGS, STORE_HELP)
      .option('--json', 'print the schedule as JSON')
      .action(
        withClient(async (client, flags: ClientFlags, name: string) => {
          const s = await client.schedules[op](name);
          if (flags.json) return printJson(output, scheduleJson(s));
          output.out(`schedule ${name} ${op === 'pause' ? 'paused' : 'resumed'}`);
          output.out(formatUpcoming(s));
        }),
      );
  }

  schedule
    .command('delete <name>')
    .description('delete a schedule; the jobs it started are kept')
    .option(STORE_FLAGS, STORE_HELP)
    .action(
      withClient(async (client, _flags: ClientFlags, name: string) => {
        await client.schedules.delete(name);
        output.out(`deleted schedule ${name}`);
      }),
    );

  schedule
    .command('backfill <name>')
    .description(
      'start a job for every tick in a past range (at most 1000); ticks whose job exists are not started again',
    )
    .requiredOption('--from <time>', 'first time, ISO (2026-11-20T00:00:00Z)', isoTimeOption)
    .requiredOption('--to <time>', 'last time, ISO, included', isoTimeOption)
    .option(STORE_FLAGS, STORE_HELP)
    .option('--json', 'print the jobs as JSON')
    .action(
      withClient(async (client, flags: BackfillFlags, name: string) => {
        const jobs = await client.schedules.backfill(name, {
          from: flags.from as number,
          to: flags.to as number,
        });
        if (flags.json)
          return printJson(
            output,
            jobs.map((j) => ({ ...j, tick: new Date(j.tick).toISOString() })),
          );
        if (jobs.length === 0)
          throw new ValidationError('no tick falls in the range', `schedule ${name} backfill`);
        for (const job of jobs) output.out(`${job.id} ${job.created ? 'started' : 'exists'}`);
      }),
    );
}
