/**
 * A cancelled job's queued work never runs, as a user meets it: each command its own
 * process. A worker that does not serve task `charge` runs the job until its `charge`
 * task waits in its stream; `weft cancel` ends the job; a worker that serves `charge`
 * then runs the next job's charge and never the cancelled one's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import {
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
} from '../../support/weft-cli.js';

const LIBRARY = pathToFileURL(join(REPO_ROOT, 'dist', 'index.js')).href;

let location: TestStoreLocation;
let store: Store;
let dir: string;
const workers: RunningWeft[] = [];

beforeEach(async () => {
  location = await freshStoreUrl();
  store = await openStore(location.url);
  dir = mkdtempSync(join(tmpdir(), 'weft-cancel-'));
  // Every charge a handler makes, by job, one per line.
  writeFileSync(join(dir, 'charges.txt'), '');
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  await store.close();
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(...args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: dir });
}

function startWorker(module: string): RunningWeft {
  const worker = launchWeft(['worker', '--handlers', module], { store: location.url, cwd: dir });
  workers.push(worker);
  return worker;
}

/** The jobs whose `charge` ran. */
function charged(): string[] {
  return readFileSync(join(dir, 'charges.txt'), 'utf8').split('\n').filter(Boolean);
}

/** Waits until `job`'s charge task is queued: no worker here serves it. */
async function chargeQueued(job: string): Promise<void> {
  await waitFor(
    async () => (await store.jobMessages(job)).some((m) => m.stream === 'task:charge'),
    `job ${job}'s charge task in its stream`,
    { intervalMs: 50 },
  );
}

/** Cancels `job` with `weft cancel`, and checks it ended and left no work behind. */
async function cancel(job: string): Promise<void> {
  const cancelled = await weft('cancel', job, '--json');
  expect(cancelled.code).toBe(0);
  expect(JSON.parse(cancelled.out)).toMatchObject({ id: job, state: 'FAILURE' });
  expect((await store.jobMessages(job)).filter((m) => m.stream.startsWith('task:'))).toHaveLength(
    0,
  );
}

const CHARGE = `
import { appendFileSync } from 'node:fs';
export async function charge(_input, ctx) {
  appendFileSync('charges.txt', (ctx?.job ?? 'code-first') + '\\n');
  return 'charged';
}
`;

describe.skipIf(skipBackend)('weft cancel: queued work', () => {
  it('graph: the cancelled job\u2019s queued task never runs; the next job\u2019s does', async () => {
    writeFileSync(
      join(dir, 'charge.yaml'),
      `workflow: charge
activities:
  start: { kind: trigger }
  charge: { kind: task }
transitions:
  start: [charge]
`,
    );
    writeFileSync(join(dir, 'charge.mjs'), CHARGE);
    writeFileSync(join(dir, 'none.mjs'), 'export default {};\n');
    writeFileSync(
      join(dir, 'handlers.mjs'),
      "import { charge } from './charge.mjs';\nexport default { charge };\n",
    );
    expect((await weft('deploy', 'charge.yaml')).code).toBe(0);

    const engineOnly = startWorker('none.mjs');
    const first = (await weft('start', 'charge')).out.split('\n').at(-1) as string;
    await chargeQueued(first);
    await cancel(first);
    await engineOnly.stop();

    startWorker('handlers.mjs');
    const second = (await weft('start', 'charge')).out.split('\n').at(-1) as string;
    const result = await weft('result', second, '--wait', '--timeout', '30000');
    expect(result.code).toBe(0);
    expect(charged()).toEqual([second]);
    const status = JSON.parse((await weft('status', first, '--json')).out);
    expect(status).toMatchObject({ state: 'FAILURE', error: { code: 'CANCELLED' } });
  });

  it('code-first: the terminated job\u2019s queued task never runs; the next job\u2019s does', async () => {
    writeFileSync(join(dir, 'charge.mjs'), CHARGE);
    // The workflow alone: it calls charge, but this module does not export it, so a
    // worker of this module does not serve it.
    writeFileSync(
      join(dir, 'workflow.mjs'),
      `import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};
import { charge as chargeHandler } from './charge.mjs';
const charge = defineTask('charge', (n) => chargeHandler(n, {}));
export const pay = defineWorkflow('pay', class extends Workflow {
  async handle(n) { return this.execute(charge, n); }
});
`,
    );
    writeFileSync(
      join(dir, 'both.mjs'),
      `import { defineTask } from ${JSON.stringify(LIBRARY)};
import { charge as chargeHandler } from './charge.mjs';
export { pay } from './workflow.mjs';
export const charge = defineTask('charge', (n) => chargeHandler(n, { job: 'next' }));
`,
    );
    const workflowOnly = startWorker('workflow.mjs');
    const first = (await weft('start', 'pay', '--input', '1')).out.split('\n').at(-1) as string;
    await chargeQueued(first);
    await cancel(first);
    await workflowOnly.stop();

    startWorker('both.mjs');
    const second = (await weft('start', 'pay', '--input', '2')).out.split('\n').at(-1) as string;
    const result = await weft('result', second, '--wait', '--timeout', '30000');
    expect(result.code).toBe(0);
    expect(result.out).toBe('"charged"');
    expect(charged()).toEqual(['next']);
    expect(JSON.parse((await weft('status', first, '--json')).out).state).toBe('FAILURE');
  });
});
