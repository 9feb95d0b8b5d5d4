/**
 * The handler log of a chaos worker: every task handler run appends a START line before
 * it does anything and an END line after it is done, synchronously, to a file of its own
 * worker process. The log is kept apart from the store and the engine, so it shows what
 * really ran: a SIGKILL loses nothing already appended (the kernel holds the write), and
 * the checker can tell a handler a killed worker never finished from one that ran twice
 * for no reason.
 *
 * Lines are `S <epoch ms> <task key>` or `E <epoch ms> <task key>`, tab-separated, the key being
 * `<job>|<activity>|<dimension>|<attempt>` ({@link taskKey}).
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskHandler } from '../../src/worker/task-handler.js';

/** The log file of worker number `worker` inside a run's log directory. */
export function handlerLogPath(dir: string, worker: number): string {
  return join(dir, `w${worker}.handlers.log`);
}

/** One task attempt: the unit a handler run belongs to. */
export function taskKey(job: string, activity: string, dimension: string, attempt: number): string {
  return `${job}|${activity}|${dimension}|${attempt}`;
}

/** Appends START/END lines for a worker's handler runs. */
export class HandlerLog {
  constructor(readonly path: string) {}

  /** Records that a run of `key` started. */
  start(key: string): void {
    appendFileSync(this.path, `S\t${Date.now()}\t${key}\n`);
  }

  /** Records that a run of `key` ended (returned or threw). */
  end(key: string): void {
    appendFileSync(this.path, `E\t${Date.now()}\t${key}\n`);
  }

  /** Wraps a handler so each run is logged; a throw is logged as an end and rethrown. */
  wrap(handler: TaskHandler): TaskHandler {
    return async (input, ctx) => {
      // A revert runs under its activity's address: its key says it is the revert.
      const activity = ctx.idempotencyKey.endsWith(':revert')
        ? `${ctx.activity}!revert`
        : ctx.activity;
      const key = taskKey(ctx.job, activity, ctx.dimension, ctx.attempt);
      this.start(key);
      try {
        return await handler(input, ctx);
      } finally {
        this.end(key);
      }
    };
  }
}

/** One handler run read back from the logs. */
export interface HandlerRun {
  worker: number;
  key: string;
  /** When it started (epoch ms). */
  startedAt: number;
  /** The END line was written. */
  ended: boolean;
  /** When it ended (epoch ms), if it did. */
  endedAt?: number;
}

/** Reads every worker's handler log in `dir`: runs grouped by task key, in log order. */
export function readHandlerRuns(dir: string): Map<string, HandlerRun[]> {
  const runs = new Map<string, HandlerRun[]>();
  for (const name of readdirSync(dir)) {
    const match = /^w(\d+)\.handlers\.log$/.exec(name);
    if (!match) continue;
    const worker = Number(match[1]);
    const open = new Map<string, HandlerRun>();
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      const [kind, at, key] = line.split('\t');
      if (key === undefined) continue;
      if (kind === 'S') {
        const run: HandlerRun = { worker, key, startedAt: Number(at), ended: false };
        open.set(key, run);
        const list = runs.get(key) ?? [];
        list.push(run);
        runs.set(key, list);
      } else if (kind === 'E') {
        const run = open.get(key);
        if (run) {
          run.ended = true;
          run.endedAt = Number(at);
        }
        open.delete(key);
      }
    }
  }
  return runs;
}
