/**
 * `weft start --debounce-key` as a user runs it, each command its own process, with a
 * `weft worker` process running the jobs: five starts with one key, a moment apart, print
 * one job id, and the worker started after them runs it once, with the last start's
 * input, once the window has been quiet for its delay; `weft status` says when it starts; flags that do not go
 * together are refused naming them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { freshStoreUrl, type TestStoreLocation } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { launchWeft, type RunningWeft, runWeft, type WeftRun } from '../../support/weft-cli.js';

let location: TestStoreLocation;
let dir: string;
let worker: RunningWeft | undefined;

beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-debounce-'));
  writeFileSync(
    join(dir, 'reindex.yaml'),
    [
      'workflow: reindex',
      'activities:',
      '  start: { kind: trigger }',
      '  index: { kind: task, input: "input" }',
      'transitions:',
      '  start: [index]',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'handlers.mjs'),
    `import { appendFileSync } from 'node:fs';
export default {
  index: async ({ rev }) => {
    appendFileSync('runs.log', JSON.stringify({ rev, at: Date.now() }) + '\\n');
    return rev;
  },
};
`,
  );
  writeFileSync(join(dir, 'runs.log'), '');
});
afterEach(async () => {
  await worker?.stop('SIGKILL');
  worker = undefined;
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(...args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: dir });
}

const runs = () =>
  readFileSync(join(dir, 'runs.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { rev: number; at: number });

it('runs the last of five starts with one key once, after the window is quiet', async () => {
  expect((await weft('deploy', 'reindex.yaml')).code).toBe(0);
  const ids: string[] = [];
  let last = 0;
  let lastCalled = 0;
  for (let rev = 1; rev <= 5; rev++) {
    lastCalled = Date.now();
    const started = await weft(
      'start',
      'reindex',
      '--input',
      JSON.stringify({ rev }),
      '--debounce-key',
      'doc-7',
      '--debounce-delay',
      '8s',
    );
    expect(started.code, started.err).toBe(0);
    last = Date.now();
    ids.push(started.out);
  }
  expect(new Set(ids).size).toBe(1);
  // The worker comes after the starts: a trailing window stays open until a worker fires
  // its timer, so a start that a loaded machine runs late still lands in it (with the
  // worker running, a start more than 8 s after the one before began a second job).
  worker = launchWeft(['worker', '--handlers', 'handlers.mjs'], { store: location.url, cwd: dir });
  const id = ids[0] as string;
  const status = JSON.parse((await weft('status', id, '--json')).out) as { startAt: string };
  // The window moved with the last start: the job starts 8 s after it, give or take the
  // time a start takes to commit.
  expect(Date.parse(status.startAt)).toBeGreaterThan(last - 1000);
  const done = await weft('result', id, '--wait', '--timeout', '60000');
  expect(done.code, done.err).toBe(0);
  await waitFor(() => runs().length > 0, 'the handler ran');
  const [run, ...more] = runs();
  expect(more).toEqual([]);
  expect(run?.rev).toBe(5);
  // The last start's window opened no sooner than its command was called (measured from
  // when it returned, a loaded machine's slow exit made this flaky).
  expect(run?.at ?? 0).toBeGreaterThanOrEqual(lastCalled + 8000);
  // A start after the window closed is a new job.
  const next = await weft(
    'start',
    'reindex',
    '--input',
    '{"rev":6}',
    '--debounce-key',
    'doc-7',
    '--debounce-delay',
    '1s',
  );
  expect(next.out).not.toBe(id);
});

it('refuses debounce flags that do not go together, naming them', async () => {
  expect((await weft('deploy', 'reindex.yaml')).code).toBe(0);
  const noDelay = await weft('start', 'reindex', '--debounce-key', 'k');
  expect([noDelay.code, noDelay.err]).toEqual([
    1,
    'error: --debounce-key: needs --debounce-delay (how long its window stays open: 5s, 1m…)',
  ]);
  const noKey = await weft('start', 'reindex', '--debounce-delay', '5s');
  expect([noKey.code, noKey.err]).toEqual([
    1,
    'error: --debounce-delay, --debounce-max, --debounce-mode: needs --debounce-key',
  ]);
  const mode = await weft(
    'start',
    'reindex',
    '--debounce-key',
    'k',
    '--debounce-delay',
    '5s',
    '--debounce-mode',
    'middle',
  );
  expect([mode.code, mode.err]).toEqual([
    1,
    'error: --debounce-mode: must be one of trailing, leading, got "middle"',
  ]);
  const delayed = await weft(
    'start',
    'reindex',
    '--debounce-key',
    'k',
    '--debounce-delay',
    '5s',
    '--delay',
    '1m',
  );
  expect([delayed.code, delayed.err]).toEqual([
    1,
    'error: start: a debounced start takes no startAt or delayMs: its window decides when it starts',
  ]);
  const listed = await weft('list', '--workflow', 'reindex', '--json');
  expect(JSON.parse(listed.out)).toEqual([]);
});
