/**
 * What a cycle's re-entry does to the collation key, as `weft status` shows it: every
 * finished activity downstream of the ancestor goes back to pending (9) — the loop's
 * body, and also the exits an iteration skipped and what they lead to — so the next
 * iteration decides them afresh. The graph analysis (`src/graph`) predicts the same key
 * the engine writes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { reentered } from '../../../src/graph/analysis.js';
import type { CompiledWorkflow } from '../../../src/graph/compiled-workflow.js';
import type { Store } from '../../../src/store/store.js';
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

/** Positions: again, done, notify, start, work. */
const loop = compileWorkflow(`
workflow: reentry
activities:
  start:  { kind: trigger }
  work:   { kind: task }
  again:  { kind: cycle, ancestor: work, max: 5 }
  done:   { kind: task }
  notify: { kind: task }
transitions:
  start: [work]
  work:
    - { to: again, when: "work.output < 2" }
    - { to: done, when: "work.output >= 2" }
  done: [notify]
`);

const FINISHED = new Set(['6', '7', '4', '3']);

/** The key the graph analysis says a re-entry of `cycle` leaves, from the key before it. */
function predictedAfterReentry(wf: CompiledWorkflow, cycle: string, before: string): string {
  const reset = new Set(reentered(wf, cycle));
  const digits = [...before];
  wf.order.forEach((id, position) => {
    if (reset.has(id) && FINISHED.has(digits[position] as string)) digits[position] = '9';
  });
  return digits.join('');
}

describe('cycle re-entry', () => {
  it('puts the skipped exit and what follows it back to pending, as the analysis predicts', async () => {
    await client.deploy(loop);
    const job = await client.start(loop.workflow, {});
    let calls = 0;
    const stepper = new EngineStepper(store, {
      work: async () => ++calls,
      done: async () => 'done',
      notify: async () => 'told',
    });
    const keys: string[] = [];
    await stepper.runUntilIdle(job.id, (key) => keys.push(key));

    // Iteration 1: work returned 1, took `again` and not `done`, so done and notify were
    // skipped (3) while the cycle waits to run.
    const before = '933660000000000';
    expect(keys).toContain(before);
    // The cycle ran: work, again, done and notify are pending again; start stays done.
    const after = keys[keys.indexOf(before) + 1];
    expect(after).toBe('999690000000000');
    expect(predictedAfterReentry(loop, 'again', before)).toBe(after);

    // Iteration 2 takes the exit: the job ends with the cycle skipped and the exit run.
    const view = await client.status(job.id);
    expect(view.state).toBe('SUCCESS');
    expect(view.collation).toBe('366660000000000');
  });
});
