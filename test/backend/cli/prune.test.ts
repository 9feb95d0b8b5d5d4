/**
 * `weft prune` and `weft worker --retention` as a user meets them, each its own process
 * (`node bin/weft.js …`): a dry run counts what would go, per table, and removes nothing;
 * `--state` and `--workflow` narrow it; a prune removes finished jobs with every row they
 * left and never a job still running; `weft deploy` says the file's retention; a worker
 * started with `--retention` prunes what ends; bad input is refused before anything runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { launchWeft, type RunningWeft, runWeft, type WeftRun } from '../../support/weft-cli.js';

let location: TestStoreLocation;
let store: Store;
let dir: string;
let worker: Worker | undefined;
let running: RunningWeft | undefined;
beforeEach(async () => {
  location = await freshStoreUrl();
  store = await openStore(location.url);
  dir = mkdtempSync(join(tmpdir(), 'weft-prune-'));
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await worker?.stop();
  worker = undefined;
  await store.close();
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url });
}

const quiet = { error() {}, warn() {}, info() {} };

const taskFlow = (name: string) => `
workflow: ${name}
activities:
  start: { kind: trigger }
  work:  { kind: task, retry: { attempts: 1 } }
transitions:
  start: [work]
`;

describe.skipIf(skipBackend)('weft prune', () => {
  it('counts, then removes, the finished jobs it selects, never one still running', async () => {
    const client = new Client(store);
    await client.deploy(compileWorkflow(taskFlow('shop')));
    await client.deploy(compileWorkflow(taskFlow('report')));
    await client.deploy(
      compileWorkflow(`
workflow: waits
activities:
  start: { kind: trigger }
  hold:  { kind: hook, signal: go }
transitions:
  start: [hold]
`),
    );
    worker = new Worker({
      store,
      idleMs: 100,
      logger: quiet,
      handlers: {
        work: async (input) => {
          if ((input as { fail?: boolean }).fail) throw new Error('no');
          return input;
        },
      },
    });
    await worker.start();
    const shop = [
      await client.start('shop', {}),
      await client.start('shop', {}),
      await client.start('shop', { fail: true }),
    ];
    const report = await client.start('report', {});
    const waiting = await client.start('waits', {});
    for (const job of [...shop, report]) await client.result(job.id, { wait: true });
    await waitFor(async () => (await store.getJob(waiting.id))?.state === 'RUNNING', 'waiting');
    await worker.stop();
    worker = undefined;

    // Nothing ended an hour ago.
    const none = await weft(['prune', '--older-than', '1h']);
    expect(none.code).toBe(0);
    expect(none.out).toMatch(/^pruned 0 jobs that ended before \d{4}-/);

    const dry = await weft(['prune', '--older-than', '0', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/^would prune 4 jobs that ended before/);
    expect(dry.out).toMatch(/^jobs\s+4$/m);
    expect(dry.out).toMatch(/^history\s+\d+$/m);
    expect(dry.out).toMatch(/^activities\s+\d+$/m);
    expect(await store.listJobs()).toHaveLength(5);

    const failed = await weft([
      'prune',
      '--older-than',
      '0',
      '--state',
      'failed',
      '--dry-run',
      '--json',
    ]);
    expect(failed.code).toBe(0);
    const summary = JSON.parse(failed.out) as {
      dryRun: boolean;
      jobs: string[];
      rows: Record<string, number>;
    };
    expect(summary).toMatchObject({ dryRun: true, jobs: [shop[2]?.id] });
    expect(summary.rows.jobs).toBe(1);

    const reports = await weft(['prune', '--older-than', '0', '--workflow', 'report', '--jobs']);
    expect(reports.code).toBe(0);
    expect(reports.out).toMatch(/^pruned 1 job that ended before/);
    expect(reports.out.split('\n')).toContain(report.id);
    expect(await store.getJob(report.id)).toBeUndefined();

    const rest = await weft(['prune', '--older-than', '0']);
    expect(rest.code).toBe(0);
    expect(rest.out).toMatch(/^pruned 3 jobs/);
    const left = await store.listJobs();
    expect(left.map((j) => j.id)).toEqual([waiting.id]);
    expect((await store.historyOfJob(shop[0]?.id as string)).length).toBe(0);
  });

  it('refuses what is not an end state or a duration, before anything runs', async () => {
    const state = await weft(['prune', '--older-than', '1d', '--state', 'running']);
    expect(state.code).toBe(2);
    expect(state.err).toMatch(/Expected an end state: succeeded, failed, reverted/);
    const older = await weft(['prune', '--older-than', 'soon']);
    expect(older.code).toBe(2);
    expect(older.err).toMatch(/--older-than/);
    const missing = await weft(['prune']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--older-than/);
    const retention = await weft(['worker', '--retention', 'succeeded=0']);
    expect(retention.code).toBe(2);
    expect(retention.err).toMatch(/--retention/);
  });
});

describe.skipIf(skipBackend)('retention from the command line', () => {
  it('weft deploy says the file retention; weft worker --retention prunes what ends', async () => {
    const file = join(dir, 'quick.yaml');
    writeFileSync(
      file,
      [
        'workflow: keep-a-week',
        'retention: { succeeded: 7d, failed: forever }',
        'activities:',
        '  start: { kind: trigger }',
      ].join('\n'),
    );
    const deployed = await weft(['deploy', file]);
    expect(deployed.code).toBe(0);
    expect(deployed.out).toContain('retention succeeded: 7d, failed: forever');
    writeFileSync(
      join(dir, 'quick.yaml'),
      ['workflow: quick', 'activities:', '  start: { kind: trigger }'].join('\n'),
    );
    const again = await weft(['deploy', file]);
    expect(again.code, `${again.out}\n${again.err}`).toBe(0);

    const client = new Client(store);
    const week = await client.start('keep-a-week', {});
    const quick = await client.start('quick', {});
    running = launchWeft(['worker', '--retention', '1s'], { store: location.url });
    await waitFor(
      async () => (await store.getJob(quick.id)) === undefined,
      'the quick job pruned',
      {
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );
    // Its file keeps it a week.
    expect((await store.getJob(week.id))?.state).toBe('SUCCESS');
  });
});
