/**
 * trigger: the first activity of every graph. Its Leg1 completes at once with the job
 * input as its output, and its transitions fire. It never fails.
 */
import { z } from 'zod';
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import { neverFails } from '../../graph/kind-spec.js';
import { description } from '../../graph/workflow-document.js';
import { finishActivity } from '../finish-activity.js';
import { defineKind } from './activity-kind.js';

/** A compiled trigger. */
export interface CompiledTrigger extends CompiledActivityBase {
  kind: 'trigger';
}

/** The trigger kind. */
export const trigger = defineKind({
  kind: 'trigger',
  document: z.strictObject({
    kind: z.literal('trigger'),
    description: description.optional(),
  }),
  compile: (_doc, base): CompiledTrigger => ({ ...base, kind: 'trigger' }),
  outcomeProblem: neverFails,
  async enter(step, address) {
    await step.move(address.a, COLLATION_DIGITS.started);
    await finishActivity(step, address, { outcome: 'success', output: step.job.input });
  },
});
