/**
 * The `weft serve` command: it listens, registers `--workflows` and `--tasks`, runs the
 * engine streams beside the server (here a graph workflow's task is run by an HTTP
 * agent, its Leg2 recorded through the protocol), and stops cleanly; bad flags are usage errors (exit 2).
 */
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { registerServeCommand } from '../../../src/cli/serve-command.js';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { openStore } from '../../../src/store/open-store.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { HttpAgent } from './http-agent.js';

let location: TestStoreLocation;
beforeEach(async () => {
  location = await freshStoreUrl();
});
afterEach(async () => location.cleanup());

function startCommand(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  let code: number | undefined;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const program = new Command('weft').exitOverride();
  registerServeCommand(
    program,
    { out: (t) => out.push(t), err: (t) => err.push(t) },
    (c) => {
      code = c;
    },
    { until: () => stopped },
  );
  const done = program.parseAsync(['node', 'weft', 'serve', ...args]);
  return { out, err, stop, done, code: () => code };
}

const doubler = `
workflow: doubler
input:
  type: object
  properties: { n: { type: number } }
activities:
  start: { kind: trigger }
  double: { kind: task, task: double, input: "input.n" }
transitions:
  start: [double]
output: "double.output"
`;

describe.skipIf(skipBackend)('weft serve (command)', () => {
  it('serves agents until stopped; a graph task runs through the protocol', async () => {
    const run = startCommand([
      '--store',
      location.url,
      '--port',
      '0',
      '--workflows',
      'sum',
      '--tasks',
      'double,square',
    ]);
    await waitFor(() => run.out.length > 0 || run.code() !== undefined, 'serve to listen');
    const url = /listening on (http:\/\/\S+)/.exec(run.out[0] ?? '')?.[1];
    expect(url, run.err.join('\n')).toBeDefined();
    const agent = new HttpAgent(url as string);
    expect((await agent.call('GET', '/agents')).body).toEqual({
      workflows: ['sum'],
      tasks: ['double', 'square'],
    });

    const store = await openStore(location.url);
    try {
      const client = new Client(store);
      await client.deploy(compileWorkflow(doubler));
      const job = await client.start('doubler', { n: 21 });
      // The engine worker `weft serve` runs beside the server takes the job's first steps.
      const task = await agent.job('?tasks=double&wait=30000');
      expect(task).toMatchObject({
        action: 'TaskScheduled',
        name: 'double',
        input: 21,
        job: job.id,
      });
      expect(await agent.runTask(task.uuid, 'double', task.input)).toEqual({ status: 'recorded' });
      const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
      expect(done).toMatchObject({ state: 'SUCCESS', output: 42 });
    } finally {
      await store.close();
    }
    run.stop();
    await run.done;
    expect(run.code()).toBe(0);
  });

  it('refuses a bad flag before serving: exit 2 (a usage error), naming it', async () => {
    const err: string[] = [];
    const code = await main(
      ['node', 'weft', 'serve', '--store', location.url, '--port', 'eighty'],
      {
        out: () => {},
        err: (t) => err.push(t),
      },
    );
    expect(code).toBe(2);
    expect(err.join('\n')).toContain("option '--port <n>' argument 'eighty' is invalid");
  });

  it('refuses a name no agent could register, before serving', async () => {
    const run = startCommand([
      '--store',
      location.url,
      '--port',
      '0',
      '--tasks',
      'charge,two words',
    ]);
    await run.done;
    expect(run.code()).toBe(1);
    expect(run.err.join('\n')).toMatch(/^error: --tasks\/1: a workflow or task name is 1-128/);
    expect(run.out).toEqual([]);
  });
});
