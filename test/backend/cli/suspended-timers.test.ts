/**
 * Suspension holds timers, with the work done by `weft worker` processes: a paused job
 * whose hook timeout, sleep, job deadline or code-first wait comes due stays SUSPENDED —
 * the timer fires into the job's park, where it waits, and nothing of the job runs or
 * ends — and after `weft resume` each runs at once: the hook times out (FAILURE), the
 * sleep ends and its successor runs (SUCCESS), the deadline ends the job (FAILURE,
 * JOB_TIMEOUT), the code-first wait times out (SUCCESS with the timeout's result). A
 * signal or event sent while the job was paused, after its timeout came due, wins over
 * the parked timeout, as it would have had the job not been paused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { parkStream } from '../../../src/store/claim-move.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { backend, freshStoreUrl, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { launchWeft, REPO_ROOT, type RunningWeft, runWeft } from '../../support/weft-cli.js';

const LIBRARY = pathToFileURL(join(REPO_ROOT, 'dist', 'index.js')).href;
/** How long every timer here runs: long enough to pause before it, short for a test. */
const DUE_MS = 3000;

let storeUrl: string;
let cleanup: () => Promise<void>;
let dir: string;
let store: Store;
let client: Client;
const started: RunningWeft[] = [];

beforeEach(async () => {
  const location = await freshStoreUrl();
  storeUrl = location.url;
  cleanup = location.cleanup;
  dir = mkdtempSync(join(tmpdir(), 'weft-held-'));
  store = await openStore(storeUrl);
  client = new Client(store);
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop('SIGKILL')));
  await store.close();
  await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function launchWorker(module: string): RunningWeft {
  const running = launchWeft(['worker', '--handlers', module], { store: storeUrl, cwd: dir });
  started.push(running);
  return running;
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  await waitFor(check, what, { timeoutMs: 30_000, intervalMs: 50 });
}

/** The payloads parked for a job (what waits for its resume). */
async function parkedKinds(job: string): Promise<string[]> {
  const messages = (await store.jobMessages(job)).filter((m) => m.stream === parkStream(job));
  return messages.map((m) => {
    const p = (m.payload as { payload: { k: string; action?: { type: string } } }).payload;
    return p.action ? p.action.type : p.k;
  });
}

async function historyKinds(job: string): Promise<string[]> {
  return (await client.history(job)).map((h) => h.kind);
}

const workflows = {
  approval: `
workflow: approval
activities:
  start:   { kind: trigger }
  approve: { kind: hook, timeout: ${DUE_MS}ms }
  done:    { kind: task, task: note }
transitions: { start: [approve], approve: [done] }
output: approve.output
`,
  nap: `
workflow: nap
activities:
  start: { kind: trigger }
  rest:  { kind: sleep, duration: ${DUE_MS}ms }
  done:  { kind: task, task: note }
transitions: { start: [rest], rest: [done] }
output: done.output
`,
  limited: `
workflow: limited
timeout: ${DUE_MS}ms
activities:
  start:   { kind: trigger }
  approve: { kind: hook }
transitions: { start: [approve] }
`,
};

describe.skipIf(skipBackend)(`suspension holds timers (${backend})`, () => {
  it('graph: hook timeout, sleep and job deadline held while SUSPENDED; after weft resume each runs at once', async () => {
    writeFileSync(
      join(dir, 'handlers.mjs'),
      `export default { async note(input) { console.log('note ran'); return 'noted'; } };`,
    );
    for (const yaml of Object.values(workflows)) await client.deploy(compileWorkflow(yaml));
    const worker = launchWorker('handlers.mjs');
    await until('the worker to run', () => worker.err().includes('running on'));
    // The job's deadline counts from its start: it is paused at once, before it passes.
    const deadline = (await client.start('limited', {})).id;
    expect((await client.pause(deadline)).state).toMatch(/^SUSPEND/);
    const jobs = {
      timesOut: (await client.start('approval', {})).id,
      signalled: (await client.start('approval', {})).id,
      sleeper: (await client.start('nap', {})).id,
      deadline,
    };
    const entered = async (job: string, activity: string) =>
      (await client.status(job)).activities.find((a) => a.id === activity)?.status === 'RUNNING';
    await until('every hook and sleep to wait', async () => {
      return (
        (await entered(jobs.timesOut, 'approve')) &&
        (await entered(jobs.signalled, 'approve')) &&
        (await entered(jobs.sleeper, 'rest'))
      );
    });
    const pausedAt = Date.now();
    for (const job of [jobs.timesOut, jobs.signalled, jobs.sleeper]) {
      expect((await client.pause(job)).state).toBe('SUSPENDED');
    }
    // Every timer comes due while the jobs are suspended: they fire into the park.
    await until('every timer to fire into its job’s park', async () => {
      return (
        (await parkedKinds(jobs.timesOut)).includes('timeout') &&
        (await parkedKinds(jobs.signalled)).includes('timeout') &&
        (await parkedKinds(jobs.sleeper)).includes('wake') &&
        (await parkedKinds(jobs.deadline)).includes('deadline')
      );
    });
    expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(DUE_MS - 1000);
    // A signal sent meanwhile is recorded: the hook is released by it.
    await client.signal(jobs.signalled, 'approve', { ok: true });
    await until('the signal to be recorded', async () =>
      (await historyKinds(jobs.signalled)).includes('signal'),
    );
    await new Promise((r) => setTimeout(r, 500));
    for (const job of Object.values(jobs)) {
      expect((await client.status(job)).state).toBe('SUSPENDED');
      const kinds = await historyKinds(job);
      for (const fired of ['timeout', 'wake', 'deadline', 'end'])
        expect(kinds).not.toContain(fired);
    }
    expect(worker.out()).not.toContain('note ran');

    for (const job of Object.values(jobs)) {
      const resumed = await runWeft(['resume', job], { store: storeUrl, cwd: dir });
      expect(resumed, resumed.err).toMatchObject({ code: 0, out: `${job} RUNNING` });
    }
    const end = async (job: string) => client.result(job, { wait: true, timeoutMs: 30_000 });

    const timedOut = await end(jobs.timesOut);
    expect(timedOut.state).toBe('FAILURE');
    expect(timedOut.error?.message).toMatch(/hook approve got no "approve" signal/);

    expect(await end(jobs.signalled)).toMatchObject({ state: 'SUCCESS', output: { ok: true } });
    expect((await client.history(jobs.signalled)).some((h) => h.kind === 'timeout')).toBe(false);

    expect(await end(jobs.sleeper)).toMatchObject({ state: 'SUCCESS', output: 'noted' });

    const limited = await end(jobs.deadline);
    expect(limited.state).toBe('FAILURE');
    expect(limited.error).toMatchObject({ code: 'JOB_TIMEOUT', timeoutMs: DUE_MS });

    // Each ran after the resume, not while suspended.
    for (const job of [jobs.timesOut, jobs.sleeper, jobs.deadline]) {
      const lines = await client.history(job);
      const resume = lines.find((h) => h.kind === 'resume');
      const fired = lines.find((h) => ['timeout', 'wake', 'deadline'].includes(h.kind));
      expect(fired && resume && fired.seq > resume.seq, JSON.stringify(lines)).toBe(true);
    }
  });

  it('code-first: waitForEvent and waitFor timers held while paused; an event sent meanwhile wins', async () => {
    writeFileSync(
      join(dir, 'code.mjs'),
      `
import { defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};
export const patient = defineWorkflow('patient', class extends Workflow {
  async handle() {
    const heard = await this.waitForEvent('go', { timeoutMs: ${DUE_MS} });
    return heard ?? 'timed out';
  }
});
export const dozer = defineWorkflow('dozer', class extends Workflow {
  async handle() {
    await this.waitFor(${DUE_MS});
    return 'woke';
  }
});
export default {};
`,
    );
    const worker = launchWorker('code.mjs');
    await until('the worker to run', () => worker.err().includes('running on'));
    const jobs = {
      timesOut: (await client.start('patient')).id,
      hears: (await client.start('patient')).id,
      dozes: (await client.start('dozer')).id,
    };
    await until('every wait to run', async () => {
      for (const job of Object.values(jobs)) {
        const words = (await client.status(job)).waitingFor;
        if (!words.some((w) => /^waits (for event go|until)/.test(w))) return false;
      }
      return true;
    });
    for (const job of Object.values(jobs)) {
      expect((await client.pause(job)).state).toBe('SUSPENDED');
    }
    await until('every wait’s timer to fire into its job’s park', async () => {
      for (const job of Object.values(jobs)) {
        if (!(await parkedKinds(job)).includes('waitElapsed')) return false;
      }
      return true;
    });
    await client.sendEvent(jobs.hears, 'go', 'heard');
    await new Promise((r) => setTimeout(r, 500));
    for (const job of Object.values(jobs)) {
      expect((await client.status(job)).state).toBe('SUSPENDED');
      expect(await historyKinds(job)).not.toContain('wake');
    }

    for (const job of Object.values(jobs)) {
      const resumed = await runWeft(['resume', job], { store: storeUrl, cwd: dir });
      expect(resumed, resumed.err).toMatchObject({ code: 0, out: `${job} RUNNING` });
    }
    const end = async (job: string) => client.result(job, { wait: true, timeoutMs: 30_000 });
    expect(await end(jobs.timesOut)).toMatchObject({ state: 'SUCCESS', output: 'timed out' });
    expect(await end(jobs.hears)).toMatchObject({ state: 'SUCCESS', output: 'heard' });
    expect(await end(jobs.dozes)).toMatchObject({ state: 'SUCCESS', output: 'woke' });
    const lines = await client.history(jobs.timesOut);
    const resume = lines.find((h) => h.kind === 'resume');
    const wake = lines.find((h) => h.kind === 'wake');
    expect(wake && resume && wake.seq > resume.seq, JSON.stringify(lines)).toBe(true);
  });
});
