/**
 * Dispatched works: a failure the code did not wait for does not fail the instance (its
 * onFailure branch runs while the instance runs, and rethrowing there fails it); every
 * work carries when it was scheduled, started and finished; and a work that reports
 * after its instance ended is recorded on its status alone (`recordLateAction`).
 */
import { describe, expect, it } from 'vitest';
import type { TaskFailedError } from '../../src/core/errors.js';
import { defineTask, defineWorkflow, Workflow, type WorkInfo } from '../../src/durable/index.js';
import { recordLateAction } from '../../src/durable/late-results.js';
import { Simulator } from './support/simulator.js';

const T0 = Date.UTC(2026, 0, 1);
const audit = defineTask('audit', async (_input: { why?: string }) => {
  throw new Error('audit log is down');
});
const notify = defineTask('notify', async (input: { to: string }) => ({ sent: input.to }));
const book = defineTask('book', async () => ({ booked: true }));

/** Dispatches audit and notify, then waits for `go` and books. */
const trip = defineWorkflow(
  'trip',
  class extends Workflow {
    failed: string[] = [];
    async handle() {
      await this.dispatch(audit, {});
      await this.dispatch(notify, { to: 'ana' });
      await this.waitForEvent('go');
      return await this.execute(book);
    }
    onFailure(work: WorkInfo, error: TaskFailedError) {
      this.failed = [...this.failed, `${work.name}: ${error.failure.message}`];
    }
  },
);

describe('dispatched works', () => {
  it('a dispatched failure runs onFailure but does not fail the instance', async () => {
    const sim = new Simulator({ workflows: [trip], tasks: [audit, notify, book] });
    const id = sim.start(trip, []);
    await sim.decide(id);
    sim.now = T0 + 1_000;
    sim.startWork('audit');
    sim.now = T0 + 2_000;
    await sim.completeWork('audit');
    await sim.run({ advanceTime: false });
    expect(sim.instance(id).state).toBe('running');
    sim.sendEvent(id, 'go');
    await sim.run();
    const instance = sim.instance(id);
    expect(instance.state).toBe('completed');
    expect(instance.output).toEqual({ booked: true });
    expect(instance.properties.at(-1)?.values).toEqual({ failed: ['audit: audit log is down'] });
    expect(instance.statuses.find((s) => s.name === 'audit')).toMatchObject({
      sync: false,
      status: 'failed',
      error: { message: 'audit log is down' },
      scheduled_at: T0,
      started_at: T0 + 1_000,
      finished_at: T0 + 2_000,
    });
  });

  it('rethrown from onFailure, a dispatched failure fails the instance', async () => {
    const strict = defineWorkflow(
      'strict',
      class extends Workflow {
        async handle() {
          await this.dispatch(audit, {});
          await this.waitForEvent('go');
        }
        onFailure(_work: WorkInfo, error: TaskFailedError) {
          throw error;
        }
      },
    );
    const sim = new Simulator({ workflows: [strict], tasks: [audit] });
    const id = sim.start(strict, []);
    await sim.run({ advanceTime: false });
    expect(sim.instance(id)).toMatchObject({
      state: 'failed',
      error: { message: expect.stringContaining('audit log is down') },
    });
  });

  it('a work that reports after its instance ended is recorded on its status alone', async () => {
    const quick = defineWorkflow(
      'quick',
      class extends Workflow {
        async handle() {
          await this.dispatch(notify, { to: 'bo' });
          return 'done';
        }
      },
    );
    const sim = new Simulator({ workflows: [quick], tasks: [notify] });
    const id = sim.start(quick, []);
    await sim.decide(id);
    const ended = sim.instance(id);
    expect(ended).toMatchObject({ state: 'completed', output: 'done' });
    const uuid = sim.work('notify').uuid;

    const started = recordLateAction(ended, { type: 'onStart', uuid }, T0 + 500);
    expect(started?.statuses[0]).toMatchObject({
      status: 'scheduled',
      started: true,
      started_at: T0 + 500,
    });
    expect(recordLateAction(started ?? ended, { type: 'onStart', uuid }, T0 + 600)).toBeNull();
    const done = recordLateAction(
      started ?? ended,
      { type: 'onSuccess', uuid, output: { sent: 'bo' } },
      T0 + 900,
    );
    expect(done).toMatchObject({ state: 'completed', output: 'done', branches: ended.branches });
    expect(done?.statuses[0]).toMatchObject({
      status: 'completed',
      output: { sent: 'bo' },
      finished_at: T0 + 900,
    });
    // Once its result is in, another (a second delivery) changes nothing.
    const error = { name: 'Error', message: 'late' };
    expect(recordLateAction(done ?? ended, { type: 'onFailure', uuid, error }, T0)).toBeNull();
    // While the instance runs, actions go through receiveAction instead.
    const running = { ...ended, state: 'running' as const };
    expect(recordLateAction(running, { type: 'onStart', uuid }, T0)).toBeNull();
  });
});
