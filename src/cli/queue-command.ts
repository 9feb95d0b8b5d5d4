/**
 * `weft queue`: queues from the command line. A job started with `weft start --queue`
 * waits for a slot of its queue; workers admit it.
 *
 *     weft queue create <name> [--concurrency N] [--key-concurrency N] [--rate 20/2s]
 *                              [--key-rate 5/1m] [--throttle wait|drop] [--aging 1m]
 *     weft queue list               (also: weft queues)
 *     weft queue delete <name>
 */

import { type Command, InvalidArgumentError } from 'commander';
import type { Client } from '../client/client.js';
import type { QueueView } from '../client/queues.js';
import { THROTTLE_POLICIES } from '../core/queue-rules.js';
import { parseDuration } from '../graph/durations.js';
import { humanDuration } from '../models/view-time.js';
import { oneOf } from './choice-option.js';
import { type ClientFlags, clientAction, STORE_FLAGS, STORE_HELP } from './client-action.js';
import { duration } from './duration-option.js';
import { positiveWholeNumber } from './numeric-option.js';
import { alignColumns, type Output, printJson } from './print.js';

interface CreateFlags extends ClientFlags {
  concurrency?: number;
  keyConcurrency?: number;
  rate?: { limit: number; periodMs: number };
  keyRate?: { limit: number; periodMs: number };
  throttle?: string;
  aging?: number;
}

/** `--rate 20/2s`: a number of starts per duration. */
export function rateOption(value: string): { limit: number; periodMs: number } {
  const match = /^(\d+)\/(\w+)$/.exec(value.trim());
  const limit = match ? Number(match[1]) : Number.NaN;
  const periodMs = match ? parseDuration(match[2] as never) : undefined;
  if (!match || !Number.isInteger(limit) || limit < 1 || periodMs === undefined || periodMs < 1) {
    throw new InvalidArgumentError('Expected starts per duration, such as 20/2s or 100/1m.');
  }
  return { limit, periodMs };
}

/** A queue's limits in words: `3 at once, 1 per key, 20 per 2s, 5 per 1m per key, drops`. */
function limits(q: QueueView): string {
  const rate = (limit: number | null, periodMs: number | null) =>
    limit === null || periodMs === null ? [] : [`${limit} per ${humanDuration(periodMs)}`];
  const rated = q.rateLimit !== null || q.keyRateLimit !== null;
  const parts = [
    q.concurrency === null ? 'no limit at once' : `${q.concurrency} at once`,
    ...(q.keyConcurrency === null ? [] : [`${q.keyConcurrency} per key`]),
    ...rate(q.rateLimit, q.ratePeriodMs),
    ...rate(q.keyRateLimit, q.keyRatePeriodMs).map((r) => `${r} per key`),
    ...(rated && q.throttle === 'drop' ? ['drops starts over the rate'] : []),
  ];
  return parts.join(', ');
}

/** The queues as a table: limits, running, waiting, busiest keys. */
export function formatQueueList(queues: readonly QueueView[], now: number): string {
  if (queues.length === 0) return 'no queues';
  const rows = [
    [
      'QUEUE',
      'LIMITS',
      'RUNNING',
      'WAITING',
      'LONGEST WAIT',
      'TASKS RUNNING',
      'KEYS (running/waiting)',
    ],
    ...queues.map((q) => {
      const oldest = q.keys
        .map((k) => k.oldestWaiting)
        .filter((t): t is number => t !== null)
        .sort((a, b) => a - b)[0];
      const keys = q.keys
        .filter((k) => k.key !== '')
        .slice(0, 5)
        .map(
          (k) =>
            `${k.key} ${k.running}/${k.waiting}${k.attempts > 0 ? ` (${k.attempts} tasks)` : ''}`,
        );
      const more = q.keys.filter((k) => k.key !== '').length - keys.length;
      return [
        q.name,
        limits(q),
        String(q.running),
        String(q.waiting),
        oldest === undefined ? '-' : humanDuration(now - oldest),
        String(q.attempts),
        keys.length === 0 ? '-' : `${keys.join(', ')}${more > 0 ? `, +${more} more` : ''}`,
      ];
    }),
  ];
  return alignColumns(rows);
}

/** Adds `weft queue …` and `weft queues` to the program. */
export function registerQueueCommand(
  program: Command,
  output: Output,
  setExit: (code: number) => void,
): void {
  const withClient = clientAction(output, setExit);
  const list = async (client: Client, flags: ClientFlags) => {
    const queues = await client.queues.list();
    if (flags.json) printJson(output, queues);
    else output.out(formatQueueList(queues, client.clock.now()));
  };

  const queue = program
    .command('queue')
    .description('queues: how many jobs run at once, per key, and how fast they start');

  queue
    .command('create <name>')
    .description(
      'create a queue (or update the limits of the one of that name); start jobs on it with weft start --queue',
    )
    .option(
      '--concurrency <n>',
      'most of its jobs running at once, across every worker',
      positiveWholeNumber,
    )
    .option(
      '--key-concurrency <n>',
      'most jobs of one key (weft start --key) running at once',
      positiveWholeNumber,
    )
    .option(
      '--rate <n/duration>',
      'most starts per period, such as 20/2s; the excess waits',
      rateOption,
    )
    .option(
      '--key-rate <n/duration>',
      'most starts of one key per period, such as 5/1m; the excess of that key waits',
      rateOption,
    )
    .option(
      '--throttle <policy>',
      'a start over a rate: wait (its turn; the default) or drop (refused with RATE_LIMITED)',
    )
    .option(
      '--aging <duration>',
      'a waiting job counts as one priority higher after this long, and again (default: 1m; 0: never)',
      duration,
    )
    .option(STORE_FLAGS, STORE_HELP)
    .option('--json', 'print the queue as JSON')
    .action(
      withClient(async (client, flags: CreateFlags, name: string) => {
        const created = await client.queues.create(
          {
            name,
            ...(flags.concurrency !== undefined && { concurrency: flags.concurrency }),
            ...(flags.keyConcurrency !== undefined && { keyConcurrency: flags.keyConcurrency }),
            ...(flags.rate !== undefined && { rateLimit: flags.rate }),
            ...(flags.keyRate !== undefined && { keyRateLimit: flags.keyRate }),
            ...(flags.throttle !== undefined && {
              throttle: oneOf(THROTTLE_POLICIES, flags.throttle, '--throttle'),
            }),
            ...(flags.aging !== undefined && { agingMs: flags.aging }),
          },
          'cli',
        );
        if (flags.json) return printJson(output, created);
        const view = await client.queues.get(name);
        const what =
          created.status === 'unchanged'
            ? `queue ${name} unchanged`
            : `${created.status} queue ${name}`;
        output.out(`${what}: ${limits(view)}`);
      }),
    );

  queue
    .command('list', { isDefault: true })
    .description(
      'list queues: limits, jobs running and waiting, the longest wait, the busiest keys (the default)',
    )
    .option(STORE_FLAGS, STORE_HELP)
    .option('--json', 'print a JSON array of queues')
    .action(withClient(list));

  program
    .command('queues')
    .description('list queues (as weft queue list)')
    .option(STORE_FLAGS, STORE_HELP)
    .option('--json', 'print a JSON array of queues')
    .action(withClient(list));

  queue
    .command('delete <name>')
    .description('delete a queue; jobs waiting in it are admitted with no limit')
    .option(STORE_FLAGS, STORE_HELP)
    .action(
      withClient(async (client, _flags: ClientFlags, name: string) => {
        await client.queues.delete(name);
        output.out(`deleted queue ${name}`);
      }),
    );
}
