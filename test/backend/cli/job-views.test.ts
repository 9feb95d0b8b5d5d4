/**
 * What a user sees of a job, each command its own process (`node bin/weft.js …`, built
 * once per run): `weft run` names the activity beside each key it prints; `weft status`
 * lays the activities out by digit position with attempts, times and each error's stack,
 * and says in words what the job waits for (a code-first job's engine internals only with
 * `--verbose`); `weft list` has a header, lists newest first and takes `--after`; every
 * `--json` prints a job in the one shape `weft status --json` prints.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { type CollationDigit, DIGIT_LABELS } from '../../../src/core/collation-digits.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { EngineStepper } from '../../support/engine-stepper.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { runWeft, type WeftRun } from '../../support/weft-cli.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let location: TestStoreLocation;
let dir: string;
beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-views-'));
});
afterEach(async () => {
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `node bin/weft.js …args` from the repository (WEFT_STORE: the store under test). */
function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs `body` with a worker (in this process) on the store under test. */
async function withWorker<T>(
  options: Omit<ConstructorParameters<typeof Worker>[0], 'store'>,
  body: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openStore(location.url);
  const worker = new Worker({ store, idleMs: 100, ...options });
  try {
    await worker.start();
    return await body(store);
  } finally {
    await worker.stop();
    await store.close();
  }
}

/** A task that fails both of its attempts; its handler's file names the frame. */
const BOOM = `
workflow: boom
activities:
  start: { kind: trigger }
  fail: { kind: task, retry: { attempts: 2, backoff: 10ms } }
transitions:
  start: [fail]
`;
const BOOM_HANDLERS = "export default { fail: async () => { throw new Error('nope'); } };\n";

/** The fields every job prints with, whichever command prints it. */
const JOB_FIELDS = [
  'id',
  'workflow',
  'version',
  'model',
  'state',
  'collation',
  'compositional',
  'activities',
  'waitingFor',
  'input',
  'output',
  'error',
  'children',
  'parent',
  'createdAt',
  'startAt',
  'updatedAt',
  'finishedAt',
  'resumptions',
  'deadline',
  'timeoutMs',
  'queue',
].sort();

describe.skipIf(skipBackend)('weft run', () => {
  it('prints each key beside the activities that moved it and their new states', async () => {
    const r = await weft([
      'run',
      'examples/quick-brown-fox.yaml',
      '--handlers',
      'examples/quick-brown-fox.js',
    ]);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n');
    expect(lines).toContain('job     RUNNING    999999000000000');
    // Every line reads against its key: the activity's digit there is the state it names.
    // (A key the printer read late folds two moves into one line set, so this checks the
    // rule rather than a fixed transcript.)
    const POSITION: Record<string, number> = {
      ate: 0,
      brown: 1,
      fox: 2,
      jumped: 3,
      quick: 4,
      slept: 5,
    };
    const moves = lines
      .map((l) => l.match(/^(ate|brown|fox|jumped|quick|slept) +(\w+) +(\d{15})$/))
      .filter((m): m is RegExpMatchArray => m !== null);
    for (const [line, activity, state, key] of moves) {
      const digit = Number((key as string)[POSITION[activity as string] as number]);
      expect(DIGIT_LABELS[digit as CollationDigit], line).toBe(state);
    }
    const named = (activity: string) => moves.filter((m) => m[1] === activity).map((m) => m[2]);
    for (const activity of ['quick', 'brown', 'fox', 'slept']) {
      expect(named(activity).at(-1), activity).toBe('Completed');
    }
    expect(named('jumped')).toEqual(['Skipped']);
    expect(lines).toContain('ate     Released   466366000000000');
  });
});

describe.skipIf(skipBackend)('weft status', () => {
  it('lays a failed job out by digit position with attempts, times and the stack', async () => {
    const run = await weft([
      'run',
      file('boom.yaml', BOOM),
      '--handlers',
      file('boom.mjs', BOOM_HANDLERS),
    ]);
    expect(run.code).toBe(1);
    const id = (run.out.match(/^job (\S+)/) as RegExpMatchArray)[1] as string;

    const status = await weft(['status', id]);
    expect(status.code).toBe(0);
    const lines = status.out.split('\n');
    expect(lines[0]).toBe(`job ${id}  boom@1  FAILURE`);
    expect(lines[1]).toMatch(/^created \S+Z {2}finished \S+Z$/);
    expect(status.out).toContain('collation 760000000000000');
    // Position 1 is `fail` (the first digit), 2 is `start`: the key reads against the rows.
    expect(status.out).toMatch(
      /^\| 1 \| fail {5}\| Errored {3}\| 7 {5}\| 2 {8}\| \d\d:\d\d:\d\d\.\d{3} \| \d\d:\d\d:\d\d\.\d{3} \| Error: nope \|$/m,
    );
    expect(status.out).toMatch(/^\| 2 \| start +\| Completed \| 6 /m);
    // The error's stack, down to the handler's own file and line.
    expect(status.out).toContain('error in fail (attempt 2): Error: nope');
    expect(status.out).toMatch(/^ {4}at fail \(file:\/\/\S*boom\.mjs:1:\d+\)$/m);

    const json = JSON.parse((await weft(['status', id, '--json'])).out);
    const fail = json.activities.find((a: { id: string }) => a.id === 'fail');
    expect(fail).toMatchObject({
      position: 1,
      digit: 7,
      state: 'Errored',
      status: 'FAILURE',
      attempts: 2,
      error: { name: 'Error', message: 'nope', stack: expect.stringContaining('boom.mjs') },
      startedAt: expect.stringMatching(ISO),
      finishedAt: expect.stringMatching(ISO),
    });
    expect(json.waitingFor).toEqual([]);
  });

  it('says in words what a graph job waits for', async () => {
    const path = file(
      'approval.yaml',
      'workflow: approval\nactivities:\n  start: { kind: trigger }\n  approve: { kind: hook, signal: approve }\ntransitions:\n  start: [approve]\noutput: "approve.output"\n',
    );
    expect((await weft(['deploy', path])).code).toBe(0);
    const id = (await weft(['start', 'approval'])).out.split('\n').at(-1) as string;
    // No worker yet: the job's first step is queued.
    expect((await weft(['status', id])).out.split('\n')[2]).toBe(
      'waits for a worker to take its next step',
    );
    await withWorker({ handlers: {} }, async (store) => {
      await waitFor(
        async () => (await new Client(store).status(id)).collation?.startsWith('56') === true,
      );
    });
    const status = await weft(['status', id]);
    expect(status.out.split('\n')[2]).toBe('waits for signal approve (hook approve)');
    expect(JSON.parse((await weft(['status', id, '--json'])).out).waitingFor).toEqual([
      'waits for signal approve (hook approve)',
    ]);
  });

  it('--order run lists the activities in the order they ran; key order is the default', async () => {
    const run = await weft([
      'run',
      'examples/quick-brown-fox.yaml',
      '--handlers',
      'examples/quick-brown-fox.js',
    ]);
    expect(run.code, run.err).toBe(0);
    const id = (run.out.match(/^job (\S+)/) as RegExpMatchArray)[1] as string;
    const rows = (out: string) =>
      out
        .split('\n')
        .map((l) => l.match(/^\| (\d+) \| (\w+) /))
        .filter((m): m is RegExpMatchArray => m !== null)
        .map((m) => m[2]);
    expect(rows((await weft(['status', id])).out)).toEqual([
      'ate',
      'brown',
      'fox',
      'jumped',
      'quick',
      'slept',
    ]);
    // Skipped `jumped` never ran: last.
    expect(rows((await weft(['status', id, '--order', 'run'])).out)).toEqual([
      'quick',
      'brown',
      'fox',
      'slept',
      'ate',
      'jumped',
    ]);
    const bad = await weft(['status', id, '--order', 'time']);
    expect(bad.code).toBe(1);
    expect(bad.err).toBe('error: --order: must be one of key, run, got "time"');
  });

  it("says when each of a graph job's waits ends: a hook's timeout, a retry's backoff, a task's timeout", async () => {
    const path = file(
      'deadlines.yaml',
      [
        'workflow: deadlines',
        'activities:',
        '  start: { kind: trigger }',
        '  approve: { kind: hook, signal: approve, timeout: 1h }',
        '  flaky: { kind: task, retry: { attempts: 3, backoff: 1h } }',
        '  slow: { kind: task, timeout: 30s }',
        'transitions:',
        '  start: [approve, flaky, slow]',
        '',
      ].join('\n'),
    );
    expect((await weft(['deploy', path])).code).toBe(0);
    const id = (await weft(['start', 'deadlines'])).out.split('\n').at(-1) as string;
    // One message at a time: flaky's first attempt fails; slow's waits for a worker.
    const store = await openStore(location.url);
    try {
      const stepper = new EngineStepper(store, {
        flaky: async () => {
          throw new Error('try again');
        },
      });
      await stepper.runUntilIdle();
    } finally {
      await store.close();
    }
    const status = await weft(['status', id]);
    expect(status.code, status.err).toBe(0);
    const soon = String.raw`\d{4}-\d\d-\d\dT\S+Z \(in (59m \d+s|1h)\)`;
    const waits = JSON.parse((await weft(['status', id, '--json'])).out).waitingFor as string[];
    expect(waits).toHaveLength(3);
    expect(waits).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^waits for signal approve \\(hook approve\\), at most until ${soon}$`),
        ),
        expect.stringMatching(
          new RegExp(`^waits until ${soon} to retry task flaky \\(activity flaky, attempt 2\\)$`),
        ),
        'waits for task slow (activity slow, times out 30s after its start)',
      ]),
    );
    // The text prints the same lines (read a moment earlier: the seconds may differ).
    const lines = status.out.split('\n');
    for (const wait of waits) {
      const start = wait.replace(/ \d{4}-.*$/, '');
      expect(
        lines.some((l) => l.startsWith(start)),
        wait,
      ).toBe(true);
    }
  });

  it('says in words what a code-first job waits for; engine internals only with --verbose', async () => {
    const reserve = defineTask('reserve', async (sku: string) => ({ sku, reserved: true }));
    const order = defineWorkflow(
      'order',
      class extends Workflow {
        async handle(sku: string) {
          const reserved = await this.execute(reserve, sku);
          const approval = await this.waitForEvent<{ by: string }>('approved', {
            timeoutMs: 3_600_000,
          });
          return { reserved, by: approval?.by ?? null };
        }
      },
    );
    const started = await weft(['start', 'order', '--input', '["tea"]']);
    expect(started.code, started.err).toBe(0);
    const id = started.out.split('\n').at(-1) as string;
    // No worker has the code yet.
    expect((await weft(['status', id])).out).toContain(
      'waits for a worker that runs workflow order',
    );

    await withWorker({ workflows: [order], tasks: [reserve] }, async (store) => {
      await waitFor(async () =>
        (await new Client(store).status(id)).waitingFor.some((w) => w.includes('event')),
      );
    });
    const status = await weft(['status', id]);
    expect(status.code).toBe(0);
    const lines = status.out.split('\n');
    expect(lines[0]).toBe(`job ${id}  order@1  RUNNING  (code-first)`);
    expect(lines[2]).toMatch(
      /^waits for event approved, at most until \d{4}-\d\d-\d\dT\S+Z \(in (59m \d+s|1h)\)$/,
    );
    // Its steps in the order they ran, by name, with their times; the wait still runs.
    expect(status.out).toMatch(
      /^\| Step +\| Kind \| State +\| Attempts \| Started +\| Finished +\| Duration \|/m,
    );
    expect(status.out).toMatch(
      /^\| reserve +\| task \| completed \| 1 +\| \d\d:\d\d:\d\d\.\d{3} \| \d\d:\d\d:\d\d\.\d{3} \| \d+ms +\|/m,
    );
    expect(status.out).toMatch(
      /^\| wait for approved \| wait \| running +\| +\| \d\d:\d\d:\d\d\.\d{3} \| running +\| +\| until \d{4}-/m,
    );
    // The decision engine's structure is for --verbose.
    expect(status.out).not.toMatch(/^instance |^executions |branch \d/m);
    const verbose = await weft(['status', id, '--verbose']);
    expect(verbose.out).toMatch(/^instance \S+ {2}order {2}running \(decisions: run\)$/m);
    expect(verbose.out).toMatch(/^executions \[/m);

    // An event no wait waits for (a typo) is sent, as any name is, and said on stderr.
    const typo = await weft(['event', id, 'aprove']);
    expect(typo.code).toBe(0);
    expect(typo.out).toBe('event aprove sent');
    expect(typo.err).toBe(
      `warning: no wait of job ${id} waits for event "aprove" (it waits for event approved); it goes only to the workflow's onEvent, if it has one. Check the name.`,
    );
    const right = await weft(['event', id, 'approved', '--data', '{"by":"ana"}']);
    expect(right).toMatchObject({ code: 0, out: 'event approved sent', err: '' });
  });
});

describe.skipIf(skipBackend)('weft list', () => {
  it('--after takes a job id: only the jobs created after it, newest first', async () => {
    const path = file(
      'approval.yaml',
      'workflow: approval\nactivities:\n  start: { kind: trigger }\n  approve: { kind: hook, signal: approve }\ntransitions:\n  start: [approve]\n',
    );
    expect((await weft(['deploy', path])).code).toBe(0);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await weft(['start', 'approval'])).out.split('\n').at(-1) as string);
    }
    const [first, second, third] = ids as [string, string, string];
    const after = await weft(['list', '--after', first]);
    expect(after.code).toBe(0);
    const lines = after.out.split('\n');
    expect(lines[0]).toMatch(/^JOB\s+WORKFLOW\s+STATE\s+CREATED$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([third, second]);
    expect((await weft(['list', '--after', third])).out).toBe('no jobs');
    const json = JSON.parse((await weft(['list', '--after', first, '--json'])).out);
    expect(json.map((j: { id: string }) => j.id)).toEqual([third, second]);
    const bad = await weft(['list', '--after', 'no-such-job']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/--after.*ISO time.*or a job id, got "no-such-job"/);
  });
});

describe.skipIf(skipBackend)('--json', () => {
  it('start, status, result, list, cancel and run print a job in one shape, times in ISO', async () => {
    const path = file(
      'approval.yaml',
      'workflow: approval\nactivities:\n  start: { kind: trigger }\n  approve: { kind: hook, signal: approve }\ntransitions:\n  start: [approve]\n',
    );
    expect((await weft(['deploy', path])).code).toBe(0);
    const started = JSON.parse((await weft(['start', 'approval', '--json'])).out);
    const id = started.id as string;
    const printed = [
      started,
      JSON.parse((await weft(['status', id, '--json'])).out),
      JSON.parse((await weft(['result', id, '--json'])).out),
      JSON.parse((await weft(['list', '--json'])).out)[0],
      JSON.parse((await weft(['cancel', id, '--json'])).out),
      JSON.parse(
        (
          await weft([
            'run',
            file('boom.yaml', BOOM),
            '--handlers',
            file('boom.mjs', BOOM_HANDLERS),
            '--json',
          ])
        ).out,
      ),
    ];
    for (const job of printed) {
      expect(Object.keys(job).sort()).toEqual(JOB_FIELDS);
      expect(job.createdAt).toMatch(ISO);
      expect(job.updatedAt).toMatch(ISO);
      for (const a of job.activities) {
        expect(Object.keys(a).sort()).toEqual(
          [
            'id',
            'kind',
            'state',
            'position',
            'digit',
            'status',
            'attempts',
            'error',
            'startedAt',
            'finishedAt',
          ].sort(),
        );
      }
    }
    expect(printed[4]).toMatchObject({
      id,
      state: 'FAILURE',
      finishedAt: expect.stringMatching(ISO),
    });
  });
});
