/**
 * Retries and timeouts of tasks run by a real worker, in both models: a
 * `NonRetryableError` (or an error named in `non_retryable`) ends the retries at once;
 * a task with no `retry` gets the default (three attempts); a per-attempt timeout, a
 * heartbeat timeout and a schedule-to-close timeout fail as `TimeoutError` — the first
 * two are retried, the last ends the task (taking `on: timeout` in a graph); code-first
 * `.with()` overrides a task's policy for one call, and a timed-out attempt runs the
 * workflow's `onTimeout`. Attempts are counted from the job's history.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import type { JobHistoryEntry } from '../../../src/client/job-history.js';
import { NonRetryableError, type TaskFailedError } from '../../../src/core/errors.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import type { WorkInfo } from '../../../src/durable/workflow.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import type { TaskHandlers } from '../../../src/worker/task-handler.js';
import { Worker } from '../../../src/worker/worker.js';
import type { WorkerOptions } from '../../../src/worker/worker-options.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let close: () => Promise<void>;
let client: Client;
const running: Worker[] = [];
beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => {
  for (const worker of running.splice(0)) await worker.stop();
  await close();
});

const quiet = { info() {}, warn() {}, error() {} };

async function work(options: Omit<WorkerOptions, 'store'>): Promise<void> {
  const worker = new Worker({ store, idleMs: 50, logger: quiet, ...options });
  running.push(worker);
  await worker.start();
}

async function graphJob(yaml: string, handlers: TaskHandlers, input: unknown = {}) {
  await client.deploy(compileWorkflow(yaml));
  await work({ handlers });
  const name = /workflow: (\S+)/.exec(yaml)?.[1] as string;
  const job = await client.start(name, input as never);
  return client.result(job.id, { wait: true, timeoutMs: 30_000 });
}

/** The attempts' start lines of the job's history (both models write them). */
async function starts(job: string, task: string): Promise<JobHistoryEntry[]> {
  return (await client.history(job)).filter((e) => e.kind === 'attempt' && e.change.name === task);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves when the attempt is aborted (its timeout), never otherwise. */
const hang = (signal: AbortSignal) =>
  new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));

describe('graph task retries and timeouts', () => {
  it('a NonRetryableError, or an error named in non_retryable, ends the retries at once', async () => {
    const yaml = `
workflow: declines
activities:
  start: { kind: trigger }
  pay:   { kind: task, retry: { attempts: 5, backoff: 10ms, non_retryable: [CardDeclined] } }
  book:  { kind: task, retry: { attempts: 5, backoff: 10ms } }
transitions:
  start: [pay, book]
`;
    const done = await graphJob(yaml, {
      pay: () => {
        throw Object.assign(new Error('card declined'), { name: 'CardDeclined' });
      },
      book: () => {
        throw new NonRetryableError('no such room');
      },
    });
    expect(done.state).toBe('FAILURE');
    expect(await starts(done.id, 'pay')).toHaveLength(1);
    expect(await starts(done.id, 'book')).toHaveLength(1);
  });

  it('a task without retry: gets the default, three attempts', async () => {
    const yaml = `
workflow: plain
activities:
  start: { kind: trigger }
  call:  { kind: task }
transitions:
  start: [call]
output: "call.output"
`;
    const done = await graphJob(yaml, {
      call: (_input, ctx) => {
        if (ctx.attempt < 3) throw new Error('ECONNRESET');
        return ctx.attempt;
      },
    });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 3 });
    const times = (await starts(done.id, 'call')).map((e) => Date.parse(e.at));
    expect(times).toHaveLength(3);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(1000);
    expect((times[2] as number) - (times[1] as number)).toBeGreaterThanOrEqual(2000);
  });

  it("a retry starts when its backoff ends, not at the worker's next poll", async () => {
    const yaml = `
workflow: prompt-retry
activities:
  start: { kind: trigger }
  call:  { kind: task, retry: { attempts: 3, backoff: 300ms } }
transitions:
  start: [call]
output: "call.output"
`;
    await client.deploy(compileWorkflow(yaml));
    // A worker that polls only every 20 s: the retries start because it wakes at their
    // due times (task-runner.ts), not because it looked again.
    await work({
      idleMs: 20_000,
      handlers: {
        call: (_input, ctx) => {
          if (ctx.attempt < 3) throw new Error('ECONNRESET');
          return ctx.attempt;
        },
      },
    });
    const job = await client.start('prompt-retry', {});
    const done = await client.result(job.id, { wait: true, timeoutMs: 15_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 3 });
    const times = (await starts(done.id, 'call')).map((e) => Date.parse(e.at));
    expect(times).toHaveLength(3);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(300);
    expect((times[2] as number) - (times[1] as number)).toBeGreaterThanOrEqual(600);
  });

  it('an attempt past its timeout is aborted as a TimeoutError and retried', async () => {
    const yaml = `
workflow: slow
activities:
  start: { kind: trigger }
  call:  { kind: task, timeout: 200ms, retry: { attempts: 2, backoff: 10ms } }
transitions:
  start: [call]
output: "call.output"
`;
    const done = await graphJob(yaml, {
      call: async (_input, ctx) => {
        if (ctx.attempt === 1) await hang(ctx.signal);
        return 'second';
      },
    });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 'second' });
    const retried = (await client.history(done.id)).find((e) => e.change.retryInMs !== undefined);
    expect(retried?.change.error).toMatch(/^TimeoutError: .*timed out after 200 ms/);
  });

  it('an attempt that stops calling ctx.heartbeat() fails as timed out; one that keeps on runs on', async () => {
    const yaml = `
workflow: beats
activities:
  start: { kind: trigger }
  long:  { kind: task, heartbeat_timeout: 300ms, retry: { attempts: 2, backoff: 10ms } }
transitions:
  start: [long]
output: "long.output"
`;
    const done = await graphJob(yaml, {
      long: async (_input, ctx) => {
        // Both attempts run longer than the heartbeat timeout; only the first goes quiet.
        for (let i = 0; i < 8; i++) {
          await sleep(100);
          if (ctx.signal.aborted) throw ctx.signal.reason;
          if (ctx.attempt === 2 || i < 3) ctx.heartbeat();
        }
        return `attempt ${ctx.attempt}`;
      },
    });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 'attempt 2' });
    const retried = (await client.history(done.id)).find((e) => e.change.retryInMs !== undefined);
    expect(retried?.change.error).toMatch(/^TimeoutError: .*sent no heartbeat for 300 ms/);
  });

  it('schedule_to_close_timeout ends the task across its attempts, taking on: timeout', async () => {
    const yaml = `
workflow: deadline
activities:
  start:    { kind: trigger }
  call:     { kind: task, schedule_to_close_timeout: 1500ms, retry: { attempts: 10, backoff: 1s } }
  fallback: { kind: task }
transitions:
  start: [call]
  call: [{ to: fallback, on: timeout }]
output: "fallback.output"
`;
    const started = Date.now();
    const done = await graphJob(yaml, {
      call: () => {
        throw new Error('down');
      },
      fallback: () => 'fallback ran',
    });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 'fallback ran' });
    expect(Date.now() - started).toBeLessThan(10_000);
    // 1 s then 2 s: the third attempt would start after the deadline.
    expect(await starts(done.id, 'call')).toHaveLength(2);
    const status = await client.status(done.id);
    expect(status.activities.find((a) => a.id === 'call')?.error?.message).toMatch(
      /schedule_to_close_timeout of 1500 ms \(last error Error: down\)/,
    );
  });

  it('schedule_to_close_timeout ends a hanging attempt at its deadline', async () => {
    const yaml = `
workflow: stuck
activities:
  start: { kind: trigger }
  call:  { kind: task, schedule_to_close_timeout: 400ms }
transitions:
  start: [call]
`;
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const done = await graphJob(yaml, { call: () => held.then(() => 'too late') });
    release();
    expect(done.state).toBe('FAILURE');
    expect(done.error?.message ?? '').toContain('schedule_to_close_timeout of 400 ms');
  });

  it('schedule_to_close_timeout ends a task no worker serves: its timer fires', async () => {
    const yaml = `
workflow: unserved
activities:
  start: { kind: trigger }
  call:  { kind: task, schedule_to_close_timeout: 300ms }
transitions:
  start: [call]
`;
    const done = await graphJob(yaml, { other: () => 'not this one' });
    expect(done.state).toBe('FAILURE');
    expect(done.error?.message ?? '').toContain('schedule_to_close_timeout of 300 ms');
    expect(await starts(done.id, 'call')).toHaveLength(0);
  });
});

describe('code-first task retries and timeouts', () => {
  async function run(
    workflow: ReturnType<typeof defineWorkflow>,
    tasks: Parameters<typeof work>[0]['tasks'],
  ) {
    await work({ workflows: [workflow as never], tasks });
    const job = await client.start(workflow.name, [] as never);
    return client.result(job.id, { wait: true, timeoutMs: 30_000 });
  }

  it('retries by the default policy, and .with() overrides it for one call', async () => {
    let calls = 0;
    const flaky = defineTask('flaky', (n: number) => {
      calls++;
      throw new Error(`fails ${n}`);
    });
    const wf = defineWorkflow(
      'with-override',
      class extends Workflow {
        async handle() {
          const errors: string[] = [];
          for (const [n, task] of [
            [1, flaky],
            [2, flaky.with({ retry: { attempts: 1 } })],
          ] as const) {
            try {
              await this.execute(task, n);
            } catch (error) {
              errors.push((error as TaskFailedError).message);
            }
          }
          return errors;
        }
      },
    );
    const done = await run(wf, [flaky]);
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toEqual([
      expect.stringContaining('fails 1'),
      expect.stringContaining('fails 2'),
    ]);
    // Three attempts by default, one with the override.
    expect(calls).toBe(4);
    expect(await starts(done.id, 'flaky')).toHaveLength(4);
  });

  it('a NonRetryableError ends the retries at once', async () => {
    const refuse = defineTask(
      'refuse',
      () => {
        throw new NonRetryableError('no');
      },
      { retry: { attempts: 5, backoff: '10ms' } },
    );
    const wf = defineWorkflow(
      'refuses',
      class extends Workflow {
        async handle() {
          await this.execute(refuse);
        }
      },
    );
    const done = await run(wf, [refuse]);
    expect(done.state).toBe('FAILURE');
    expect(done.error?.message).toContain('NonRetryableError');
    expect(await starts(done.id, 'refuse')).toHaveLength(1);
  });

  it('a timed-out attempt runs onTimeout and is retried; a quiet one fails its heartbeat', async () => {
    const slow = defineTask(
      'slow',
      async (_: undefined, ctx) => {
        if (ctx.attempt === 1) await hang(ctx.signal);
        return `attempt ${ctx.attempt}`;
      },
      { timeoutMs: 200, retry: { attempts: 2, backoff: 10 } },
    );
    const quiet = defineTask(
      'quiet',
      async (_: undefined, ctx) => {
        for (let i = 0; i < 6; i++) {
          await sleep(100);
          if (ctx.signal.aborted) throw ctx.signal.reason;
          if (ctx.attempt === 2) ctx.heartbeat();
        }
        return `attempt ${ctx.attempt}`;
      },
      { heartbeatTimeoutMs: 250, retry: { attempts: 2, backoff: 10 } },
    );
    const wf = defineWorkflow(
      'timeouts',
      class extends Workflow {
        timedOut: string[] = [];
        async handle() {
          const a = await this.execute(slow);
          const b = await this.execute(quiet);
          return { a, b, timedOut: this.timedOut };
        }
        onTimeout(work: WorkInfo) {
          this.timedOut.push(work.name);
        }
      },
    );
    const done = await run(wf, [slow, quiet]);
    expect(done).toMatchObject({
      state: 'SUCCESS',
      output: { a: 'attempt 2', b: 'attempt 2', timedOut: ['slow', 'quiet'] },
    });
    const retries = (await client.history(done.id)).filter((e) => e.change.status === 'retrying');
    expect(retries.map((e) => [e.change.name, e.change.attempt])).toEqual([
      ['slow', 2],
      ['quiet', 2],
    ]);
    expect(retries[1]?.change.error).toMatch(/heartbeat/);
  });

  it('scheduleToCloseTimeoutMs fails the task at its deadline, however its attempts go', async () => {
    const stuck = defineTask('stuck', () => new Promise(() => {}), {
      scheduleToCloseTimeoutMs: 400,
    });
    const wf = defineWorkflow(
      'deadline',
      class extends Workflow {
        async handle() {
          try {
            await this.execute(stuck);
            return 'finished';
          } catch (error) {
            return (error as TaskFailedError).message;
          }
        }
      },
    );
    const done = await run(wf, [stuck]);
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toMatch(/TimeoutError.*schedule-to-close deadline/);
  });
});
