/**
 * No attempt runs before its time, whichever process claims it: a task whose handler
 * always fails, under `retry: { attempts: 3, backoff: 1s }`, runs three attempts at
 * least 1 s and then 2 s apart — read from the job's history (`weft history --json`: each
 * attempt's start, and the delay each retry was given) — for a graph task and a
 * code-first task, under `weft run` (one process, whose worker appends the retries
 * itself) and under two `weft worker` processes with the job started by `weft start`.
 * Each command is its own process (`node bin/weft.js …`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobHistoryEntry } from '../../../src/client/job-history.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import {
  launchWeft,
  REPO_ROOT,
  type RunningWeft,
  runWeft,
  type WeftRun,
} from '../../support/weft-cli.js';

const LIBRARY = pathToFileURL(join(REPO_ROOT, 'dist', 'index.js')).href;

let location: TestStoreLocation;
let dir: string;
const workers: RunningWeft[] = [];
beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-retry-'));
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: dir, timeoutMs: 90_000 });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function startWorker(module: string): void {
  workers.push(launchWeft(['worker', '--handlers', module], { store: location.url, cwd: dir }));
}

/** Jitter 0.3: each delay is its backoff plus up to 30 %, as the history records it. */
const GRAPH = `
workflow: tries
activities:
  start: { kind: trigger }
  flaky: { kind: task, retry: { attempts: 3, backoff: 1s, jitter: 0.3 } }
transitions:
  start: [flaky]
`;
const GRAPH_HANDLERS = `
export default {
  flaky: async () => {
    throw new Error('always fails');
  },
};
`;
const CODE_FIRST = `
import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};

export const flaky = defineTask(
  'flaky',
  async () => {
    throw new Error('always fails');
  },
  { retry: { attempts: 3, backoff: '1s', jitter: 0.3 } },
);

export default defineWorkflow(
  'tries',
  class extends Workflow {
    async handle() {
      return this.execute(flaky);
    }
  },
);
`;

/** The job id `weft run` printed. */
function jobOf(run: WeftRun): string {
  return (run.out.match(/^job (\S+)/m) as RegExpMatchArray)[1] as string;
}

/**
 * The task's attempts as the job's history has them: when each began (epoch ms), which
 * worker ran it, and the delay its retry was given (none for the first).
 */
async function attempts(job: string): Promise<{ at: number; worker: string; delay?: number }[]> {
  const ran = await weft(['history', job, '--json']);
  expect(ran.code, ran.err).toBe(0);
  const entries = JSON.parse(ran.out) as JobHistoryEntry[];
  const delays = new Map<number, number>();
  for (const e of entries) {
    if (e.change.retryInMs !== undefined) {
      delays.set(e.change.attempt as number, e.change.retryInMs as number);
    }
  }
  const starts = entries.filter((e) => e.kind === 'attempt' && e.change.name === 'flaky');
  expect(starts.map((e) => e.change.attempt)).toEqual([1, 2, 3]);
  return starts.map((e) => ({
    at: Date.parse(e.at),
    worker: e.worker as string,
    ...(delays.has(e.change.attempt as number)
      ? { delay: delays.get(e.change.attempt as number) as number }
      : {}),
  }));
}

/** Attempt 2 waited at least its delay (≥ 1 s), attempt 3 at least its own (≥ 2 s). */
function expectBackoffs(times: { at: number; delay?: number }[]): void {
  const [first, second, third] = times as [
    { at: number; delay?: number },
    { at: number; delay: number },
    { at: number; delay: number },
  ];
  expect(second.delay).toBeGreaterThanOrEqual(1000);
  expect(second.delay).toBeLessThanOrEqual(1300);
  expect(third.delay).toBeGreaterThanOrEqual(2000);
  expect(third.delay).toBeLessThanOrEqual(2600);
  expect(second.at - first.at).toBeGreaterThanOrEqual(second.delay);
  expect(third.at - second.at).toBeGreaterThanOrEqual(third.delay);
}

describe.skipIf(skipBackend)('retries wait for their backoff', () => {
  it('graph task under weft run: attempts ≥ 1 s then ≥ 2 s apart, then the job fails', async () => {
    const run = await weft([
      'run',
      file('tries.yaml', GRAPH),
      '--handlers',
      file('handlers.mjs', GRAPH_HANDLERS),
    ]);
    expect(run.code).toBe(1);
    expect(run.out).toContain('FAILURE');
    expectBackoffs(await attempts(jobOf(run)));
  });

  it('graph task under two weft worker processes, started by weft start', async () => {
    const handlers = file('handlers.mjs', GRAPH_HANDLERS);
    expect((await weft(['deploy', file('tries.yaml', GRAPH)])).code).toBe(0);
    startWorker(handlers);
    startWorker(handlers);
    const started = await weft(['start', 'tries']);
    expect(started.code, started.err).toBe(0);
    const job = started.out.split('\n').at(-1) as string;
    const result = await weft(['result', job, '--wait', '--timeout', '60000']);
    expect(result.out).toContain('FAILURE');
    expectBackoffs(await attempts(job));
  });

  it('code-first task under weft run: attempts ≥ 1 s then ≥ 2 s apart, then the job fails', async () => {
    const run = await weft(['run', file('tries.mjs', CODE_FIRST)]);
    expect(run.code).toBe(1);
    expect(run.out).toContain('FAILURE');
    expectBackoffs(await attempts(jobOf(run)));
  });

  it('code-first task under two weft worker processes, started by weft start', async () => {
    const module = file('tries.mjs', CODE_FIRST);
    startWorker(module);
    startWorker(module);
    const started = await weft(['start', 'tries', '--input', '[]']);
    expect(started.code, started.err).toBe(0);
    const job = started.out.split('\n').at(-1) as string;
    const result = await weft(['result', job, '--wait', '--timeout', '60000']);
    expect(result.out).toContain('FAILURE');
    expectBackoffs(await attempts(job));
  });
});
