/**
 * Expressions can't hold the store (issue 18), as a user meets it: a `weft worker`
 * process runs workflows whose expressions would run for minutes or exhaust memory in
 * one native call — a backtracking regular expression, `$pad` to 100 million characters,
 * `$sort` of ten million numbers. Each is stopped by its limit and its job ends FAILURE
 * with an ExpressionLimitError naming the activity and the limit, while `weft start` and
 * `weft list` in other processes go on working. A failing expression fails its activity at
 * once (its `on: error` path takes it), and a job input checked against a backtracking
 * schema pattern is refused at the time limit, both without a single redelivery.
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
  dir = mkdtempSync(join(tmpdir(), 'weft-expression-limits-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop('SIGKILL')));
  await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: storeUrl, cwd: dir, timeoutMs: 120_000 });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const HANDLERS = `
export default {
  echo: async (input) => input,
  recover: async () => 'recovered',
};
`;

/** `start → work`, a task whose input is `expression`. */
function oneTask(name: string, expression: string): string {
  return `
workflow: ${name}
activities:
  start: { kind: trigger }
  work: { kind: task, task: echo, input: ${JSON.stringify(expression)} }
transitions: { start: [work] }
output: work.output
`;
}

async function start(workflow: string, input: unknown = null): Promise<string> {
  const run = await weft(['start', workflow, '--input', JSON.stringify(input)]);
  expect(run.code, run.err).toBe(0);
  return run.out.split('\n').at(-1) as string;
}

interface JobJson {
  id: string;
  state: string;
  output: unknown;
  error: { name: string; code?: string; message: string; activity?: string } | null;
}

async function result(job: string): Promise<JobJson> {
  const run = await weft(['result', job, '--wait', '--timeout', '90000', '--json']);
  return JSON.parse(run.out) as JobJson;
}

describe.skipIf(skipBackend)(`expression limits (${backend})`, () => {
  it('stops each runaway expression at its limit, fails its job naming the activity and the limit, and leaves the store to other processes meanwhile', async () => {
    file('handlers.mjs', HANDLERS);
    const files = [
      file('backtrack.yaml', oneTask('backtrack', '$contains(input.s, /^(a+)+$/)')),
      file('pad.yaml', oneTask('pad', '$pad("x", 100000000)')),
      file('sorted.yaml', oneTask('sorted', '$sort([1..10000000])')),
      file('quick.yaml', oneTask('quick', "{ 'n': input.n }")),
    ];
    expect((await weft(['deploy', ...files])).code).toBe(0);
    const backtrack = await start('backtrack', { s: `${'a'.repeat(31)}b` });
    const pad = await start('pad');
    const sorted = await start('sorted');
    const runaways = new Set([backtrack, pad, sorted]);
    const worker = launchWeft(['worker', '--handlers', 'handlers.mjs'], {
      store: storeUrl,
      cwd: dir,
    });
    started.push(worker);
    await waitFor(() => worker.err().includes('running on'), 'the worker to run', {
      timeoutMs: 60_000,
    });

    // While the worker evaluates them, other processes list jobs and start new ones.
    let during = 0;
    const quick: string[] = [];
    for (;;) {
      const list = await weft(['list', '--json']);
      expect(list.code, list.err).toBe(0);
      const jobs = JSON.parse(list.out) as JobJson[];
      expect(jobs).toHaveLength(3 + quick.length);
      if (!jobs.some((j) => runaways.has(j.id) && j.state === 'RUNNING')) break;
      quick.push(await start('quick', { n: quick.length }));
      during++;
    }
    // At least one list and one start ran while the worker was evaluating a runaway.
    expect(during).toBeGreaterThan(0);

    const time = await result(backtrack);
    expect(time.state).toBe('FAILURE');
    expect(time.error).toMatchObject({
      name: 'ExpressionLimitError',
      code: 'EXPRESSION_LIMIT',
      activity: 'work',
    });
    expect(time.error?.message).toContain('activity work (input)');
    expect(time.error?.message).toContain('time limit of 5000 ms');

    for (const job of [pad, sorted]) {
      const stopped = await result(job);
      expect(stopped.state).toBe('FAILURE');
      expect(stopped.error).toMatchObject({ code: 'EXPRESSION_LIMIT', activity: 'work' });
      // Which limit stops an allocation first depends on the machine: either is named.
      expect(stopped.error?.message).toMatch(
        /activity work \(input\).*(memory limit of 128 MB|larger than the limit of 16 MB|time limit of 5000 ms)/,
      );
    }
    for (const [n, job] of quick.entries()) {
      expect(await result(job)).toMatchObject({ state: 'SUCCESS', output: { n } });
    }
    // Nothing was dead-lettered: each runaway failed its activity once.
    expect((await weft(['dead-letters', 'list', '--json'])).out).toBe('[]');
  }, 240_000);

  it('fails the activity of an expression that fails, at once: its on: error path takes it', async () => {
    file('handlers.mjs', HANDLERS);
    const broken = file(
      'broken.yaml',
      `
workflow: broken
activities:
  start: { kind: trigger }
  cheap: { kind: task, task: echo, input: "$number('x')" }
  costly: { kind: task, task: echo, input: "$map(input.items, function($v) { $v.name & $uppercase($v) })" }
  rescue: { kind: task, task: recover }
transitions:
  start: [cheap, costly]
  cheap: [{ to: rescue, on: error }]
`,
    );
    expect((await weft(['deploy', broken])).code).toBe(0);
    const job = await start('broken', { items: [{ name: 'a' }] });
    const worker = launchWeft(['worker', '--handlers', 'handlers.mjs'], {
      store: storeUrl,
      cwd: dir,
    });
    started.push(worker);
    const ended = await result(job);
    // `cheap` fails with its expression error, and its on: error transition runs `rescue`;
    // `costly` (evaluated in the sandbox) fails too, with nothing to handle it: the job fails.
    expect(ended.state).toBe('FAILURE');
    expect(ended.error).toMatchObject({
      name: 'ExpressionError',
      code: 'EXPRESSION',
      activity: 'costly',
    });
    const status = JSON.parse((await weft(['status', job, '--json'])).out) as {
      activities: { id: string; status: string; error?: { code?: string } | null }[];
    };
    const byId = new Map(status.activities.map((a) => [a.id, a]));
    expect(byId.get('cheap')).toMatchObject({ status: 'FAILURE', error: { code: 'EXPRESSION' } });
    expect(byId.get('rescue')).toMatchObject({ status: 'SUCCESS' });
    expect((await weft(['dead-letters', 'list', '--json'])).out).toBe('[]');
    // One step each: no delivery of the failing steps came back.
    const history = JSON.parse((await weft(['history', job, '--json'])).out) as {
      kind: string;
      activity: string | null;
    }[];
    expect(history.filter((h) => h.activity === 'costly' && h.kind === 'enter')).toHaveLength(1);
  }, 120_000);

  it('refuses an input whose schema pattern backtracks, at the time limit, while other commands work', async () => {
    const patterned = file(
      'patterned.yaml',
      `
workflow: patterned
input:
  type: object
  properties: { s: { type: string, pattern: "^(a+)+$" } }
activities:
  start: { kind: trigger }
`,
    );
    expect((await weft(['deploy', patterned])).code).toBe(0);
    const refused = weft([
      'start',
      'patterned',
      '--input',
      JSON.stringify({ s: `${'a'.repeat(31)}b` }),
      '--json',
    ]);
    const list = await weft(['list', '--json']);
    expect(list.code, list.err).toBe(0);
    const run = await refused;
    expect(run.code).toBe(1);
    expect(JSON.parse(run.out).error).toMatchObject({
      name: 'ValidationError',
      code: 'INPUT_CHECK_LIMIT',
    });
    expect(JSON.parse(run.out).error.message).toContain('time limit of 5000 ms');
    expect(JSON.parse((await weft(['list', '--json'])).out)).toEqual([]);
    // A matching input passes the same check.
    const ok = await weft(['start', 'patterned', '--input', JSON.stringify({ s: 'aaa' })]);
    expect(ok.code, ok.err).toBe(0);
  }, 120_000);
});
