/**
 * Starting code-first workflows from the command line, as a user does: each command its
 * own process (`node bin/weft.js …`, built once per run). A client process never has the
 * workflow's code, yet `handle()` sees the workflow's class fields and `properties: {…}`;
 * `weft start` of a workflow no worker has registered yet creates a job that waits (and
 * says so on stderr) until `weft worker --handlers <module>` with the code runs it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
  dir = mkdtempSync(join(tmpdir(), 'weft-code-first-'));
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `node bin/weft.js …args` to its end. */
function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: dir });
}

/** Starts `node bin/weft.js worker --handlers <module>` in the background. */
function startWorker(module: string): RunningWeft {
  const worker = launchWeft(['worker', '--handlers', module], { store: location.url, cwd: dir });
  workers.push(worker);
  return worker;
}

/** A worker module with two code-first workflows: class fields, and `properties: {…}`. */
const MODULE = `
import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};

export const double = defineTask('double', (n) => n * 2);

export const counter = defineWorkflow(
  'counter',
  class extends Workflow {
    count = 3;
    label = 'start';

    async handle(step) {
      const seen = { count: this.count, label: this.label };
      this.count += step;
      const doubled = await this.execute(double, this.count);
      return { seen, doubled, count: this.count };
    }
  },
);

export const greeter = defineWorkflow('greeter', {
  properties: { greeting: 'hello', times: 2 },
  async handle(name) {
    return this.greeting + ' ' + name + ' x' + this.times;
  },
});

export default {};
`;

/** `weft result <id> --wait`, parsed. */
async function resultOf(id: string): Promise<unknown> {
  const ran = await weft(['result', id, '--wait', '--timeout', '60000']);
  expect(ran, ran.err).toMatchObject({ code: 0 });
  return JSON.parse(ran.out);
}

describe.skipIf(skipBackend)('weft start of a code-first workflow', () => {
  it('before any worker registered it: the job waits, then a worker with the code runs it with its initial properties', async () => {
    const module = join(dir, 'workflows.js');
    writeFileSync(module, MODULE);

    const counter = await weft(['start', 'counter', '--input', '[2]']);
    expect(counter.code, counter.err).toBe(0);
    expect(counter.err).toContain('no worker has registered workflow "counter" yet');
    expect(counter.err).toContain('the job waits');
    const counterId = counter.out.split('\n').at(-1) as string;
    const greeter = await weft(['start', 'greeter', '--input', '["ana"]', '--id', 'greet-1']);
    expect(greeter.code, greeter.err).toBe(0);
    expect(greeter.out).toBe('greet-1');

    // Nothing has run them yet.
    const waiting = await weft(['result', counterId]);
    expect(waiting.out).toBe('RUNNING');

    startWorker(module);
    expect(await resultOf(counterId)).toEqual({
      seen: { count: 3, label: 'start' },
      doubled: 10,
      count: 5,
    });
    expect(await resultOf('greet-1')).toBe('hello ana x2');

    // Once a worker has registered it, starting it says nothing more on stderr.
    const again = await weft(['start', 'counter', '--input', '[1]']);
    expect(again.code, again.err).toBe(0);
    expect(again.err).toBe('');
    startWorker(module);
    expect(await resultOf(again.out)).toEqual({
      seen: { count: 3, label: 'start' },
      doubled: 8,
      count: 4,
    });
  });

  it('weft run <module> starts it with its initial properties', async () => {
    const module = join(dir, 'workflows.js');
    writeFileSync(module, MODULE);
    const ran = await weft(['run', module, '--workflow', 'greeter', '--input', '["bo"]']);
    expect(ran.code, ran.err).toBe(0);
    const id = /job (\S+)/.exec(ran.out)?.[1] as string;
    expect(await resultOf(id)).toBe('hello bo x2');
  });

  it('a version that is not stored is still not found', async () => {
    const ran = await weft(['start', 'counter', '--version', '2']);
    expect(ran.code).not.toBe(0);
    expect(ran.err).toMatch(/workflow "?counter@2"? not found/);
  });
});
