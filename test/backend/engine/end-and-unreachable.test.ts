/**
 * `end:` (crossflow's terminate) and Unreachability: the job ends when its end activity
 * ends, whatever else is still active; a disposal after which nothing can reach the end
 * fails the job with UnreachableError naming that disposal. Without `end:` nothing changes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Json } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store.js';
import type { TaskHandlers } from '../../../src/worker/task-handler.js';
import { EngineStepper } from '../../support/engine-stepper.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let close: () => Promise<void>;
let client: Client;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => close());

async function run(yaml: string, handlers: TaskHandlers, input: Json = {}) {
  const wf = compileWorkflow(yaml);
  await client.deploy(wf);
  const job = await client.start(wf.workflow, input);
  await new EngineStepper(store, handlers).runUntilIdle();
  return client.status(job.id);
}

const SHIPPING = (end: boolean) => `
workflow: shipping-${end}
activities:
  start:  { kind: trigger }
  check:  { kind: task }
  ship:   { kind: task }
  report: { kind: task }
transitions:
  start: [check]
  check: [{ to: ship, when: "check.output.ok" }]
  ship: [report]
${end ? 'end: report' : ''}
`;

describe('end and Unreachability', () => {
  it('fails with UnreachableError naming the disposal when a not-taken transition cuts the only path to the end', async () => {
    const view = await run(SHIPPING(true), { check: async () => ({ ok: false }) });
    expect(view.state).toBe('FAILURE');
    expect(view.error).toMatchObject({
      name: 'UnreachableError',
      code: 'UNREACHABLE',
      activity: 'check',
    });
    expect(view.error?.message).toMatch(
      /can no longer reach its end "report": transition check -> ship not taken/,
    );
    // check 6, report 3, ship 3, start 6: the key shows the skipped path to the end.
    expect(view.collation).toBe('633600000000000');
  });

  it('keeps today’s rule without end: the same run ends SUCCESS', async () => {
    const view = await run(SHIPPING(false), { check: async () => ({ ok: false }) });
    expect(view.state).toBe('SUCCESS');
  });

  it('ends when the end activity ends, with its output, while other branches still run', async () => {
    const view = await run(
      `
workflow: race
activities:
  start: { kind: trigger }
  fast:  { kind: task }
  slow:  { kind: task }
  done:  { kind: task, input: "fast.output" }
transitions: { start: [fast, slow], fast: [done] }
end: done
`,
      // No handler for slow: it stays started.
      { fast: async () => 'quick', done: async (input) => `done after ${input}` },
    );
    expect(view.state).toBe('SUCCESS');
    expect(view.output).toBe('done after quick');
    // done 6, fast 6, slow 8 (still running when the job ended), start 6
    expect(view.collation).toBe('668600000000000');
  });
});
