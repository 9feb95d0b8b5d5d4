/**
 * The edit-run loop and typos, as a user meets them: each command its own process
 * (`node bin/weft.js …`, built once per run). An edited workflow file is deployed as the
 * next version (jobs already started keep theirs); a signal no hook listens for, a
 * SQLite path in a directory that does not exist and a numeric option that is not a
 * whole number are refused, naming what is wrong.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { openStore } from '../../../src/store/open-store.js';
import { Worker } from '../../../src/worker/worker.js';
import {
  backend,
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { runWeft } from '../../support/weft-cli.js';

let location: TestStoreLocation;
let dir: string;
beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-edit-'));
});
afterEach(async () => {
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `node bin/weft.js …args` in `cwd` with `env` added (WEFT_STORE: the store under test). */
function weft(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return runWeft(args, { store: location.url, ...options });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A workflow waiting on a hook, whose output says which version ran. */
const approval = (version: number, pin = '') => `
workflow: approval
${pin}activities:
  start:   { kind: trigger }
  approve: { kind: hook, signal: approve }
transitions:
  start: [approve]
output: "{ 'ran': ${version}, 'by': approve.output.by }"
`;

describe.skipIf(skipBackend)('weft deploy of an edited file', () => {
  it('stores the edit as the next version and says so; the same file again is unchanged', async () => {
    const path = file('approval.yaml', approval(1));
    expect(await weft(['deploy', path])).toMatchObject({
      code: 0,
      out: 'deployed approval version 1',
    });
    expect(await weft(['deploy', path])).toMatchObject({
      code: 0,
      out: 'approval unchanged, version 1',
    });
    file('approval.yaml', approval(2));
    expect(await weft(['deploy', path])).toMatchObject({
      code: 0,
      out: 'deployed approval version 2 (changed from version 1)',
    });
    // Back to the first text: new jobs must run it, so it is the next version again.
    file('approval.yaml', approval(1));
    const json = await weft(['deploy', path, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual([
      { workflow: 'approval', version: 3, status: 'deployed', previousVersion: 2 },
    ]);
  });

  it('`version:` pins one: the same again is unchanged, a different definition is refused', async () => {
    const path = file('approval.yaml', approval(1, 'version: 4\n'));
    expect(await weft(['deploy', path])).toMatchObject({
      code: 0,
      out: 'deployed approval version 4',
    });
    expect(await weft(['deploy', path])).toMatchObject({
      code: 0,
      out: 'approval unchanged, version 4',
    });
    file('approval.yaml', approval(2, 'version: 4\n'));
    const refused = await weft(['deploy', path]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /workflow "approval" version 4 is already stored with a different definition/,
    );
  });

  it('a started job finishes on its own version; new jobs start on the newest', async () => {
    const path = file('approval.yaml', approval(1));
    expect((await weft(['deploy', path])).code).toBe(0);
    const started = await weft(['start', 'approval']);
    expect(started.code).toBe(0);
    const id = started.out.split('\n').pop() as string;

    file('approval.yaml', approval(2));
    expect((await weft(['deploy', path])).out).toBe(
      'deployed approval version 2 (changed from version 1)',
    );
    const signalled = await weft(['signal', id, 'approve', '--data', '{"by":"ana"}']);
    expect(signalled).toMatchObject({ code: 0 });
    const newer = await weft(['start', 'approval', '--json']);
    expect(JSON.parse(newer.out)).toMatchObject({ workflow: 'approval', version: 2 });

    const store = await openStore(location.url);
    const worker = new Worker({ store, handlers: {} });
    try {
      await worker.start();
      await new Client(store).result(id, { wait: true, timeoutMs: 30_000 });
    } finally {
      await worker.stop();
      await store.close();
    }
    expect(await weft(['result', id])).toMatchObject({ code: 0, out: '{"ran":1,"by":"ana"}' });
  });

  it('`weft run` of an edited file deploys it the same way and runs the edit', async () => {
    const constant = (text: string) => `
workflow: hello
activities:
  start: { kind: trigger }
  nap:   { kind: sleep, duration: 1ms }
transitions:
  start: [nap]
output: "'${text}'"
`;
    const path = file('hello.yaml', constant('first'));
    expect((await weft(['deploy', path])).code).toBe(0);
    file('hello.yaml', constant('second'));
    const r = await weft(['run', path]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('deployed hello version 2 (changed from version 1)');
    const json = await weft(['run', path, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ version: 2, state: 'SUCCESS', output: 'second' });
  });
});

describe.skipIf(skipBackend)('weft signal', () => {
  it('to a job with no hook for that name says so and exits non-zero', async () => {
    expect((await weft(['deploy', file('approval.yaml', approval(1))])).code).toBe(0);
    const id = (await weft(['start', 'approval'])).out.split('\n').pop() as string;
    const r = await weft(['signal', id, 'aprove']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `error: signal aprove: job ${id} (approval version 1) has no hook for signal "aprove"; its hooks listen for approve`,
    );
    // The right name, before the hook waits (no worker has run): kept for it.
    expect(await weft(['signal', id, 'approve'])).toMatchObject({
      code: 0,
      out: 'signal approve buffered',
    });
  });

  it('to a code-first job points to events, which still work', async () => {
    const store = await openStore(location.url);
    let id: string;
    try {
      await store.putDefinition({
        workflow: 'trip',
        version: 1,
        model: 'durable',
        definition: { workflow: 'trip' },
        source: null,
      });
      id = (await new Client(store).start('trip', [])).id;
    } finally {
      await store.close();
    }
    const r = await weft(['signal', id, 'approved']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`job ${id} is a code-first job; it takes events (weft event`);
    expect(await weft(['event', id, 'approved'])).toMatchObject({
      code: 0,
      out: 'event approved sent',
    });
  });
});

describe.skipIf(backend !== 'sqlite')('a SQLite store path', () => {
  it('in a directory that does not exist is an error naming it, and creates nothing', async () => {
    const typo = join(dir, 'wetf');
    const r = await weft(['list', '--store', `sqlite:${join(typo, 'weft.db')}`]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`the directory ${typo} of the SQLite database`);
    expect(r.err).toContain('does not exist');
    expect(existsSync(typo)).toBe(false);
  });

  it('the default ./.weft/weft.db is created on first use, directory and all', async () => {
    const r = await weft(['list'], { cwd: dir, env: { WEFT_STORE: undefined } });
    expect(r).toMatchObject({ code: 0 });
    expect(existsSync(join(dir, '.weft', 'weft.db'))).toBe(true);
  });
});

describe.skipIf(skipBackend)('numeric options', () => {
  it.each([
    [['list', '--limit', 'abc'], "option '--limit <n>' argument 'abc' is invalid"],
    [['list', '--limit', '0'], "option '--limit <n>' argument '0' is invalid"],
    [['list', '--limit', '2.5'], "option '--limit <n>' argument '2.5' is invalid"],
    [['list', '--limit=-3'], "option '--limit <n>' argument '-3' is invalid"],
    [['start', 'approval', '--version', 'two'], "option '--version <n>' argument 'two' is invalid"],
    [['worker', '--concurrency', 'NaN'], "option '--concurrency <n>' argument 'NaN' is invalid"],
    [['run', 'x.yaml', '--concurrency', '0.5'], "option '--concurrency <n>' argument '0.5'"],
    [['serve', '--port', '70000'], "option '--port <n>' argument '70000' is invalid"],
    [['serve', '--lease-ms', '-1'], "option '--lease-ms <ms>' argument '-1' is invalid"],
  ])('weft %j is refused naming the option, before it runs', async (args, message) => {
    const r = await weft(args);
    expect(r.err).toContain(message);
    expect(r.err).toMatch(/Expected a whole number from \d+/);
    expect(r.code).toBe(2);
  });

  it('weft result --timeout takes a duration, as the other time flags do', async () => {
    const r = await weft(['result', 'j', '--wait', '--timeout', '1e3']);
    expect(r.err).toContain(
      "option '--timeout <duration>' argument '1e3' is invalid. Expected a duration of more than 0",
    );
    const missing = await weft(['result', 'no-such-job', '--wait', '--timeout', '2s']);
    expect(missing.err).toContain('no-such-job');
  });
});

describe.skipIf(skipBackend)('weft list', () => {
  it('prints a header and the newest job first; --after takes an ISO time and refuses others', async () => {
    expect((await weft(['deploy', file('approval.yaml', approval(1))])).code).toBe(0);
    const first = (await weft(['start', 'approval'])).out.split('\n').at(-1) as string;
    const second = (await weft(['start', 'approval'])).out.split('\n').at(-1) as string;
    const listed = await weft(['list']);
    expect(listed.code).toBe(0);
    const lines = listed.out.split('\n');
    expect(lines[0]).toMatch(/^JOB\s+WORKFLOW\s+STATE\s+CREATED$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([second, first]);
    expect(lines[1]).toMatch(/approval@1\s+RUNNING\s+\d{4}-\d\d-\d\dT/);
    expect((await weft(['list', '--after', '2999-01-01T00:00:00Z'])).out).toBe('no jobs');
    const bad = await weft(['list', '--after', 'yesterday']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('--after');
  });
});
