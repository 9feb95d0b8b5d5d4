/**
 * collect: holds what reaches it until nothing upstream can still reach it, then emits
 * one array (crossflow's collect). It is never entered: each transition into it that
 * fires in some thread is an arrival (the source's output is held, in arrival order), and
 * each that settles without firing only wakes it. Its digit is 8 while it is open and
 * holds items, 6 once it emitted, 3 when it ended under its `min` (a disposal).
 *
 * "Upstream" is computed once per workflow version (`upstreamOf`: transitions, scope
 * entries and cycle re-entries, the collect pruned from its own search, and only its own
 * scope's activities when it is in one). At run time the question "can anything still
 * reach it?" is a lookup over those ids: one of them is started or paused (8, 5), or has
 * an `enter` on its way. After every chain of steps that moved one of them out of the
 * active set, or brought it an arrival, the collect checks.
 *
 * - `max`: as soon as it holds `max` items it emits them and starts a new collection;
 *   each batch runs what follows in a thread of its own, `<collect>#<b>`.
 * - `min`: ending with fewer than `min` items, it discards them and emits nothing: a
 *   disposal (what follows is skipped, and a job with `end:` checks it can still reach it).
 *   `min: 0, max: 1` catches unreachability: it emits `[]` or `[x]`.
 * - Two collects in one cycle that can see each other cannot decide (crossflow's
 *   CircularCollect): the compiler refuses them. Put one in a scope.
 */
import { z } from 'zod';
import { COLLATION_DIGITS, isActiveDigit } from '../../core/collation-digits.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import { neverFails } from '../../graph/kind-spec.js';
import { description } from '../../graph/workflow-document.js';
import type { Json } from '../../store/records.js';
import { SEMAPHORE_FIELD } from '../legs.js';
import type { Step } from '../step.js';
import { childThread, threadOf } from '../threads.js';
import { QUEUED_FIELD, settle, settleOutgoing } from '../transitions.js';
import { defineKind } from './activity-kind.js';
import { openThreads } from './spread.js';
import { checkThreadRegion } from './thread-region.js';

/** A compiled collect. */
export interface CompiledCollect extends CompiledActivityBase {
  kind: 'collect';
  /** Fewest items it emits; fewer when nothing can reach it is a disposal. */
  min: number;
  /** Most items in one emission; past it a new collection starts. */
  max?: number;
}

/** The collect kind. */
export const collect = defineKind({
  kind: 'collect',
  document: z.strictObject({
    kind: z.literal('collect'),
    min: z
      .number()
      .int()
      .min(0)
      .optional()
      .meta({ description: 'Fewest items to emit (default 0); fewer is a disposal.' }),
    max: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'Most items per emission; more start the next collection.' }),
    description: description.optional(),
  }),
  compile: (doc, base): CompiledCollect => ({
    ...base,
    kind: 'collect',
    min: doc.min ?? 0,
    ...(doc.max !== undefined && { max: doc.max }),
  }),
  outcomeProblem: neverFails,
  check({ id, fields }, facts, problems) {
    const { min, max } = fields as { min?: unknown; max?: unknown };
    if (typeof min === 'number' && typeof max === 'number' && min > max) {
      problems.add(['activities', id, 'min'], `min (${min}) is more than max (${max})`);
    }
    if (typeof max === 'number') checkThreadRegion(id, facts, problems, 'collect');
    const mine = facts.upstream(id);
    for (const other of mine) {
      if (other === id || facts.draft.activities.get(other)?.kind !== 'collect') continue;
      if (!facts.upstream(other).has(id)) continue;
      const [first, second] = [id, other].sort();
      problems.add(
        ['activities', first as string],
        `CircularCollectError: collects ${first} and ${second} are in one cycle and each can reach the other, so neither can tell when the other is done; put one of them in a scope (a collect in a scope watches only the scope)`,
      );
    }
  },
  async enter() {
    throw new Error('a collect is not entered: what reaches it arrives');
  },
});

/** The thread a collect holds items and emits in, for something arriving from `from` in `dimension`. */
function collectThread(step: Step, from: string, dimension: string): string {
  const opener = step.wf.threadSource.get(from) ?? (step.wf.regions.has(from) ? from : undefined);
  if (opener === undefined) return dimension;
  return threadOf(dimension, opener)?.parent ?? dimension;
}

function counterRef(step: Step, collect: string, dimension: string, field: string) {
  return { job: step.job.id, activity: collect, dimension, field };
}

/**
 * Held items are records of a name no activity can have, `<collect>@`, so they never
 * stand in for the collect's own record in expressions; the `j`-th one held in
 * `dimension` is in thread `<collect>@#<j>` there.
 */
function holder(collect: string): string {
  return `${collect}@`;
}

function itemThread(dimension: string, collect: string, j: bigint | number): string {
  return childThread(dimension, holder(collect), j);
}

/** A transition into a collect settled in some thread: an arrival when `taken`. */
export async function arrive(
  step: Step,
  activity: { id: string; kind: string },
  dimension: string,
  taken: boolean,
  from: string,
): Promise<void> {
  const collect = activity as CompiledCollect;
  const at = collectThread(step, from, dimension);
  const digit = await step.digit(collect.id);
  if (digit === COLLATION_DIGITS.pending) await step.move(collect.id, COLLATION_DIGITS.started);
  else if (digit !== COLLATION_DIGITS.started) return;
  // A spread's thread reached its collect: seed 001's thread-exit count.
  const opener = step.wf.threadSource.get(from) ?? from;
  if (step.activity(opener).kind === 'spread' && at !== dimension) {
    await step.addCounter(
      { job: step.job.id, activity: opener, dimension: at, field: SEMAPHORE_FIELD },
      1n,
    );
  }
  if (taken) {
    const j = await step.addCounter(counterRef(step, collect.id, at, 'arrivals'), 1n);
    const source = await step.record(from, dimension);
    step.putActivity({
      activity: holder(collect.id),
      dimension: itemThread(at, collect.id, j),
      status: 'PENDING',
      output: source?.output ?? null,
    });
    if (collect.max !== undefined) {
      const emitted = (await step.counter(counterRef(step, collect.id, at, 'emitted'))) ?? 0n;
      if (j - emitted >= BigInt(collect.max)) await emit(step, collect, at, emitted + 1n, j);
    }
  }
  step.checkCollect(collect.id, at);
}

/** Emits held items `first`…`last` (arrival numbers) as one array. */
async function emit(
  step: Step,
  collect: CompiledCollect,
  at: string,
  first: bigint,
  last: bigint,
): Promise<void> {
  const dimensions: string[] = [];
  for (let j = first; j <= last; j++) dimensions.push(itemThread(at, collect.id, j));
  const records = await step.recordsIn(holder(collect.id), dimensions);
  const items = records.map((r) => r.output as Json);
  await step.addCounter(counterRef(step, collect.id, at, 'emitted'), last - first + 1n);
  let thread = at;
  if (collect.max !== undefined) {
    const batch = await step.addCounter(counterRef(step, collect.id, at, 'batches'), 1n);
    thread = childThread(at, collect.id, batch);
    await openThreads(step, { job: step.job.id, a: collect.id, d: at }, 1);
  }
  step.putActivity({ activity: collect.id, dimension: thread, status: 'RUNNING' });
  step.putActivity({
    activity: collect.id,
    dimension: thread,
    status: 'SUCCESS',
    output: items,
    startedAt: step.clock.now(),
    finishedAt: step.clock.now(),
  });
  const next = step.successor(thread);
  next.remember(collect.id, { status: 'SUCCESS', output: items });
  await settleOutgoing(next, collect.id, thread, 'success');
}

/** True while something upstream of a collect can still reach it. */
async function reachable(step: Step, collect: string): Promise<boolean> {
  for (const id of step.wf.upstream.get(collect) ?? []) {
    const digit = await step.digit(id);
    if (digit === COLLATION_DIGITS.started || digit === COLLATION_DIGITS.paused) return true;
    if (!isActiveDigit(digit)) continue;
    const queued = await step.counter({ job: step.job.id, activity: id, field: QUEUED_FIELD });
    if ((queued ?? 0n) > 0n) return true;
  }
  return false;
}

/**
 * Ends every collect a step of this chain woke whose upstream can no longer reach it: it
 * emits what it holds, or — under its `min` — discards it (a disposal). True when one did.
 */
export async function checkCollects(last: Step): Promise<boolean> {
  let ended = false;
  for (let check = last.takeCollectCheck(); check; check = last.takeCollectCheck()) {
    const collect = last.activity(check.collect) as CompiledCollect;
    if ((await last.digit(collect.id)) !== COLLATION_DIGITS.started) continue;
    if (await reachable(last, collect.id)) continue;
    ended = true;
    const step = last.successor(check.dimension);
    const at = check.dimension;
    const arrivals = (await step.counter(counterRef(step, collect.id, at, 'arrivals'))) ?? 0n;
    const emitted = (await step.counter(counterRef(step, collect.id, at, 'emitted'))) ?? 0n;
    const held = arrivals - emitted;
    if (held < BigInt(collect.min)) {
      step.dispose(collect.id, `collect ${collect.id} under its min (${held} of ${collect.min})`);
      await step.move(collect.id, COLLATION_DIGITS.skipped);
      step.putActivity({ activity: collect.id, dimension: at, status: 'IGNORE' });
      for (const t of step.wf.outgoing.get(collect.id) ?? []) {
        await settle(step, t.to, at, false, collect.id);
      }
    } else {
      if (held > 0n || emitted === 0n) await emit(step, collect, at, emitted + 1n, arrivals);
      await step.move(collect.id, COLLATION_DIGITS.completed);
    }
    await step.noteStep('close', collect.id);
  }
  return ended;
}
