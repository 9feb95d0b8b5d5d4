/**
 * The long-running commands as a user meets them, each its own process
 * (`node bin/weft.js …`): `weft worker` stays up with no work on every store, ends on
 * SIGTERM within its grace period whatever its handlers module holds open, and hands
 * back a handler that would not finish; `weft run` stops at the first Ctrl-C, says how
 * to resume, and exits 130 (143 on SIGTERM); on PostgreSQL a worker outlives a server
 * restart with jobs in flight, and gives up (exit 1, saying why) only when the server
 * stays away.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backend, freshStoreUrl, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { launchWeft, type RunningWeft, runWeft, type WeftRun } from '../../support/weft-cli.js';

let storeUrl: string;
let cleanup: () => Promise<void>;
let dir: string;
const started: RunningWeft[] = [];

beforeEach(async () => {
  const location = await freshStoreUrl();
  storeUrl = location.url;
  cleanup = location.cleanup;
  dir = mkdtempSync(join(tmpdir(), 'weft-lifecycle-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop('SIGKILL')));
  await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `weft …args` to its end, in the test's folder. */
function weft(args: string[], store = storeUrl): Promise<WeftRun> {
  return runWeft(args, { store, cwd: dir });
}

/** Starts `weft …args` in the test's folder and leaves it running. */
function launch(args: string[], store = storeUrl, env: NodeJS.ProcessEnv = {}): RunningWeft {
  const running = launchWeft(args, { store, cwd: dir, env });
  started.push(running);
  return running;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  await waitFor(() => check(), what, { timeoutMs, intervalMs: 25 });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/**
 * Handlers that hold the process open the way real ones do (a timer, a pending promise
 * nobody awaits); `greet` hangs, ignoring its abort signal, when HANG=1.
 */
const HANDLERS = `
setInterval(() => {}, 60_000);
export default {
  async greet(input) {
    if (process.env.HANG === '1') {
      console.log('greet started');
      await new Promise(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.TASK_MS ?? 0)));
    return { hello: input.name };
  },
};
`;

const GREETING = `
workflow: greeting
activities:
  start: { kind: trigger }
  greet: { kind: task, input: "{ 'name': input.name }" }
transitions: { start: [greet] }
output: greet.output
`;

const APPROVAL = `
workflow: approval
activities:
  start:   { kind: trigger }
  approve: { kind: hook, signal: approve }
transitions: { start: [approve] }
output: approve.output
`;

async function startGreeting(name: string, store = storeUrl): Promise<string> {
  const started = await weft(['start', 'greeting', '--input', JSON.stringify({ name })], store);
  expect(started.code, started.err).toBe(0);
  return started.out.split('\n').at(-1) as string;
}

describe.skipIf(skipBackend)(`weft worker (${backend})`, () => {
  it('stays up with no work, runs a job started later by another process, ends 0 on SIGTERM', async () => {
    file('handlers.mjs', HANDLERS);
    expect((await weft(['deploy', file('greeting.yaml', GREETING)])).code).toBe(0);
    const worker = launch(['worker', '--handlers', 'handlers.mjs']);
    await until('the worker to say it runs', () => worker.err().includes('running on'));
    // An idle worker waits for work: it is still there well after its idle timeout.
    await sleep(2_500);
    expect(worker.alive(), worker.err()).toBe(true);

    const job = await startGreeting('ana');
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result).toMatchObject({ code: 0, out: '{"hello":"ana"}' });

    // The handlers module's interval would keep Node running; SIGTERM ends it anyway.
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.err()).toMatch(/SIGTERM: stopping/);
  });

  it('on SIGTERM hands back a handler that will not finish, within --grace-ms, and exits 0', async () => {
    file('handlers.mjs', HANDLERS);
    expect((await weft(['deploy', file('greeting.yaml', GREETING)])).code).toBe(0);
    const job = await startGreeting('bo');
    // HANG=1 for this worker only: its handler prints when it starts, then never ends.
    const stuck = launch(['worker', '--handlers', 'handlers.mjs', '--grace-ms', '300'], storeUrl, {
      HANG: '1',
    });
    await until('the handler to start', () => stuck.out().includes('greet started'));
    stuck.child.kill('SIGTERM');
    expect(await stuck.exited).toBe(0);

    // The work went back: another worker finishes the job.
    const worker = launch(['worker', '--handlers', 'handlers.mjs']);
    const result = await weft(['result', job, '--wait', '--timeout', '30000']);
    expect(result).toMatchObject({ code: 0, out: '{"hello":"bo"}' });
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});

describe.skipIf(skipBackend)(`weft run and Ctrl-C (${backend})`, () => {
  it('one Ctrl-C stops it, prints the job and how to resume it, exits 130; --id resumes', async () => {
    const wf = file('approval.yaml', APPROVAL);
    const run = launch(['run', wf]);
    await until('the job line', () => /job (\S+)/.test(run.out()));
    const job = /job (\S+)/.exec(run.out())?.[1] as string;
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.err()).toContain(`job ${job} is RUNNING`);
    expect(run.err()).toContain(`Resume it with: npx weft run ${wf} --id ${job}`);

    // SIGTERM ends a resumed run the same way, with 143.
    const again = launch(['run', wf, '--id', job]);
    await until('the resumed job line', () => again.out().includes(`job ${job}`));
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(143);

    // Resumed once more, the job ends when the signal comes from another process.
    const resumed = launch(['run', wf, '--id', job]);
    await until('the resumed job line', () => resumed.out().includes(`job ${job}`));
    expect((await weft(['signal', job, 'approve', '--data', '{"by":"cy"}'])).code).toBe(0);
    expect(await resumed.exited).toBe(0);
    expect(resumed.out()).toMatch(/SUCCESS/);
  });
});

describe.skipIf(skipBackend || backend !== 'postgres')(
  'weft worker and a PostgreSQL restart',
  () => {
    it('logs the lost server, retries, and finishes the jobs in flight once it is back', async () => {
      const { restartablePostgres } = await import('../../support/postgres-server.js');
      const server = await restartablePostgres();
      try {
        file('handlers.mjs', HANDLERS);
        const deployed = await weft(['deploy', file('greeting.yaml', GREETING)], server.url);
        expect(deployed.code, deployed.err).toBe(0);
        // Each task takes a second, so the jobs are in flight when the server goes.
        const worker = launch(['worker', '--handlers', 'handlers.mjs'], server.url, {
          TASK_MS: '1000',
        });
        await until('the worker to run', () => worker.err().includes('running on'));
        const jobs: string[] = [];
        for (const name of ['a', 'b', 'c', 'd']) jobs.push(await startGreeting(name, server.url));

        await server.stop();
        await until('the worker to log the lost server', () =>
          /failed; retrying/.test(worker.err()),
        );
        await sleep(1_500);
        expect(worker.alive(), worker.err()).toBe(true);
        await server.start();

        for (const [i, job] of jobs.entries()) {
          const result = await weft(['result', job, '--wait', '--timeout', '60000'], server.url);
          expect(result.out).toBe(JSON.stringify({ hello: ['a', 'b', 'c', 'd'][i] }));
        }
        await until('the worker to say it recovered', () => /recovered after/.test(worker.err()));
        worker.child.kill('SIGTERM');
        expect(await worker.exited).toBe(0);
      } finally {
        await server.dispose();
      }
    }, 180_000);

    it('waits for a server that is down when it starts, and runs once it is back', async () => {
      const { restartablePostgres } = await import('../../support/postgres-server.js');
      const server = await restartablePostgres();
      try {
        file('handlers.mjs', HANDLERS);
        expect((await weft(['deploy', file('greeting.yaml', GREETING)], server.url)).code).toBe(0);
        await server.stop();
        const worker = launch(['worker', '--handlers', 'handlers.mjs'], server.url);
        await until('the worker to say it waits', () =>
          /weft worker: .*; retrying until --give-up-ms/.test(worker.err()),
        );
        await sleep(1_000);
        expect(worker.alive(), worker.err()).toBe(true);
        await server.start();
        await until('the worker to run', () => worker.err().includes('running on'), 60_000);
        const job = await startGreeting('cy', server.url);
        const result = await weft(['result', job, '--wait', '--timeout', '60000'], server.url);
        expect(result.out).toBe(JSON.stringify({ hello: 'cy' }));
        worker.child.kill('SIGTERM');
        expect(await worker.exited).toBe(0);
      } finally {
        await server.dispose();
      }
    }, 180_000);

    it('gives up when the server stays away: exit 1, saying why', async () => {
      const { restartablePostgres } = await import('../../support/postgres-server.js');
      const server = await restartablePostgres();
      try {
        expect((await weft(['deploy', file('greeting.yaml', GREETING)], server.url)).code).toBe(0);
        const worker = launch(['worker', '--give-up-ms', '1500'], server.url);
        await until('the worker to run', () => worker.err().includes('running on'));
        await server.stop();
        expect(await worker.exited).toBe(1);
        expect(worker.err()).toMatch(/weft worker: worker gave up: its \w+ loop failed for \d+ s/);
      } finally {
        await server.dispose();
      }
    });
  },
);
