/**
 * Cron schedules as a user runs them: `weft schedule …` commands, and `weft worker`
 * processes that fire them. A schedule every second, fired by three workers that are
 * SIGKILLed and started again (and, on PostgreSQL, through a server restart), starts
 * exactly one job per tick: no tick missed, none twice.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  backend,
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import {
  launchWeft,
  REPO_ROOT,
  type RunningWeft,
  runWeft,
  type WeftRun,
  workerRunning,
} from '../../support/weft-cli.js';

const LIBRARY = pathToFileURL(join(REPO_ROOT, 'dist', 'index.js')).href;

/** How long the every-second schedule runs under kills (WEFT_SCHEDULE_SOAK_S, default 15). */
const SOAK_S = Number(process.env.WEFT_SCHEDULE_SOAK_S ?? 15);

let location: TestStoreLocation;
let dir: string;
const workers: RunningWeft[] = [];

beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-schedules-'));
  writeFileSync(
    join(dir, 'tick.yaml'),
    'workflow: tick\nactivities:\n  start: { kind: trigger }\n',
  );
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop('SIGKILL');
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[], store = location.url): Promise<WeftRun> {
  return runWeft(args, { store, cwd: dir });
}

function worker(store: string): RunningWeft {
  const running = launchWeft(['worker'], { store, cwd: dir });
  workers.push(running);
  return running;
}

interface ScheduleJson {
  source: string;
  cron: string;
  nextAt: string;
  lastTickAt: string | null;
  runs: number;
  skipped: number;
  upcoming: string[];
}

async function scheduleOf(name: string, store: string): Promise<ScheduleJson> {
  const shown = await weft(['schedule', 'show', name, '--json'], store);
  expect(shown.code, shown.err).toBe(0);
  return JSON.parse(shown.out) as ScheduleJson;
}

/**
 * Runs the every-second schedule for {@link SOAK_S} seconds under three workers, one of
 * them SIGKILLed and replaced every 2.5 s, `meanwhile` running beside; then checks one job
 * per tick from the first to the last handled.
 */
async function soak(store: string, meanwhile: () => Promise<void> = async () => {}) {
  expect((await weft(['deploy', 'tick.yaml'], store)).code).toBe(0);
  const created = await weft(
    [
      'schedule',
      'create',
      'pulse',
      'tick',
      '--cron',
      '* * * * * *',
      '--overlap',
      'allow_all',
      '--catchup',
      '1h',
      '--json',
    ],
    store,
  );
  expect(created.code, created.err).toBe(0);
  const first = Date.parse((JSON.parse(created.out) as ScheduleJson).nextAt);
  let alive = [worker(store), worker(store), worker(store)];
  const end = Date.now() + SOAK_S * 1000;
  const side = meanwhile();
  let kills = 0;
  while (Date.now() < end) {
    await sleep(2_500);
    const victim = alive[kills % alive.length] as RunningWeft;
    await victim.stop('SIGKILL');
    kills++;
    alive = [...alive.filter((w) => w !== victim), worker(store)];
  }
  await side;
  const paused = await weft(['schedule', 'pause', 'pulse'], store);
  expect(paused.code, paused.err).toBe(0);
  const { lastTickAt, runs } = await scheduleOf('pulse', store);
  const last = Date.parse(lastTickAt as string);
  const expected: string[] = [];
  for (let t = first; t <= last; t += 1000) expected.push(`pulse@${new Date(t).toISOString()}`);
  // At least a tick for each second of the run that the workers were up for.
  expect(expected.length).toBeGreaterThanOrEqual(SOAK_S - 5);

  let jobs: { id: string; state: string }[] = [];
  await waitFor(
    async () => {
      const listed = await weft(
        ['list', '--workflow', 'tick', '--limit', '10000', '--json'],
        store,
      );
      jobs = JSON.parse(listed.out) as { id: string; state: string }[];
      return jobs.every((j) => j.state === 'SUCCESS');
    },
    'every tick job to end',
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  expect(jobs.map((j) => j.id).sort()).toEqual(expected);
  expect(runs).toBe(expected.length);
  for (const w of alive) {
    // The last replacement may still be starting: a SIGTERM before it runs would kill it.
    await workerRunning(w);
    expect(await w.stop()).toBe(0);
  }
  return { ticks: expected.length, kills };
}

describe.skipIf(skipBackend)('weft schedule', () => {
  it('creates, shows the next five runs in its zone, lists, pauses, resumes, backfills and deletes', async () => {
    expect((await weft(['deploy', 'tick.yaml'])).code).toBe(0);
    const created = await weft([
      'schedule',
      'create',
      'nightly',
      'tick',
      '--cron',
      '30 2 * * *',
      '--tz',
      'Europe/Berlin',
      '--input',
      '{"region":"eu"}',
    ]);
    expect(created.code, created.err).toBe(0);
    const lines = created.out.split('\n');
    expect(lines[0]).toBe(
      'created schedule nightly: tick at "30 2 * * *" (Europe/Berlin), overlap skip',
    );
    expect(lines[1]).toBe('next runs:');
    expect(lines.slice(2)).toHaveLength(5);
    for (const line of lines.slice(2)) {
      expect(line).toMatch(
        /^ {2}\d{4}-\d\d-\d\dT0[01]:30:00\.000Z {2}\w{3}, \d+ \w{3} \d{4}, 02:30:00 (CET|CEST|GMT\+[12])$/,
      );
    }
    const again = await weft([
      'schedule',
      'create',
      'nightly',
      'tick',
      '--cron',
      '30 2 * * *',
      '--tz',
      'Europe/Berlin',
      '--input',
      '{"region":"eu"}',
    ]);
    expect(again.out.split('\n')[0]).toBe(
      'schedule nightly unchanged: tick at "30 2 * * *" (Europe/Berlin), overlap skip',
    );

    const listed = await weft(['schedules']);
    expect(listed.out.split('\n')[0]).toMatch(
      /^NAME +WORKFLOW +CRON +ZONE +STATE +NEXT RUN +RUNS +SKIPPED +LAST JOB$/,
    );
    expect(listed.out.split('\n')[1]).toMatch(
      /^nightly +tick +30 2 \* \* \* +Europe\/Berlin +active +\d{4}-.*Z +0 +0 +-$/,
    );

    const paused = await weft(['schedule', 'pause', 'nightly']);
    expect(paused.out).toBe(
      'schedule nightly paused\nnext runs: none while paused (weft schedule resume starts it again)',
    );
    expect((await weft(['schedule', 'list'])).out).toMatch(/nightly .* paused +- +0 +0 +-/);
    const resumed = await weft(['schedule', 'resume', 'nightly']);
    expect(resumed.out.split('\n').slice(0, 2)).toEqual(['schedule nightly resumed', 'next runs:']);

    const backfill = [
      'schedule',
      'backfill',
      'nightly',
      '--from',
      '2026-11-20T00:00:00Z',
      '--to',
      '2026-11-22T12:00:00Z',
    ];
    const filled = await weft(backfill);
    expect(filled.out.split('\n')).toEqual([
      'nightly@2026-11-20T01:30:00.000Z started',
      'nightly@2026-11-21T01:30:00.000Z started',
      'nightly@2026-11-22T01:30:00.000Z started',
    ]);
    expect((await weft(backfill)).out.split('\n')).toEqual([
      'nightly@2026-11-20T01:30:00.000Z exists',
      'nightly@2026-11-21T01:30:00.000Z exists',
      'nightly@2026-11-22T01:30:00.000Z exists',
    ]);
    const status = await weft(['status', 'nightly@2026-11-21T01:30:00.000Z', '--json']);
    expect(JSON.parse(status.out)).toMatchObject({ workflow: 'tick', input: { region: 'eu' } });

    expect((await weft(['schedule', 'delete', 'nightly'])).out).toBe('deleted schedule nightly');
    expect((await weft(['schedules'])).out).toBe('no schedules');
    expect((await weft(['list', '--workflow', 'tick', '--json'])).out).toContain(
      'nightly@2026-11-22T01:30:00.000Z',
    );
  });

  it('refuses what it cannot schedule, naming it, and stores nothing', async () => {
    expect((await weft(['deploy', 'tick.yaml'])).code).toBe(0);
    const refused = async (...args: string[]) => {
      const run = await weft(['schedule', 'create', 'x', ...args]);
      expect(run.code).toBe(1);
      return run.err;
    };
    expect(await refused('tikc', '--cron', '* * * * *')).toBe(
      'error: schedule x: workflow "tikc" is not known to this store: deploy it (weft deploy), or start a worker that registers it, first',
    );
    expect(await refused('tick', '--cron', '0 3 * *')).toMatch(
      /^error: schedule x: cron expression "0 3 \* \*" is not valid: /,
    );
    expect(await refused('tick', '--cron', '0 3 * * *', '--tz', 'Berlin')).toMatch(
      /^error: schedule x: time zone "Berlin" is not an IANA time zone/,
    );
    expect(await refused('tick', '--cron', '0 3 * * *', '--overlap', 'sometimes')).toBe(
      'error: --overlap: must be one of skip, buffer_one, allow_all, cancel_other, got "sometimes"',
    );
    expect(await refused('tick', '--cron', '0 3 * * *', '--input', '{oops')).toMatch(
      /^error: --input: /,
    );
    const missing = await weft(['schedule', 'show', 'x']);
    expect([missing.code, missing.err]).toEqual([1, 'error: schedule "x" not found']);
    expect((await weft(['schedules'])).out).toBe('no schedules');
  });

  it("stores a workflow file's schedules on deploy (deleting those it drops) and a worker module's on start", async () => {
    const withSchedules = (...entries: string[]) =>
      writeFileSync(
        join(dir, 'report.yaml'),
        [
          'workflow: report',
          'activities:',
          '  start: { kind: trigger }',
          'schedules:',
          ...entries,
          '',
        ].join('\n'),
      );
    const nightly = [
      '  - name: report-nightly',
      '    cron: "0 3 * * *"',
      '    timezone: Europe/Berlin',
    ];
    withSchedules(
      ...nightly,
      '  - name: report-often',
      '    cron: "*/5 * * * *"',
      '    overlap: allow_all',
    );
    const first = await weft(['deploy', 'report.yaml']);
    expect(first.out).toMatch(
      /^deployed report version 1\nschedule report-nightly created; next run \S+Z\nschedule report-often created; next run \S+Z$/,
    );
    withSchedules(...nightly);
    const second = await weft(['deploy', 'report.yaml']);
    expect(second.out).toMatch(
      /^report unchanged, version 1\nschedule report-nightly unchanged; next run \S+Z\nschedule report-often deleted: the file no longer names it$/,
    );
    expect((await weft(['schedules'])).out.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^report-nightly +report +0 3 \* \* \* +Europe\/Berlin +active /),
    ]);

    writeFileSync(
      join(dir, 'module.mjs'),
      `import { defineSchedule } from ${JSON.stringify(LIBRARY)};
export const hourly = defineSchedule({ name: 'from-code', workflow: 'tick', cron: '0 * * * *' });
export default {};
`,
    );
    expect((await weft(['deploy', 'tick.yaml'])).code).toBe(0);
    const running = launchWeft(['worker', '--handlers', 'module.mjs'], {
      store: location.url,
      cwd: dir,
    });
    workers.push(running);
    await waitFor(
      async () => (await weft(['schedule', 'show', 'from-code'])).code === 0,
      'the declared schedule',
      {
        timeoutMs: 30_000,
        intervalMs: 250,
      },
    );
    expect(await scheduleOf('from-code', location.url)).toMatchObject({
      source: 'code',
      cron: '0 * * * *',
    });
    expect(await running.stop()).toBe(0);
  });

  it(`fires a schedule every second exactly once per tick across three workers SIGKILLed every 2.5 s (${SOAK_S} s)`, async () => {
    const { ticks, kills } = await soak(location.url);
    expect(kills).toBeGreaterThanOrEqual(Math.floor(SOAK_S / 2.5) - 1);
    expect(ticks).toBeGreaterThan(0);
  }, 180_000);
});

describe.skipIf(skipBackend || backend !== 'postgres')(
  'weft schedule and a PostgreSQL restart',
  () => {
    it('fires exactly once per tick through worker SIGKILLs and a server restart', async () => {
      const { restartablePostgres } = await import('../../support/postgres-server.js');
      const server = await restartablePostgres();
      try {
        await soak(server.url, async () => {
          await sleep((SOAK_S * 1000) / 3);
          await server.stop();
          await sleep(2_000);
          await server.start();
        });
      } finally {
        await server.dispose();
      }
    }, 240_000);
  },
);
