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
import { createCliLogger, parseLogFormat } from './cli-logger.js';
import { loadWorkerModule } from './handlers-module.js';
import { parseJsonArgument } from './json-argument.js';
import { formatJobView, type Output, printJson } from './print.js';

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
}

/** Runs a code-first module's workflow to its end; returns the exit code. */
export async function runCodeFirst(
  store: Store,
  file: string,
  options: CodeFirstRunOptions,
  output: Output,
): Promise<number> {
  const logger = createCliLogger(parseLogFormat(options.logFormat));
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
    concurrency: options.concurrency ?? 10,
  });
  const client = new Client(store);
  const stop = () => void worker.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await worker.start();
    const job = await client.start(
      chosen.name,
      input as Json,
      options.id ? { id: options.id } : {},
    );
    if (!options.json) output.out(`job ${job.id}  ${chosen.name} (code-first)`);
    await client.result(job.id, { wait: true });
    const view = await client.status(job.id);
    if (options.json) printJson(output, view);
    else output.out(`\n${formatJobView(view)}`);
    return view.state === 'SUCCESS' ? 0 : 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await worker.stop();
  }
}
