/**
 * Rerunning a graph job from an activity: a new job of the same workflow version and
 * input that keeps what the old one did before that activity and runs the activity, and
 * everything after it, again ("fork from a step").
 *
 * The activity and everything reachable from it (transitions and cycle re-entries) run
 * again; every other activity is kept: its digit, its record and its counters (its
 * semaphore) are copied into the new job. Each activity that runs again and has several
 * incoming transitions gets the settle counts of its kept sources (taken or not, as the
 * old job's outcomes and `when` conditions say), so its join waits only for what runs
 * again. The new job starts with the activity's `enter` message, and both histories
 * say what happened (`rerun` on the old job, `start` with `rerunOf` on the new one). A
 * workflow with `timeout:` gives the new job its own deadline, counted from its start.
 *
 * Refused (ValidationError `RERUN_REFUSED`, nothing written) when a kept activity is not
 * in a final digit (completed, released, skipped) or ran in a later thread (a cycle's, a
 * scope's), and from an activity inside a scope (rerun from the scope: all its members
 * run again).
 */

import { collationDigits, placeValue } from '../core/collation.js';
import { COLLATION_DIGITS, type CollationDigit } from '../core/collation-digits.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import type { ActivityRecord, ActivityWrite, JobRecord, Json } from '../store/records.js';
import type { CounterAdd, StoreTx } from '../store/store.js';
import { COLLATION_FIELD } from './collation-field.js';
import { planExpression } from './expression-plan.js';
import { startEntry } from './history.js';
import { deadlineWrites, scheduleDeadline } from './job-deadline.js';
import type { LoadedWorkflow } from './loaded-workflow.js';
import { ENGINE_STREAM } from './messages.js';
import { TAKEN } from './transitions.js';

/** What to rerun. */
export interface RerunRequest {
  /** The job to rerun (a graph job). */
  source: JobRecord;
  wf: LoadedWorkflow;
  /** The activity to run again, with everything after it. */
  activity: string;
  /** The new job's id. */
  id: string;
  now: number;
}

/** What a rerun did. */
export interface Rerun {
  job: JobRecord;
  /** The activities kept from the old job. */
  kept: string[];
  /** The activities that run again. */
  again: string[];
}

const KEEPABLE: readonly CollationDigit[] = [
  COLLATION_DIGITS.completed,
  COLLATION_DIGITS.released,
  COLLATION_DIGITS.skipped,
];

const refused = (message: string, activity: string) =>
  new ValidationError(message, activity, { code: 'RERUN_REFUSED' });

/**
 * The activity and everything reachable from it, through transitions, cycle re-entries
 * and a scope's members (a scope that runs again runs all of its members again).
 */
export function downstreamOf(wf: LoadedWorkflow, activity: string): Set<string> {
  const seen = new Set<string>([activity]);
  const queue = [activity];
  while (queue.length > 0) {
    const at = queue.shift() as string;
    const next = (wf.outgoing.get(at) ?? []).map((t) => t.to);
    const compiled = wf.compiled.activities[at] as { ancestor?: string; members?: string[] };
    if (compiled?.ancestor !== undefined) next.push(compiled.ancestor);
    if (Array.isArray(compiled?.members)) next.push(...compiled.members);
    for (const to of next) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return seen;
}

function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

/** Creates the new job in `tx` (the caller's transaction). */
export async function rerunGraphJob(tx: StoreTx, request: RerunRequest): Promise<Rerun> {
  const { source, wf, activity, id, now } = request;
  const { compiled, layout } = wf;
  if (!compiled.activities[activity]) throw new NotFoundError('activity', activity);
  if (compiled.activities[activity]?.scope !== undefined) {
    throw refused(
      `cannot rerun ${source.id} from ${activity}: it is inside scope ${compiled.activities[activity]?.scope}; rerun from the scope`,
      activity,
    );
  }
  const again = downstreamOf(wf, activity);
  // The old job's row is held until the new job commits: no step of it interleaves.
  await tx.lockJob(source.id);
  const key = (await tx.getCounter({ job: source.id, field: COLLATION_FIELD })) ?? 0n;
  const digits = collationDigits(layout, key);
  const records = await tx.listActivities(source.id);
  const kept = compiled.order.filter((a) => !again.has(a));
  for (const a of kept) {
    const digit = digits[layout.positions.get(a) as number] as CollationDigit;
    if (!KEEPABLE.includes(digit)) {
      throw refused(
        `cannot rerun ${source.id} from ${activity}: ${a}, which it keeps, has not finished (digit ${digit})`,
        activity,
      );
    }
    if (records.some((r) => r.activity === a && r.dimension !== '')) {
      throw refused(
        `cannot rerun ${source.id} from ${activity}: ${a}, which it keeps, ran in a cycle's later thread`,
        activity,
      );
    }
  }
  const keptRecords = new Map<string, ActivityRecord>();
  for (const r of records)
    if (r.dimension === '' && !again.has(r.activity)) keptRecords.set(r.activity, r);

  // The new key: the kept activities' digits, every other activity pending.
  let newKey = 0n;
  compiled.order.forEach((a, position) => {
    const digit = again.has(a) ? COLLATION_DIGITS.pending : (digits[position] as number);
    newKey += BigInt(digit) * placeValue(layout, position);
  });

  // Settle counts from kept sources into each activity that runs again.
  const data: Record<string, Json> = { input: source.input };
  for (const [a, r] of keptRecords) {
    data[a] = { output: r.output, error: r.error as Json, status: r.status };
  }
  const counters: CounterAdd[] = [];
  const enters = [activity];
  for (const target of again) {
    const incoming = wf.incoming.get(target) ?? [];
    if (incoming.length <= 1) continue;
    let settled = 0n;
    let takenCount = 0;
    for (const t of incoming) {
      if (again.has(t.from)) continue;
      const from = keptRecords.get(t.from);
      const digit = digits[layout.positions.get(t.from) as number];
      let taken = false;
      if (from && digit !== COLLATION_DIGITS.skipped) {
        const timedOut = from.error?.code === 'TIMEOUT' || from.error?.name === 'TimeoutError';
        const outcome = from.status === 'SUCCESS' ? 'success' : timedOut ? 'timeout' : 'error';
        taken = t.on === outcome;
        if (taken && t.when !== undefined) {
          taken = truthy(
            await planExpression(t.when, data, `transition ${t.from} -> ${t.to} (when)`, now),
          );
        }
      }
      settled += taken ? TAKEN + 1n : 1n;
      if (taken) takenCount++;
    }
    if (settled > 0n) {
      counters.push({
        ref: { job: id, activity: target, dimension: '', field: 'settled' },
        delta: settled,
      });
    }
    // A first-to-arrive join a kept source already entered runs again at once.
    if (target !== activity && compiled.activities[target]?.join === 'any' && takenCount > 0) {
      enters.push(target);
    }
  }
  // The kept activities' own counters (their semaphores), as they were.
  for (const [name, value] of await tx.listCounters(source.id)) {
    const parts = name.split('/');
    if (parts.length < 3) continue;
    const a = parts[0] as string;
    const dimension = parts.slice(1, -1).join('/');
    if (again.has(a) || dimension !== '' || !compiled.activities[a]) continue;
    counters.push({
      ref: { job: id, activity: a, dimension: '', field: parts.at(-1) as string },
      delta: value,
    });
  }

  const created = await tx.createJob({
    id,
    workflow: compiled.workflow,
    version: compiled.version,
    model: 'graph',
    state: 'RUNNING',
    input: source.input,
    context: { rerun: { job: source.id, activity } },
    parentId: null,
    parentActivity: null,
    createdAt: now,
  });
  if (!created.created) throw refused(`job ${id} exists already`, activity);
  await tx.addCounter({ job: id, field: COLLATION_FIELD }, 0n, newKey);
  if (counters.length > 0) await tx.addCounters(counters);
  const writes: ActivityWrite[] = [...keptRecords.values()].map((r) => ({
    job: id,
    activity: r.activity,
    dimension: '',
    status: r.status,
    input: r.input,
    output: r.output,
    error: r.error,
    attempt: r.attempt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  }));
  if (writes.length > 0) await tx.putActivities(writes);
  await tx.append(
    enters.map((a) => ({
      stream: ENGINE_STREAM,
      job: id,
      payload: { k: 'enter', job: id, a, d: '' },
    })),
  );
  // A rerun is a new job: the workflow's timeout counts from its start.
  if (compiled.timeoutMs !== undefined) {
    await scheduleDeadline(tx, deadlineWrites(id, ENGINE_STREAM, compiled.timeoutMs, now));
  }
  const start = startEntry(created.job, wf.renderKey(newKey), now, compiled.timeoutMs);
  await tx.appendHistory([
    {
      ...start,
      change: { ...(start.change as Record<string, Json>), rerunOf: source.id, from: activity },
      worker: null,
    },
    {
      job: source.id,
      kind: 'rerun',
      activity,
      change: { rerun: id },
      at: now,
      worker: null,
    },
  ]);
  return { job: created.job, kept, again: compiled.order.filter((a) => again.has(a)) };
}
