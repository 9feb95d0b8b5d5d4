/**
 * `weft run <module>` for a code-first workflow module (JavaScript or TypeScript): starts
 * one instance of its workflow, runs an in-process worker with the module's workflows and
 * tasks until the instance ends, and prints it. Exit 0 iff SUCCESS.
 */

import { Client } from '../client/client.js';
import { ValidationError } from '../core/errors.js';
import type { Json } from '../store/records.js';
import type { Store } from '../store/store.js';
import { Worker } from '../worker/worker.js';
import { createCliLogger } from './cli-logger.js';
import { loadWorkerModule } from './handlers-module.js';
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
import { formatJobView, type Output, printJson } from './print.js';
import { stopWithin } from './worker-command.js';

/** Options of `weft run` on a module. */
export interface CodeFirstRunOptions {
  input?: string;
  handlers?: string;
  workflow?: string;
  json?: boolean;
  id?: string;
  /** Handlers running at once (default 10). */
  concurrency?: number;
  /** `--log-format`: pretty (default) or json. */
  logFormat?: string;
  /** `--verbose`: every log line's stack (a failed attempt's too). */
  verbose?: boolean;
}

/** Runs a code-first module's workflow to its end; returns the exit code. */
export async function runCodeFirst(
  store: Store,
  file: string,
  options: CodeFirstRunOptions,
  output: Output,
  /** Listening for Ctrl-C and SIGTERM (set up by the caller, disposed by it). */
  interrupt: Interrupt,
): Promise<number> {
  const logger = createCliLogger(parseLogFormat(options.logFormat), {
    verbose: Boolean(options.verbose),
  });
  const module = await loadWorkerModule(file, 'weft run');
  const extra = await loadWorkerModule(options.handlers);
  const workflows = [...module.workflows, ...extra.workflows];
  const chosen = options.workflow
    ? workflows.find((w) => w.name === options.workflow)
    : (module.defaultWorkflow ?? (module.workflows.length === 1 ? module.workflows[0] : undefined));
  if (!chosen) {
    throw new ValidationError(
      options.workflow
        ? `has no workflow ${JSON.stringify(options.workflow)} (it has ${workflows.map((w) => w.name).join(', ') || 'none'})`
        : `has ${module.workflows.length} workflows (${module.workflows.map((w) => w.name).join(', ')}); say which with --workflow, or export one as default`,
      file,
    );
  }
  const input = parseJsonArgument(options.input, '--input') ?? [];
  const worker = new Worker({
    store,
    logger,
    workflows,
    tasks: [...module.tasks, ...extra.tasks],
    handlers: { ...module.handlers, ...extra.handlers },
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    graceMs: WORKER_GRACE_MS,
  });
  const client = new Client(store);
  try {
    await worker.start();
    const job = await client.start(
      chosen.name,
      input as Json,
      options.id ? { id: options.id } : {},
    );
    if (!options.json) output.out(`job ${job.id}  ${chosen.name} (code-first)`);
    const signal = await untilEndOrInterrupt(client, job.id, interrupt);
    if (signal) {
      await stopWithin(worker, WORKER_GRACE_MS, output, 'weft run');
      output.err(
        await interruptedNote(
          client,
          job.id,
          signal,
          resumeCommand(file, options.handlers, options.workflow),
        ),
      );
      return SIGNAL_EXIT_CODE[signal];
    }
    const view = await client.status(job.id, { steps: true });
    if (options.json) printJson(output, view);
    else output.out(`\n${formatJobView(view, { verbose: Boolean(options.verbose) })}`);
    return view.state === 'SUCCESS' ? 0 : 1;
  } finally {
    await stopWithin(worker, WORKER_GRACE_MS, output, 'weft run');
  }
}
