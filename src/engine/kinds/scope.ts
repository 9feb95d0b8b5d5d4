/**
 * scope: a group of activities with transitions of their own (issues 11 and 12). The
 * compiler flattens it (`graph/scopes.ts`): its members are activities of the one graph
 * under qualified ids `<scope>.<inner>`. Leg1 starts the scope (9→8) and enters its
 * entries in a thread of its own, `<scope>#<n>` under the thread it ran in, so the
 * members' semaphores and join counters start fresh each session. From outside, a scope
 * with live members is one active activity: its digit stays 8.
 *
 * The scope ends when none of its members is active (9, 8, 5): every step that moves a
 * member's digit out of the active set asks for that check, and the engine runs it when
 * the step's chain is done ({@link closeScopes}). A member that ended errored (7) with
 * nothing handling it fails the scope with an error naming that member — the scope's
 * `on: error` transition takes it, else the job (or an enclosing scope) fails; otherwise
 * the scope succeeds with its `output`.
 */
import { z } from 'zod';
import { COLLATION_DIGITS, isActiveDigit } from '../../core/collation-digits.js';
import { ExpressionError } from '../../core/errors.js';
import {
  REVERT_ALL_CODE,
  type RetryController,
  type RetryValue,
} from '../../core/retry-controller.js';
import { transition } from '../../core/states.js';
import { checkExpression, namesVisibleIn } from '../../graph/check-fields.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import {
  description,
  expression,
  join,
  transitionItemSchema,
} from '../../graph/workflow-document.js';
import type { ErrorRecord, Json } from '../../store/records.js';
import { failureRecord, finishActivity } from '../finish-activity.js';
import { continueScopeRevert, failRun, firstRun, startRun } from '../scope-retry.js';
import type { Step } from '../step.js';
import { threadOf } from '../threads.js';
import { defineKind } from './activity-kind.js';

/** A compiled scope. */
export interface CompiledScope extends CompiledActivityBase {
  kind: 'scope';
  /** Qualified ids of its direct children, in collation order. */
  members: string[];
  /** Its members no inner transition leads to: what its start enters. */
  entries: string[];
  /** JSONata over its members (by short id) giving its output. */
  output?: string;
  /** Its retry controller (TaskFlow's), when it has one (`scope-retry.ts`). */
  retry?: RetryController;
}

const retryController = z
  .union([
    z.strictObject({
      times: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .meta({ description: 'Runs at most this many times.' }),
    }),
    z.strictObject({
      for_each: z.union([z.array(z.unknown()).min(1), expression]).meta({
        description:
          'One run per value, in order, until one succeeds: a list, or JSONata over the job input (and outer activities) giving one.',
      }),
    }),
    z.literal('revert').meta({ description: 'A failure reverts the scope and goes on outwards.' }),
    z
      .literal('revert_all')
      .meta({ description: 'A failure reverts the scope, then the whole job.' }),
  ])
  .meta({
    description:
      "The scope's retry controller: what a failed run does (RETRY with the next value, REVERT or REVERT_ALL). Expressions inside read retry.value and retry.attempt.",
  });

/** The scope kind. */
export const scope = defineKind({
  kind: 'scope',
  document: z.strictObject({
    kind: z.literal('scope'),
    activities: z
      .record(z.string(), z.unknown())
      .refine((map) => Object.keys(map).length > 0, { error: 'a scope needs an activity' })
      .meta({ description: 'The activities inside the scope, by id (any kind but trigger).' }),
    transitions: z
      .record(z.string(), z.array(transitionItemSchema))
      .optional()
      .meta({ description: "Transitions between the scope's own activities." }),
    output: expression
      .optional()
      .meta({ description: 'JSONata over its members (by id) giving the scope output.' }),
    retry: retryController.optional(),
    join: join.optional(),
    description: description.optional(),
  }),
  innerExpressions: ['output'],
  check({ id, fields }, { draft }, problems) {
    // A for_each expression is evaluated where the scope stands: it sees what its own
    // expressions would (the job input, outer activities, the members of scopes around).
    const retry = fields.retry as { for_each?: unknown } | undefined;
    if (typeof retry?.for_each !== 'string') return;
    const names = namesVisibleIn(draft, draft.scopeOf.get(id));
    checkExpression(retry.for_each, ['activities', id, 'retry', 'for_each'], problems, names);
  },
  compile(doc, base): CompiledScope {
    const inner = Object.keys(doc.activities);
    const targeted = new Set(
      Object.values(doc.transitions ?? {}).flatMap((items) =>
        items.map((item) => (typeof item === 'string' ? item : item.to)),
      ),
    );
    const qualify = (id: string) => `${base.id}.${id}`;
    const sorted = (ids: string[]) => ids.map(qualify).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      ...base,
      kind: 'scope',
      members: sorted(inner),
      entries: sorted(inner.filter((id) => !targeted.has(id))),
      ...(doc.output !== undefined && { output: doc.output }),
      ...(doc.retry !== undefined && { retry: compileController(doc.retry) }),
    };
  },
  async enter(step, address, activity) {
    await step.move(address.a, COLLATION_DIGITS.started);
    let run: Awaited<ReturnType<typeof firstRun>>;
    try {
      run = await firstRun(step, activity);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      // A for_each that fails is the scope's failure: no run starts, its members are skipped.
      await skipMembers(step, activity);
      await finishActivity(step, address, { outcome: 'error', error: failureRecord(error) });
      return;
    }
    await startRun(step, activity, address, run);
  },
});

/** Skips every member of a scope that never ran (nested scopes' members too). */
async function skipMembers(step: Step, scope: CompiledScope): Promise<void> {
  for (const member of scope.members) {
    const inner = step.activity(member);
    if (inner.kind === 'scope') await skipMembers(step, inner);
    if ((await step.digit(member)) === COLLATION_DIGITS.pending) {
      await step.move(member, COLLATION_DIGITS.skipped);
    }
  }
}

function compileController(doc: unknown): RetryController {
  if (doc === 'revert') return { kind: 'revert' };
  if (doc === 'revert_all') return { kind: 'revert_all' };
  const value = doc as { times?: number; for_each?: unknown };
  if (value.times !== undefined) return { kind: 'times', times: value.times };
  return typeof value.for_each === 'string'
    ? { kind: 'for_each', expression: value.for_each }
    : { kind: 'for_each', values: value.for_each as RetryValue[] };
}

/**
 * Ends every scope a step of this chain asked about whose members are all done, and the
 * scopes around those in turn. Runs after a chain of steps; each scope's end is a step of
 * its own (a successor in the thread the scope ran in), with its own history line.
 * True when one ended.
 */
export async function closeScopes(last: Step): Promise<boolean> {
  let closed = false;
  for (let check = last.takeScopeCheck(); check; check = last.takeScopeCheck()) {
    const activity = last.activity(check.scope);
    if (activity.kind !== 'scope') continue;
    if ((await last.digit(activity.id)) !== COLLATION_DIGITS.started) continue;
    let live = false;
    for (const member of activity.members) live ||= isActiveDigit(await last.digit(member));
    if (live) continue;
    const at = threadOf(check.dimension, activity.id);
    if (!at) continue;
    closed = true;
    const inside = last.successor(at.thread);
    const outside = last.successor(at.parent);
    const address = { job: last.job.id, a: activity.id, d: at.parent };
    // A run being reverted (its controller decided) goes on with its next revert or its end.
    const record = await outside.record(activity.id, at.parent);
    if (record?.status === 'RETRYING' || record?.status === 'REVERTING') {
      await continueScopeRevert(outside, activity, at);
      await outside.noteStep('close', activity.id);
      continue;
    }
    const failed = await failedMember(inside, activity);
    if (failed && (activity.retry || failed.code === REVERT_ALL_CODE)) {
      await failRun(outside, activity, at, record, failed);
      await outside.noteStep('close', activity.id);
      continue;
    }
    if (failed) {
      await finishActivity(outside, address, { outcome: 'error', error: failed });
    } else {
      let output: Json;
      try {
        output = activity.output
          ? await inside.evaluate(activity.output, `scope ${activity.id} (output)`, activity.id)
          : await defaultScopeOutput(inside, activity);
      } catch (cause) {
        if (!(cause instanceof ExpressionError)) throw cause;
        await finishActivity(outside, address, { outcome: 'error', error: failureRecord(cause) });
        await outside.noteStep('close', activity.id);
        continue;
      }
      await finishActivity(outside, address, { outcome: 'success', output });
      if (activity.retry) {
        // The controller's run succeeded: its record reads SUCCESS (finishActivity wrote it).
        transition('retry', 'RUNNING', 'SUCCESS', `scope ${activity.id}`);
      }
    }
    await outside.noteStep('close', activity.id);
  }
  return closed;
}

/** The error of the first member (in collation order) that ended errored, if one did. */
async function failedMember(step: Step, activity: CompiledScope): Promise<ErrorRecord | undefined> {
  for (const member of activity.members) {
    if ((await step.digit(member)) !== COLLATION_DIGITS.errored) continue;
    const data = (await step.data(activity.id))[member] as { error?: ErrorRecord } | undefined;
    const cause = data?.error ?? undefined;
    return {
      name: cause?.name ?? 'ActivityError',
      message: `activity ${member} failed: ${cause?.message ?? 'unknown error'}`,
      activity: member,
      ...(cause?.code ? { code: cause.code } : {}),
    };
  }
  return undefined;
}

/** Without `output:`, a scope's output maps each member no inner transition leaves to its output. */
async function defaultScopeOutput(step: Step, activity: CompiledScope): Promise<Json> {
  const data = await step.data(activity.id);
  const out: Record<string, Json> = {};
  for (const member of activity.members) {
    if ((step.wf.outgoing.get(member) ?? []).length > 0) continue;
    const entry = data[member] as { status?: string; output?: Json } | undefined;
    if (entry?.status === 'SUCCESS')
      out[member.slice(activity.id.length + 1)] = entry.output ?? null;
  }
  return out;
}
