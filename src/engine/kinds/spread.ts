/**
 * spread: runs what follows it once per item of an array (crossflow's spread), each item
 * in a dimensional thread of its own, `<spread>#<k>` (k = 1…N) under the thread the spread
 * ran in. Downstream activities see `fan.item` and `fan.index` (0-based) in their thread.
 *
 * Seed 001's semaphore does the counting: the spread's Leg2 thread-entry counter holds
 * the number of threads it spawned, and its thread-exit counter counts those that reached
 * a collect. Six digits hold at most 999,999 threads: more is a SpreadLimitError, never a
 * wrap. A value that is not an array is one item, and nothing (`null`, no match) is none.
 * An empty array spreads nothing: that is a disposal — what follows is skipped and
 * the collects it feeds see their upstream end.
 *
 * The activities between a spread and its collect run in many threads at once; their
 * digits count for all of them (see `thread-region.ts`).
 */
import { z } from 'zod';
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import { description, expression, join } from '../../graph/workflow-document.js';
import type { Json } from '../../store/records.js';
import { yieldIfDue } from '../../store/yield-point.js';
import { evaluateOrFail, finishActivity } from '../finish-activity.js';
import { SEMAPHORE_FIELD } from '../legs.js';
import type { ActivityAddress } from '../messages.js';
import type { Step } from '../step.js';
import { childThread } from '../threads.js';
import { settle, settleOutgoing } from '../transitions.js';
import { defineKind } from './activity-kind.js';
import { checkThreadRegion } from './thread-region.js';

/** The most threads one spread can open: the six digits of its semaphore's counters. */
export const MAX_SPREAD_THREADS = 999_999;

/** One thread in the entry counter of seed 001's semaphore. */
const THREAD_ENTRY = 1_000_000n;

/** A compiled spread. */
export interface CompiledSpread extends CompiledActivityBase {
  kind: 'spread';
  /** JSONata giving the array to spread. */
  items: string;
}

/** The spread kind. */
export const spread = defineKind({
  kind: 'spread',
  document: z.strictObject({
    kind: z.literal('spread'),
    items: expression.meta({ description: 'JSONata giving the array whose items to spread.' }),
    join: join.optional(),
    description: description.optional(),
  }),
  expressions: ['items'],
  compile: (doc, base): CompiledSpread => ({ ...base, kind: 'spread', items: doc.items }),
  check({ id }, facts, problems) {
    checkThreadRegion(id, facts, problems, 'spread');
  },
  async enter(step, address, activity) {
    await step.move(address.a, COLLATION_DIGITS.started);
    const evaluated = await evaluateOrFail(
      step,
      address,
      activity.items,
      `activity ${activity.id} (items)`,
      activity.scope,
    );
    if (!evaluated) return;
    const value = evaluated.value;
    // JSONata gives a one-item match as the item and no match as nothing: spread those
    // as one item and as none.
    const items = Array.isArray(value) ? value : value === null ? [] : [value];
    if (items.length > MAX_SPREAD_THREADS) {
      await finishActivity(step, address, {
        outcome: 'error',
        error: {
          name: 'SpreadLimitError',
          code: 'SPREAD_LIMIT',
          message: `spread ${activity.id} has ${items.length} items: at most ${MAX_SPREAD_THREADS} threads fit its semaphore`,
        },
      });
      return;
    }
    step.putActivity({ activity: address.a, dimension: address.d, status: 'RUNNING' });
    step.putActivity({
      activity: address.a,
      dimension: address.d,
      status: 'SUCCESS',
      output: { count: items.length },
      startedAt: step.clock.now(),
      finishedAt: step.clock.now(),
    });
    if (items.length === 0) {
      await spreadNothing(step, address);
      return;
    }
    await openThreads(step, address, items.length);
    await step.move(address.a, COLLATION_DIGITS.completed);
    for (let k = 1; k <= items.length; k++) {
      // A spread of many items plans for seconds: the event loop gets turns meanwhile.
      await yieldIfDue();
      const thread = childThread(address.d, address.a, k);
      step.putActivity({ activity: address.a, dimension: thread, status: 'RUNNING' });
      step.putActivity({
        activity: address.a,
        dimension: thread,
        status: 'SUCCESS',
        output: { item: items[k - 1] as Json, index: k - 1 },
        startedAt: step.clock.now(),
        finishedAt: step.clock.now(),
      });
      await settleOutgoing(step.successor(thread), address.a, thread, 'success');
    }
  },
});

/**
 * Opens `count` threads of `opener` (a spread, or a collect's batch): each activity they
 * run goes to 8 and waits for `count` more threads to pass it.
 */
export async function openThreads(
  step: Step,
  address: ActivityAddress,
  count: number,
): Promise<void> {
  if (step.activity(address.a).kind === 'spread') {
    await step.addCounter(
      { job: step.job.id, activity: address.a, dimension: address.d, field: SEMAPHORE_FIELD },
      BigInt(count) * THREAD_ENTRY,
    );
  }
  for (const id of step.wf.regions.get(address.a) ?? []) {
    await step.addCounter(
      { job: step.job.id, activity: id, dimension: address.d, field: 'left' },
      BigInt(count),
    );
    await step.forceDigit(id, COLLATION_DIGITS.started);
  }
}

/** An empty spread: a disposal; what it leads to is skipped, its collects see it end. */
async function spreadNothing(step: Step, address: ActivityAddress): Promise<void> {
  step.dispose(address.a, `spread ${address.a} of an empty array`);
  await step.move(address.a, COLLATION_DIGITS.completed);
  const region = new Set(step.wf.regions.get(address.a) ?? []);
  for (const id of region) {
    await step.move(id, COLLATION_DIGITS.skipped);
    step.putActivity({ activity: id, dimension: address.d, status: 'IGNORE' });
  }
  for (const from of [address.a, ...region]) {
    for (const t of step.wf.outgoing.get(from) ?? []) {
      if (!region.has(t.to)) await settle(step, t.to, address.d, false, from);
    }
  }
}
