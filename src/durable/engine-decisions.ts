/**
 * Receiving decisions (the seed's "When Receiving decisions from Agents"): record each
 * scheduled work in `statuses` and emit its effect, start waits (or release at once a
 * wait already over: by an event received during the decision, or by its end time),
 * store properties, outputs and branch ends. Then the decision is over; the instance
 * completes when every known branch has reached its end and nothing is buffered.
 */
import { ModifiedDeciderError } from '../core/errors.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type {
  Decision,
  DecisionOutcome,
  ModifiedDecision,
  ScheduleWaitDecision,
  WorkDecision,
} from './decisions.js';
import type { Effect } from './effects.js';
import { type EngineResult, pushBuffer } from './engine-actions.js';
import type { Instance, Status, WorkType } from './instance.js';
import { copyInstance, moveLife } from './instance-life.js';
import { startReverting } from './instance-revert.js';

function newStatus(d: WorkDecision, type: WorkType): Status {
  return {
    branch_key: d.branch_key,
    position: d.position,
    hash: d.hash,
    status: 'scheduled',
    uuid: d.uuid,
    type,
    name: d.name,
    input: d.input,
    sync: d.sync,
  };
}

/** The first buffered event (in time) named `event`. */
function firstBufferedEvent(instance: Instance, event: string) {
  let best: Instance['buffer'][number] | undefined;
  for (const a of instance.buffer) {
    if (a.type !== 'onEvent' || a.data?.event_name !== event) continue;
    if (
      !best ||
      a.timestamp < best.timestamp ||
      (a.timestamp === best.timestamp && a.seq < best.seq)
    ) {
      best = a;
    }
  }
  return best;
}

function scheduleWait(
  instance: Instance,
  d: ScheduleWaitDecision,
  now: number,
  effects: Effect[],
): void {
  instance.statuses.push(newStatus(d, 'wait'));
  const triggeredAt = instance.decision_triggered_at ?? now;
  pushBuffer(instance, 'onStart', triggeredAt, { uuid: d.uuid });
  const end =
    d.until !== undefined
      ? d.until
      : d.duration_ms !== undefined
        ? triggeredAt + d.duration_ms
        : null;
  const byEvent = d.event === undefined ? undefined : firstBufferedEvent(instance, d.event);
  const byTime = end !== null && end <= now ? end : undefined;
  if (byEvent || byTime !== undefined) {
    const useEvent = byEvent !== undefined && (byTime === undefined || byEvent.timestamp <= byTime);
    const at = useEvent && byEvent ? byEvent.timestamp : (byTime as number);
    const output: Json = useEvent ? (byEvent?.data?.event_input ?? null) : null;
    pushBuffer(instance, 'onSuccess', Math.max(triggeredAt, at), { uuid: d.uuid, output });
    return;
  }
  instance.waits.push({
    hash: d.hash,
    timestamp: end,
    uuid: d.uuid,
    ...(d.event !== undefined ? { event: d.event } : {}),
  });
  effects.push({
    type: 'startWait',
    uuid: d.uuid,
    hash: d.hash,
    ...(end !== null ? { at: end } : {}),
    ...(d.event !== undefined ? { event: d.event } : {}),
  });
}

function setBranch(
  instance: Instance,
  key: number,
  patch: { output?: Json; ended?: boolean },
): void {
  const branch = instance.branches[key];
  if (branch) instance.branches[key] = { ...branch, ...patch };
}

function apply(
  instance: Instance,
  d: Decision,
  now: number,
  effects: Effect[],
): ErrorRecord | null {
  switch (d.type) {
    case 'scheduleTask': {
      const clocks = {
        ...(d.timeout_ms !== undefined && { timeout_ms: d.timeout_ms }),
        ...(d.heartbeat_timeout_ms !== undefined && {
          heartbeat_timeout_ms: d.heartbeat_timeout_ms,
        }),
        ...(d.schedule_to_close_ms !== undefined && { deadline: now + d.schedule_to_close_ms }),
      };
      instance.statuses.push({
        ...newStatus(d, 'task'),
        ...clocks,
        ...(d.retry !== undefined ? { retry: d.retry } : {}),
        ...(d.revert !== undefined ? { revert: d.revert } : {}),
      });
      effects.push({
        type: 'scheduleTask',
        uuid: d.uuid,
        hash: d.hash,
        name: d.name,
        input: d.input,
        ...(d.timeout_ms !== undefined ? { timeoutMs: d.timeout_ms } : {}),
        clocks,
        branchKey: d.branch_key,
        position: d.position,
        sync: d.sync,
      });
      return null;
    }
    case 'scheduleFlow':
      instance.statuses.push(newStatus(d, 'workflow'));
      effects.push({
        type: 'startChild',
        uuid: d.uuid,
        hash: d.hash,
        workflow: d.name,
        input: Array.isArray(d.input) ? d.input : [d.input],
        branchKey: d.branch_key,
        position: d.position,
        sync: d.sync,
        ...(d.queue && { queue: d.queue }),
      });
      return null;
    case 'scheduleWait':
      scheduleWait(instance, d, now, effects);
      return null;
    case 'recordValue':
    case 'sendEvent': {
      const type = d.type === 'recordValue' ? 'value' : 'event';
      const output = d.type === 'recordValue' ? d.value : null;
      instance.statuses.push({
        ...newStatus(d, type),
        status: 'completed',
        completion_index: d.index,
        output,
      });
      if (d.type === 'sendEvent') {
        const to = d.to ?? instance.id;
        effects.push({ type: 'sendEvent', instance: to, name: d.event_name, data: d.event_input });
      }
      return null;
    }
    case 'updateProperties':
      instance.properties.push({ key: d.key, values: d.values });
      return null;
    case 'setOutput':
      setBranch(instance, d.branch_key, { output: d.output });
      return null;
    case 'endBranch':
      setBranch(instance, d.branch_key, { ended: true });
      return null;
    case 'failBranch':
      return d.error;
    case 'modified':
      return null;
  }
}

function endWaits(instance: Instance, effects: Effect[]): void {
  for (const w of instance.waits) {
    effects.push({ type: 'cancelWait', uuid: w.uuid, hash: w.hash, timed: w.timestamp !== null });
  }
  instance.waits = [];
}

/** Times the works this decision recorded (from index `from` on): scheduled now, and values and sent events finished now. */
function stampScheduled(instance: Instance, from: number, now: number): void {
  for (let i = from; i < instance.statuses.length; i++) {
    const status = instance.statuses[i] as Status;
    instance.statuses[i] = {
      ...status,
      scheduled_at: now,
      ...(status.status === 'scheduled' ? {} : { finished_at: now }),
    };
  }
}

/** The typed error for a `modified` decision. */
export function modifiedError(d: ModifiedDecision): ModifiedDeciderError {
  return new ModifiedDeciderError(d.branch_key, d.position, d.expected_hash, d.actual_hash);
}

/**
 * Applies the decisions of the ongoing decision. Decisions under another uuid (stale,
 * or for an instance that has ended) are ignored. A `modified` decision records nothing
 * else: the instance moves to `modified`, keeping the unrun executions so that
 * {@link resumeInstance} retries them with fixed code. Call {@link tryTriggerDecision}
 * afterwards.
 */
export function applyDecisions(
  instance: Instance,
  outcome: DecisionOutcome,
  now: number,
): EngineResult {
  if (
    instance.state !== 'running' ||
    !instance.decision_ongoing ||
    outcome.uuid !== instance.decision_uuid
  ) {
    return { instance, effects: [] };
  }
  const next = copyInstance(instance, now);
  const effects: Effect[] = [];
  next.decision_ongoing = false;
  next.decision_uuid = null;
  const modified = outcome.decisions.find((d): d is ModifiedDecision => d.type === 'modified');
  if (modified) {
    const error = modifiedError(modified).toJSON() as ErrorRecord;
    moveLife(next, 'modified');
    next.error = error;
    effects.push({ type: 'modified', error });
    return { instance: next, effects };
  }
  let failure: ErrorRecord | null = null;
  const known = next.statuses.length;
  for (const d of outcome.decisions) {
    const error = apply(next, d, now, effects);
    if (error && !failure) failure = error;
  }
  stampScheduled(next, known, now);
  next.decision_current_index = next.executions.length;
  if (failure) {
    endWaits(next, effects);
    // A workflow that reverts on failure undoes its finished tasks first (instance-revert).
    if (!startReverting(next, failure, effects)) {
      moveLife(next, 'failed');
      next.error = failure;
      effects.push({ type: 'failed', error: failure });
    }
  } else if (next.buffer.length === 0 && next.branches.every((b) => b.ended)) {
    moveLife(next, 'completed');
    next.output = next.branches[0]?.output ?? null;
    endWaits(next, effects);
    effects.push({ type: 'finished', output: next.output });
  }
  return { instance: next, effects };
}
