/**
 * await: starts a child job of another workflow (its newest version) and, unless
 * `await: false`, stays started (8) until the child ends; the child's end is Leg2. The
 * child's id is derived from the parent's, so a re-run of this step finds the same child
 * instead of making a second one.
 */
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import { NotFoundError } from '../../core/errors.js';
import type { Json } from '../../store/records.js';
import { finishActivity } from '../finish-activity.js';
import { passLeg2 } from '../legs.js';
import type { ActivityAddress, ChildMessage } from '../messages.js';
import { graphJobRows } from '../start-job.js';
import type { Step } from '../step.js';
import type { ActivityKind } from './activity-kind.js';

/** The id of the child job an await activity starts. */
export function childJobId(address: ActivityAddress): string {
  return `${address.job}.${address.a}${address.d ? `.${address.d}` : ''}`;
}

/** The await kind's Leg1. */
export const awaitKind: ActivityKind = {
  async enter(step, address) {
    const activity = step.activity(address.a);
    await step.move(address.a, COLLATION_DIGITS.started);
    const input = activity.input
      ? await step.evaluate(activity.input, `activity ${activity.id} (input)`)
      : step.job.input;
    const workflow = activity.workflow;
    if (!workflow) throw new NotFoundError('workflow', `(none given for ${activity.id})`);
    const wf = await step.loadWorkflow(workflow);
    const child = childJobId(address);
    // Starting a job is idempotent by id: a job already there under the child's id is it.
    if (!(await step.readJob(child))) {
      const rows = graphJobRows({
        id: child,
        wf,
        input,
        now: step.clock.now(),
        ...(activity.await === false
          ? {}
          : { parent: { job: step.job.id, activity: address.a, dimension: address.d } }),
      });
      await step.createJob(rows.job, [rows.collation], [rows.enter], rows.start);
    }
    step.putActivity({
      activity: address.a,
      dimension: address.d,
      status: 'RUNNING',
      input,
      output: { job: child } as Json,
      startedAt: step.clock.now(),
      finishedAt: null,
    });
    if (activity.await === false) {
      await finishActivity(step, address, { outcome: 'success', output: { job: child } });
    }
  },
};

/** Leg2 of an await: the child ended. False when Leg2 was already closed. */
export async function respondChild(step: Step, message: ChildMessage): Promise<boolean> {
  const address = { job: message.job, a: message.a, d: message.d };
  if ((await passLeg2(step, address, 'final')) === undefined) return false;
  const child = await step.readJob(message.child);
  if (child?.state === 'SUCCESS') {
    await finishActivity(step, address, { outcome: 'success', output: child.output });
  } else {
    await finishActivity(step, address, {
      outcome: 'error',
      error: {
        name: 'ChildJobFailed',
        message: `child job ${message.child} ended ${child?.state ?? 'missing'}${child?.error ? `: ${child.error.message}` : ''}`,
        job: message.child,
      },
    });
  }
  return true;
}
