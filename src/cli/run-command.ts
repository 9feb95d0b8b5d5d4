/**
 * `weft run <file>`: deploys the file and the workflows it awaits (as `weft deploy` does:
 * an edited file becomes the next version), starts one job on that version, runs
 * an in-process worker until the job ends, and prints it. While it runs, each new
 * collation key is printed, so a person watches the job move; the worker's log lines
 * come between them, each after the key lines of what committed before it. Exit 0 iff
 * SUCCESS.
 */

import { Client } from '../client/client.js';
import { ValidationError } from '../core/errors.js';
import type { Json } from '../store/records.js';
import type { Store } from '../store/store.js';
import { Worker } from '../worker/worker.js';
import { logWarning, type WorkerLogger } from '../worker/worker-options.js';
import { createCliLogger } from './cli-logger.js';
import { loadHandlers } from './handlers-module.js';
import {
  type Interrupt,
  interruptedNote,
  resumeCommand,
  SIGNAL_EXIT_CODE,
  untilEndOrInterrupt,
  WORKER_GRACE_MS,
} from './interrupt.js';
import { parseJsonArgument } from './json-argument.js';
import { parseLogFormat } from './log-format.js';
import { formatJobView, formatKeyChanges, keyViewOfLine, type Output, printJson } from './print.js';
import { stopWithin } from './worker-command.js';
import { readWorkflowWithDependencies } from './workflow-files.js';

/** Options of `weft run`. */
export interface RunOptions {
  input?: string;
  handlers?: string;
  json?: boolean;
  id?: string;
  /** Handlers running at once (default 10). */
  concurrency?: number;
  /** `--log-format`: pretty (default) or json. */
  logFormat?: string;
  /** `--verbose`: every log line's stack (a failed attempt's too). */
  verbose?: boolean;
}

/** Runs `weft run`; returns the exit code. */
export async function runCommand(
  store: Store,
  file: string,
  options: RunOptions,
  output: Output,
  /** Listening for Ctrl-C and SIGTERM (set up by the caller, disposed by it). */
  interrupt: Interrupt,
): Promise<number> {
  const format = parseLogFormat(options.logFormat);
  const files = readWorkflowWithDependencies(file);
  const input = parseJsonArgument(options.input, '--input') ?? {};
  const handlers = await loadHandlers(options.handlers);
  for (const f of files) {
    for (const activity of Object.values(f.compiled.activities)) {
      const tasks = activity.kind === 'task' ? [activity.task ?? activity.id] : [];
      if (activity.kind === 'task' && activity.revert) tasks.push(activity.revert);
      const task = tasks.find((t) => !handlers[t]);
      if (task !== undefined) {
        throw new ValidationError(
          `activity ${activity.id} runs task ${JSON.stringify(task)}, but ${options.handlers ? `the handlers module ${options.handlers} has no such export key` : 'no --handlers module was given'}`,
          `${f.path}${activity.line ? `:${activity.line}` : ''}`,
        );
      }
    }
  }
  const client = new Client(store);
  const deployed = [];
  for (const f of files) deployed.push(await client.deploy(f.compiled, f.text));
  const root = files[0]?.compiled.workflow as string;
  // The job runs the version this file was stored as, even when it pins an older one.
  const job = await client.start(root, input as Json, {
    version: deployed[0]?.version as number,
    ...(options.id ? { id: options.id } : {}),
  });
  let last = '';
  // Each activity's digit as last printed: a new key names the activities that moved.
  const digits = new Map<string, number>();
  // The history lines read so far, and the job's state as of the last of them.
  let seq = 0;
  let state = 'RUNNING';
  const show = async () => {
    if (options.json) return;
    const view = await client.status(job.id);
    if (view.children.length) {
      // A compositional key folds in its children's keys, which the job's own history
      // does not hold: print it as the job stands now.
      const key = view.compositional ?? '';
      if (key !== last) {
        last = key;
        for (const line of formatKeyChanges(view, key, digits)) output.out(line);
      }
      return;
    }
    // Every key the job's history recorded since the last read, in order: reads that fall
    // behind the commits (one waits at a time) still print each intermediate key.
    const lines = await client.history(job.id, { afterSeq: seq });
    for (const line of lines) {
      seq = line.seq;
      const key = line.change.collation;
      if (key === undefined || key === last) {
        state = line.change.state ?? state;
        continue;
      }
      last = key;
      const at = keyViewOfLine(view.activities, line, state);
      state = at.state;
      for (const text of formatKeyChanges(at, key, digits)) output.out(text);
    }
  };
  if (!options.json) {
    // An edited file is stored as the next version: say so, as `weft deploy` does.
    for (const d of deployed) {
      if (d.previousVersion !== undefined) {
        output.out(
          `deployed ${d.workflow} version ${d.version} (changed from version ${d.previousVersion})`,
        );
      }
    }
    output.out(`job ${job.id}  ${root}`);
  }
  await show();
  let showing: Promise<void> = Promise.resolve();
  // At most one status read waits behind the one running: a backlog's thousands of
  // commits must not queue thousands of reads that a Ctrl-C would then wait out.
  let showQueued = false;
  const later = (write: () => void) => {
    showing = showing.then(show).then(write, write);
  };
  const cliLogger = createCliLogger(format, { verbose: Boolean(options.verbose) });
  // A log line waits for the key lines of what committed before it, so the two read in
  // the order things happened (the key that released `ate`, then `ended SUCCESS`).
  const logger: WorkerLogger = options.json
    ? cliLogger
    : {
        error: (message, error, fields) => later(() => cliLogger.error(message, error, fields)),
        warn: (message, error, fields) =>
          later(() => logWarning(cliLogger, message, error, fields)),
        info: (message, fields) => later(() => cliLogger.info(message, fields)),
      };
  const worker = new Worker({
    store,
    logger,
    handlers,
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    graceMs: WORKER_GRACE_MS,
    // Every step commits on its own, so each intermediate collation key is printed.
    inlineSteps: 0,
    onCommit: () => {
      if (showQueued) return;
      showQueued = true;
      showing = showing
        .then(() => {
          showQueued = false;
          return show();
        })
        .catch(() => {});
    },
  });
  try {
    await worker.start();
    const signal = await untilEndOrInterrupt(client, job.id, interrupt);
    if (signal) {
      await stopWithin(worker, WORKER_GRACE_MS, output, 'weft run');
      await showing;
      output.err(
        await interruptedNote(client, job.id, signal, resumeCommand(file, options.handlers)),
      );
      return SIGNAL_EXIT_CODE[signal];
    }
  } finally {
    await stopWithin(worker, WORKER_GRACE_MS, output, 'weft run');
    await showing;
  }
  const view = await client.status(job.id);
  if (options.json) printJson(output, view);
  else output.out(`\n${formatJobView(view, { verbose: Boolean(options.verbose) })}`);
  return view.state === 'SUCCESS' ? 0 : 1;
}
