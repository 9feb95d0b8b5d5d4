/**
 * await: starts a child job of another workflow (its newest version) and, unless
 * `await: false`, stays started (8) until the child ends; the child's end is Leg2. The
 * child's id is derived from the parent's, so a re-run of this step finds the same child
 * instead of making a second one.
 */
import { z } from 'zod';
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import { description, expression, join, workflowId } from '../../graph/workflow-document.js';
import { parkedMessage } from '../../store/queue-rules.js';
import type { Json } from '../../store/records.js';
import { evaluateOrFail, finishActivity } from '../finish-activity.js';
import { passLeg2 } from '../legs.js';
import type { ActivityAddress, ChildMessage } from '../messages.js';
import { fileQueuePlace } from '../queue-place.js';
import { graphJobRows } from '../start-job.js';
import type { Step } from '../step.js';
import { defineKind } from './activity-kind.js';

/** A compiled await. */
export interface CompiledAwait extends CompiledActivityBase {
  kind: 'await';
  /** The child workflow id (its newest version runs). */
  workflow: string;
  /** JSONata producing the child's input; absent = the job input. */
  input?: string;
  /** false: start the child and go on without waiting. */
  await: boolean;
}

/** The id of the child job an await activity starts. */
export function childJobId(address: ActivityAddress): string {
  return `${address.job}.${address.a}${address.d ? `.${address.d}` : ''}`;
}

/** The await kind. */
export const awaitKind = defineKind({
  kind: 'await',
  document: z.strictObject({
    kind: z.literal('await'),
    workflow: workflowId.meta({ description: 'The child workflow to start.' }),
    input: expression.optional(),
    await: z
      .boolean()
      .optional()
      .meta({ description: 'false: start the child and go on (default true).' }),
    join: join.optional(),
    description: description.optional(),
  }),
  expressions: ['input'],
  compile: (doc, base): CompiledAwait => ({
    ...base,
    kind: 'await',
    workflow: doc.workflow,
    ...(doc.input !== undefined && { input: doc.input }),
    await: doc.await ?? true,
  }),
  check({ id, fields }, { draft }, problems) {
    if (fields.workflow === draft.workflow && fields.await !== false) {
      problems.add(
        ['activities', id, 'workflow'],
        `awaits its own workflow ${JSON.stringify(draft.workflow)}: a job would wait on a copy of itself without end; use await: false to start a new job instead`,
      );
    }
  },
  respond: { child: respondChild },
  async enter(step, address, activity) {
    await step.move(address.a, COLLATION_DIGITS.started);
    const evaluated = activity.input
      ? await evaluateOrFail(
          step,
          address,
          activity.input,
          `activity ${activity.id} (input)`,
          activity.scope,
        )
      : { value: step.job.input };
    if (!evaluated) return;
    const input = evaluated.value;
    const wf = await step.loadWorkflow(activity.workflow);
    const child = childJobId(address);
    // Starting a job is idempotent by id: a job already there under the child's id is it.
    if (!(await step.readJob(child))) {
      const now = step.clock.now();
      // A child of a workflow whose file names a queue waits in it for a slot, its
      // trigger's message parked until a worker admits it (charged to no rate).
      const fileQueue = wf.compiled.queue;
      const place = fileQueue
        ? await fileQueuePlace(wf.compiled.workflow, fileQueue, input, {}, now)
        : undefined;
      const rows = graphJobRows({
        id: child,
        wf,
        input,
        now: step.clock.now(),
        ...(activity.await === false
          ? {}
          : { parent: { job: step.job.id, activity: address.a, dimension: address.d } }),
      });
      const counters = rows.deadline ? [rows.collation, rows.deadline.counter] : [rows.collation];
      await step.createJob(
        rows.job,
        counters,
        [place ? parkedMessage(rows.enter) : rows.enter],
        rows.start,
      );
      if (place) {
        const { queue, key = '', priority = 0 } = place;
        step.enqueue({ job: child, queue, key, priority, availableAt: now });
      }
      if (rows.deadline) step.scheduleTimer(rows.deadline.timer);
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
});

/** Leg2 of an await: the child ended. False when Leg2 was already closed. */
async function respondChild(step: Step, message: ChildMessage): Promise<boolean> {
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
