/**
 * The `weft` command line. Every command takes `--store URL` (else `WEFT_STORE`, else
 * the embedded `sqlite:./.weft/weft.db`); `--json` prints one JSON object (a job always in the
 * shape `weft status --json` prints); exit 0 means success. Typed errors print their message
 * (or `{"error": …}` with `--json`) and exit 1.
 */

import { Command, CommanderError } from 'commander';
import type { Deployment } from '../client/client.js';
import { DUPLICATE_POLICIES } from '../client/idempotent-start.js';
import { toErrorRecord, ValidationError, WeftError } from '../core/errors.js';
import { describeRetention } from '../core/retention.js';
import { FLOW_STATES, type FlowState } from '../core/states.js';
import type { RetentionOption } from '../graph/retention.js';
import { openStore } from '../store/open-store.js';
import type { Json } from '../store/records.js';
import type { Store } from '../store/store.js';
import { WORKER_DEFAULTS } from '../worker/worker-options.js';
import { oneOf } from './choice-option.js';
import { registerDashboardCommand } from './dashboard-command.js';
import { registerDeadLettersCommand } from './dead-letters-command.js';
import { debounceOption } from './debounce-option.js';
import { positiveDuration } from './duration-option.js';
import { formatHistory } from './history-table.js';
import { listenForInterrupt } from './interrupt.js';
import { parseJsonArgument } from './json-argument.js';
import { clientOf } from './lazy-client.js';
import { LOG_FORMATS } from './log-format.js';
import { positiveWholeNumber, wholeNumber } from './numeric-option.js';
import { packageVersion } from './package-version.js';
import {
  ACTIVITY_ORDERS,
  formatJobList,
  formatJobView,
  type Output,
  printJson,
  processOutput,
} from './print.js';
import { registerPruneCommand } from './prune-command.js';
import { registerQueueCommand } from './queue-command.js';
import { registerRerunCommand } from './rerun-command.js';
import { retentionOption } from './retention-option.js';
import { registerScheduleCommand } from './schedule-command.js';
import { registerServeCommand } from './serve-command.js';
import { retryingUnreachable } from './store-retry.js';
import { taskCountOption, taskLimitsOf, taskTextOption } from './task-limit-option.js';
import { isoTimeOption } from './time-option.js';

/** `--log-format` of the commands that run a worker. */
const LOG_FORMAT_FLAGS = '--log-format <format>';
const LOG_FORMAT_HELP = `worker log lines on stderr: ${LOG_FORMATS.join(' or ')} (default: pretty)`;
/** `--verbose` of the commands that run a worker. */
const VERBOSE_HELP =
  "pretty log lines: a failed attempt's stack too (by default one line; stacks only for errors)";

/** Files `weft run` treats as code-first modules rather than workflow files. */
const CODE_FILE = /\.(m|c)?(j|t)s$/;

interface Common {
  store?: string;
  json?: boolean;
}

/** Builds the program; `run` wraps each action with store handling and exit codes. */
export function buildProgram(output: Output, setExit: (code: number) => void): Command {
  const program = new Command('weft')
    .description('weft: durable workflows for TypeScript')
    .version(packageVersion(), '-V, --version', 'print the version of weft')
    // Program options only before the command: `weft start x --version 2` is start's own.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => output.out(s.trimEnd()),
      writeErr: (s) => output.err(s.trimEnd()),
    });

  const withStore =
    <A extends unknown[]>(
      action: (store: Store, opts: Common & Record<string, unknown>, ...args: A) => Promise<number>,
      open: (url: string | undefined, opts: Common & Record<string, unknown>) => Promise<Store> = (
        url,
      ) => openStore(url),
    ) =>
    async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const opts = command.opts() as Common & Record<string, unknown>;
      let store: Store | undefined;
      try {
        store = await open(opts.store ?? process.env.WEFT_STORE, opts);
        setExit(await action(store, opts, ...(args.slice(0, -2) as A)));
      } catch (error) {
        setExit(reportError(output, error, Boolean(opts.json)));
      } finally {
        await store?.close();
      }
    };

  const storeOption = (c: Command) =>
    c.option('--store <url>', 'store URL (default: $WEFT_STORE or sqlite:./.weft/weft.db)');

  storeOption(program.command('run <file>'))
    .description(
      'run one job to its end in-process: a workflow file (YAML/JSON) or a code-first module (.ts/.js)',
    )
    .option('--input <json>', 'job input as JSON')
    .option('--handlers <module>', 'ES module whose default export maps task names to handlers')
    .option('--id <id>', 'job id (idempotent)')
    .option(
      '--concurrency <n>',
      `handlers running at once (default ${WORKER_DEFAULTS.concurrency}; lower it for CPU-bound handlers)`,
      positiveWholeNumber,
    )
    .option('--json', 'print the finished job as JSON')
    .option(
      '--workflow <name>',
      'code-first module: the workflow to run (default: its default export)',
    )
    .option(LOG_FORMAT_FLAGS, LOG_FORMAT_HELP)
    .option('--verbose', VERBOSE_HELP)
    .action(async (...args: unknown[]) => {
      // Listening from the start: a Ctrl-C at any point stops the run the same way.
      const interrupt = listenForInterrupt((signal) =>
        output.err(`weft run: ${signal} again: exiting now`),
      );
      try {
        await withStore(async (store, opts, file: string) =>
          CODE_FILE.test(file)
            ? (await import('./run-code-first.js')).runCodeFirst(
                store,
                file,
                opts,
                output,
                interrupt,
              )
            : (await import('./run-command.js')).runCommand(store, file, opts, output, interrupt),
        )(...args);
      } finally {
        interrupt.dispose();
      }
    });

  program
    .command('validate <file>')
    .description('check a workflow file; exit non-zero naming what is wrong')
    .option('--json', 'print the compiled workflow as JSON')
    .action(async (file: string, opts: Common) => {
      try {
        const { readWorkflowFile } = await import('./workflow-files.js');
        const { compiled } = readWorkflowFile(file);
        if (opts.json) printJson(output, compiled);
        else
          output.out(
            `${file}: ok (${compiled.workflow}@${compiled.version}, ${compiled.order.length} activities)`,
          );
        setExit(0);
      } catch (error) {
        setExit(reportError(output, error, Boolean(opts.json)));
      }
    });

  storeOption(program.command('deploy <files...>'))
    .description(
      'store workflow files: a changed file becomes the next version, unless it names its `version:`',
    )
    .option('--json', 'print the stored definitions as JSON')
    .action(
      withStore(async (store, opts, files: string[]) => {
        const client = await clientOf(store);
        const { readWorkflowFile } = await import('./workflow-files.js');
        const deployed = [];
        for (const file of files) {
          const { compiled, text } = readWorkflowFile(file);
          const d = await client.deploy(compiled, text);
          deployed.push({
            workflow: d.workflow,
            version: d.version,
            status: d.status,
            ...(d.previousVersion !== undefined && { previousVersion: d.previousVersion }),
            ...(d.schedules && {
              schedules: d.schedules.map((s) => ({
                ...s,
                nextAt: s.nextAt === null ? null : new Date(s.nextAt).toISOString(),
              })),
            }),
          });
          if (!opts.json) output.out(describeDeployment(d));
        }
        if (opts.json) printJson(output, deployed);
        return 0;
      }),
    );

  storeOption(program.command('start <workflow>'))
    .description("start a job; prints the job's id on the last line")
    .option('--input <json>', 'job input as JSON')
    .option('--id <id>', 'job id (starting an existing id returns that job)')
    .option('--version <n>', 'workflow version (default: newest)', positiveWholeNumber)
    .option(
      '--timeout <duration>',
      "end the job (and its child jobs) in FAILURE if it is still running this long after its start: 30s, 5m, 2h… (over the workflow's own timeout)",
      positiveDuration,
    )
    .option(
      '--delay <duration>',
      'start it this long from now (30s, 5m, 2h…): it is created now and takes its first step then',
      positiveDuration,
    )
    .option(
      '--at <time>',
      'start it at this ISO time (2026-11-27T03:00:00Z; UTC unless it names an offset)',
      isoTimeOption,
    )
    .option(
      '--idempotency-key <key>',
      'start once per key: a second start with it prints the job that holds it (see --on-duplicate)',
    )
    .option(
      '--idempotency-ttl <duration>',
      'how long the key is held (default 24h)',
      positiveDuration,
    )
    .option(
      '--on-duplicate <policy>',
      'a start with a key that is held: return (the job that holds it; the default), refuse, or after_end (a new job once that one ended)',
    )
    .option(
      '--queue <name>',
      'wait for a slot of this queue (weft queue create) before the first step',
    )
    .option('--key <key>', "the job's key for the queue's per-key limit")
    .option(
      '--priority <n>',
      'its place in the queue: lower runs first (default 0)',
      wholeNumber({ min: -1_000_000, max: 1_000_000 }),
    )
    .option(
      '--debounce-key <key>',
      'debounce: the starts with this key within --debounce-delay of each other are one job (see --debounce-mode)',
    )
    .option(
      '--debounce-delay <duration>',
      'with --debounce-key: how long the window stays open after a start',
      positiveDuration,
    )
    .option(
      '--debounce-max <duration>',
      'with --debounce-key: the longest a window stays open from its first start',
      positiveDuration,
    )
    .option(
      '--debounce-mode <mode>',
      'trailing (the last start runs, delay after it; the default) or leading (the first runs at once)',
    )
    .option('--json', 'print the job as JSON')
    .action(
      withStore(async (store, opts, workflow: string) => {
        const debounce = debounceOption(opts);
        const input = (parseJsonArgument(opts.input as string | undefined, '--input') ??
          null) as Json;
        if (opts.delay !== undefined && opts.at !== undefined) {
          throw new ValidationError('give one of them, not both', '--delay and --at');
        }
        const known = await store.getDefinition(workflow);
        const client = await clientOf(store);
        const job = await client.start(workflow, input, {
          ...(opts.id ? { id: opts.id as string } : {}),
          ...(opts.version !== undefined ? { version: opts.version as number } : {}),
          ...(opts.timeout !== undefined ? { timeoutMs: opts.timeout as number } : {}),
          ...(opts.delay !== undefined ? { delayMs: opts.delay as number } : {}),
          ...(opts.at !== undefined ? { startAt: opts.at as number } : {}),
          ...(opts.idempotencyKey !== undefined
            ? { idempotencyKey: opts.idempotencyKey as string }
            : {}),
          ...(opts.idempotencyTtl !== undefined
            ? { idempotencyTtlMs: opts.idempotencyTtl as number }
            : {}),
          ...(opts.onDuplicate !== undefined
            ? {
                onDuplicate: oneOf(
                  DUPLICATE_POLICIES,
                  opts.onDuplicate as string,
                  '--on-duplicate',
                ),
              }
            : {}),
          ...(opts.queue !== undefined ? { queue: opts.queue as string } : {}),
          ...(opts.key !== undefined ? { key: opts.key as string } : {}),
          ...(opts.priority !== undefined ? { priority: opts.priority as number } : {}),
          ...(debounce ? { debounce } : {}),
        });
        if (!known) output.err(notRegisteredYet(workflow));
        if (opts.json) printJson(output, await client.status(job.id));
        else output.out(job.id);
        return 0;
      }),
    );

  storeOption(program.command('worker'))
    .description('run a worker until SIGTERM or SIGINT')
    .option(
      '--handlers <module>',
      'ES module (JS or TS): a default export of task handlers, and any code-first workflows and tasks it exports',
    )
    .option(
      '--concurrency <n>',
      'handlers running at once (lower it for CPU-bound handlers)',
      positiveWholeNumber,
      WORKER_DEFAULTS.concurrency,
    )
    .option(
      '--task-concurrency <task=n>',
      'most attempts of a task running at once across every worker, enforced by the store (again for more tasks)',
      taskCountOption,
    )
    .option(
      '--task-worker-concurrency <task=n>',
      'most attempts of a task running at once in this worker (again for more tasks)',
      taskCountOption,
    )
    .option(
      '--task-queue <task=queue>',
      "claim a task's attempts through a queue: its limits hold over every task that names it (again for more tasks)",
      taskTextOption,
    )
    .option(
      '--task-queue-key <task=expression>',
      "a queued task's key for per-key limits: a JSONata expression over { input }, such as charge=input.customer",
      taskTextOption,
    )
    .option(
      '--grace-ms <ms>',
      'on SIGINT/SIGTERM, how long running handlers may finish before their work is handed back',
      positiveWholeNumber,
      10_000,
    )
    .option(
      '--give-up-ms <ms>',
      'exit 1 when the store stays unreachable this long (it is retried until then)',
      positiveWholeNumber,
      600_000,
    )
    .option(
      '--lease-ms <ms>',
      "how long a claim holds a message (renewed while its handler runs); a dead worker's work is taken over, and its job resumed, once it runs out",
      positiveWholeNumber,
      30_000,
    )
    .option(
      '--retention <duration>',
      'prune finished jobs this long after they end (30d, or per end state: succeeded=7d,failed=30d; forever keeps them), for workflows whose file or definition gives no retention (default: forever)',
      retentionOption,
    )
    .option(
      '--metrics-port <n>',
      "serve this worker's Prometheus metrics at http://<metrics-host>:<n>/metrics (0: any free port)",
      wholeNumber({ min: 0, max: 65535 }),
    )
    .option('--metrics-host <host>', 'interface --metrics-port listens on', '127.0.0.1')
    .option(
      '--metrics-store',
      "also serve the store-wide series there (unfinished jobs, streams, queues, schedules; the dashboard's /metrics)",
    )
    .option(LOG_FORMAT_FLAGS, LOG_FORMAT_HELP)
    .option('--verbose', VERBOSE_HELP)
    .action(
      withStore(
        async (store, opts) =>
          (await import('./worker-command.js')).runWorkerCommand(
            store,
            {
              handlers: opts.handlers as string | undefined,
              concurrency: opts.concurrency as number,
              taskLimits: taskLimitsOf(
                opts.taskConcurrency as Record<string, number> | undefined,
                opts.taskWorkerConcurrency as Record<string, number> | undefined,
              ),
              taskQueues: opts.taskQueue as Record<string, string> | undefined,
              taskQueueKeys: opts.taskQueueKey as Record<string, string> | undefined,
              logFormat: opts.logFormat as string | undefined,
              verbose: Boolean(opts.verbose),
              graceMs: opts.graceMs as number,
              giveUpMs: opts.giveUpMs as number,
              leaseMs: opts.leaseMs as number,
              ...(opts.retention !== undefined && {
                retention: opts.retention as RetentionOption,
              }),
              ...(opts.metricsPort !== undefined && {
                metrics: {
                  port: opts.metricsPort as number,
                  host: opts.metricsHost as string,
                  store: Boolean(opts.metricsStore),
                },
              }),
            },
            output,
          ),
        // A worker started while its store is away waits for it, up to --give-up-ms.
        (url, opts) =>
          retryingUnreachable(
            () => openStore(url),
            opts.giveUpMs as number,
            (error) => output.err(`weft worker: ${error.message}; retrying until --give-up-ms`),
          ),
      ),
    );

  storeOption(program.command('signal <job> <name>'))
    .description("send a signal to a job's hook")
    .option('--data <json>', 'signal data as JSON')
    .option('--json', 'print the outcome as JSON')
    .action(
      withStore(async (store, opts, job: string, name: string) => {
        const data = (parseJsonArgument(opts.data as string | undefined, '--data') ?? null) as Json;
        const outcome = await (await clientOf(store)).signal(job, name, data);
        if (opts.json) printJson(output, outcome);
        else output.out(`signal ${name} ${outcome.status}`);
        return 0;
      }),
    );

  storeOption(program.command('event <job> <name>'))
    .description('send an event to a code-first job (its onEvent branch, and waits for it)')
    .option('--data <json>', 'event data as JSON')
    .action(
      withStore(async (store, opts, job: string, name: string) => {
        const data = (parseJsonArgument(opts.data as string | undefined, '--data') ?? null) as Json;
        const outcome = await (await clientOf(store)).sendEvent(job, name, data);
        output.out(`event ${name} sent`);
        if (!outcome.awaited) output.err(unawaitedEvent(job, name, outcome.waitedFor));
        return 0;
      }),
    );

  for (const [op, description] of [
    [
      'pause',
      'pause a job (graph or code-first): SUSPENDING while its running tasks finish, then SUSPENDED; nothing new starts',
    ],
    ['resume', 'resume a SUSPENDED job (or a code-first job stopped by a code change)'],
    ['terminate', 'terminate a code-first job'],
  ] as const) {
    storeOption(program.command(`${op} <job>`))
      .description(description)
      .option('--json', 'print the job as JSON')
      .action(
        withStore(async (store, opts, jobId: string) => {
          const client = await clientOf(store);
          const job = await client[op](jobId);
          if (opts.json) printJson(output, await client.status(job.id));
          else output.out(`${job.id} ${job.state}`);
          return 0;
        }),
      );
  }

  storeOption(program.command('status <job>'))
    .description(
      'show a job: state, what it waits for, collation key, activities by digit position',
    )
    .option(
      '--verbose',
      "also print every activity error's whole stack and a code-first job's engine internals",
    )
    .option(
      '--order <order>',
      `a graph job's activity rows: ${ACTIVITY_ORDERS.join(' or ')} (key: by digit position, the default; run: in the order they ran)`,
    )
    .option('--json', 'print the job as JSON')
    .action(
      withStore(async (store, opts, job: string) => {
        const order = oneOf(
          ACTIVITY_ORDERS,
          (opts.order as string | undefined) ?? 'key',
          '--order',
        );
        const view = await (await clientOf(store)).status(job, { steps: true });
        if (opts.json) printJson(output, view);
        else
          output.out(
            formatJobView(view, {
              verbose: Boolean(opts.verbose),
              order,
            }),
          );
        return 0;
      }),
    );

  storeOption(program.command('history <job>'))
    .description(
      "show a job's history: one row per committed step, oldest first (kind, activity, what changed, worker)",
    )
    .option('--after <seq>', 'only steps after this seq', wholeNumber({ min: 0 }))
    .option('--limit <n>', 'at most this many', positiveWholeNumber)
    .option('--json', 'print a JSON array of history entries')
    .action(
      withStore(async (store, opts, job: string) => {
        const entries = await (await clientOf(store)).history(job, {
          ...(opts.after !== undefined ? { afterSeq: opts.after as number } : {}),
          ...(opts.limit !== undefined ? { limit: opts.limit as number } : {}),
        });
        if (opts.json) printJson(output, entries);
        else output.out(formatHistory(entries));
        return 0;
      }),
    );

  storeOption(program.command('result <job>'))
    .description("print a job's output; exit 0 iff it succeeded")
    .option('--wait', 'wait for the job to end')
    .option(
      '--timeout <duration>',
      'with --wait, give up after this long: 30s, 5m… (or plain milliseconds)',
      positiveDuration,
    )
    .option('--json', 'print the job as JSON')
    .action(
      withStore(async (store, opts, jobId: string) => {
        const client = await clientOf(store);
        const job = await client.result(jobId, {
          wait: Boolean(opts.wait),
          ...(opts.timeout !== undefined ? { timeoutMs: opts.timeout as number } : {}),
        });
        if (opts.json) printJson(output, await client.status(job.id));
        else if (job.state === 'SUCCESS') output.out(JSON.stringify(job.output));
        else output.out(`${job.state}${job.error ? `: ${job.error.message}` : ''}`);
        return job.state === 'SUCCESS'
          ? 0
          : job.state === 'RUNNING' || job.state === 'PENDING'
            ? 3
            : 1;
      }),
    );

  storeOption(program.command('list'))
    .description('list jobs, newest first')
    .option('--state <state>', `only jobs in this state (${FLOW_STATES.join(', ')})`)
    .option('--workflow <id>', 'only jobs of this workflow')
    .option('--limit <n>', 'at most this many', positiveWholeNumber, 100)
    .option(
      '--after <time|job>',
      'only jobs created at or after an ISO time (2026-11-23T09:00Z), or after a job (by id)',
    )
    .option('--json', 'print a JSON array of jobs')
    .action(
      withStore(async (store, opts) => {
        const state = opts.state as string | undefined;
        if (state !== undefined && !FLOW_STATES.includes(state as FlowState)) {
          throw new ValidationError(`must be one of ${FLOW_STATES.join(', ')}`, `--state ${state}`);
        }
        const client = await clientOf(store);
        const limit = opts.limit as number;
        const after = await listAfter(store, opts.after as string | undefined);
        const records = (
          await client.list({
            ...(state ? { state: state as FlowState } : {}),
            ...(opts.workflow ? { workflow: opts.workflow as string } : {}),
            ...(after ? { createdAfter: after.createdAfter } : {}),
            descending: true,
            // The job named by --after is itself left out.
            limit: after?.except ? limit + 1 : limit,
          })
        )
          // Ids sort by creation time: the job named by --after, and jobs created in the
          // same millisecond before it, are left out.
          .filter((job) => after?.except === undefined || job.id > after.except)
          .slice(0, limit);
        // The same shape as `weft status --json`, one per job, read side by side: on a
        // server store one job's reads wait on the network, not on the job before.
        const jobs = await Promise.all(records.map((job) => client.status(job.id)));
        if (opts.json) printJson(output, jobs);
        else output.out(formatJobList(jobs));
        return 0;
      }),
    );

  storeOption(program.command('cancel <job>'))
    .description(
      'cancel a running job: it ends in FAILURE, and its tasks that have not started never will',
    )
    .option('--json', 'print the job as JSON')
    .action(
      withStore(async (store, opts, jobId: string) => {
        const client = await clientOf(store);
        const job = await client.cancel(jobId);
        if (opts.json) printJson(output, await client.status(job.id));
        else output.out(`${job.id} ${job.state}`);
        return 0;
      }),
    );

  // weft serve: the agent protocol over HTTP (docs/agent-protocol.md).
  registerServeCommand(program, output, setExit);
  registerDashboardCommand(program, output, setExit);
  // weft dead-letters [list|requeue <id>].
  registerDeadLettersCommand(program, output, setExit);
  // weft schedule [create|list|show|pause|resume|delete|backfill], weft schedules.
  registerScheduleCommand(program, output, setExit);
  // weft queue [create|list|delete], weft queues.
  registerQueueCommand(program, output, setExit);
  // weft prune --older-than <duration> [--state …] [--workflow …] [--dry-run].
  registerPruneCommand(program, output, setExit);
  // weft rerun <job> --from <step> [--id …].
  registerRerunCommand(program, output, setExit);

  return program;
}

/**
 * `deployed shop version 2 (changed from version 1)`, or `shop unchanged, version 1`; then
 * a line per schedule of the file, its queue and its retention.
 */
function describeDeployment(d: Deployment): string {
  const from =
    d.previousVersion === undefined ? '' : ` (changed from version ${d.previousVersion})`;
  const lines = [
    d.status === 'unchanged'
      ? `${d.workflow} unchanged, version ${d.version}`
      : `deployed ${d.workflow} version ${d.version}${from}`,
  ];
  for (const s of d.schedules ?? []) {
    const next = s.nextAt === null ? '' : `; next run ${new Date(s.nextAt).toISOString()}`;
    lines.push(
      s.status === 'deleted'
        ? `schedule ${s.name} deleted: the file no longer names it`
        : `schedule ${s.name} ${s.status}${next}`,
    );
  }
  if (d.queue) lines.push(`queue ${d.queue.name} ${d.queue.status}`);
  if (d.retention) lines.push(`retention ${describeRetention(d.retention)}`);
  return lines.join('\n');
}

/** What `weft start` says on stderr when it starts a workflow no one has deployed or registered. */
function notRegisteredYet(workflow: string): string {
  return `no worker has registered workflow ${JSON.stringify(workflow)} yet; the job waits for a worker with its code (a graph workflow must be deployed first: weft deploy <file>)`;
}

/**
 * What `weft event` says on stderr when no wait of the job waits for the event it sent: a
 * misspelt name would pass silently otherwise (a code-first workflow declares no event
 * names, so none is refused).
 */
function unawaitedEvent(job: string, name: string, waitedFor: readonly string[]): string {
  const waits = waitedFor.length
    ? `it waits for ${waitedFor.map((e) => `event ${e}`).join(', ')}`
    : 'it waits for no event now';
  return `warning: no wait of job ${job} waits for event ${JSON.stringify(name)} (${waits}); it goes only to the workflow's onEvent, if it has one. Check the name.`;
}

/**
 * `--after`: an ISO time (jobs created at or after it) or a job id (jobs created after
 * that job).
 */
async function listAfter(
  store: Store,
  value: string | undefined,
): Promise<{ createdAfter: number; except?: string } | undefined> {
  if (value === undefined) return undefined;
  const at = /^\d{4}-\d\d-\d\d/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isNaN(at)) return { createdAfter: at };
  const job = await store.getJob(value);
  if (!job) {
    throw new ValidationError(
      `must be an ISO time such as 2026-11-23T09:00:00Z or a job id, got ${JSON.stringify(value)}`,
      '--after',
    );
  }
  return { createdAfter: job.createdAt, except: job.id };
}

function reportError(output: Output, error: unknown, json: boolean): number {
  if (json)
    printJson(output, {
      error: error instanceof WeftError ? error.toJSON() : toErrorRecord(error),
    });
  else if (error instanceof WeftError) output.err(`error: ${error.message}`);
  else
    output.err(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 1;
}

/** Runs the CLI with `argv` (as process.argv); resolves to the exit code. */
export async function main(argv: string[], output: Output = processOutput): Promise<number> {
  let code = 0;
  const program = buildProgram(output, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  return code;
}
