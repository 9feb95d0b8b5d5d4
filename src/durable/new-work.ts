/**
 * A work met for the first time during a decision: its {@link Status} (kept by the
 * session so later runs in the same decision see it) and the {@link Decision} that tells
 * the engine to record it. Values and sent events complete at once, at the current
 * execution index; tasks, child workflows and waits start `scheduled`.
 */
import type { RetrySettings } from '../core/retry-policy.js';
import type { Json } from '../store/records.js';
import type { Decision } from './decisions.js';
import type { Status } from './instance.js';
import type { WorkRequest } from './session-messages.js';
import type { ValueSource } from './value-source.js';

/** Where and under which ids a new work is recorded. */
export interface NewWorkContext {
  branchKey: number;
  /** Execution index of the running branch. */
  index: number;
  hash: string;
  uuid: string;
  values: ValueSource;
}

function freshValue(kind: string, values: ValueSource): Json {
  if (kind === 'date') return values.now();
  if (kind === 'random') return values.random();
  if (kind === 'version') return true;
  return values.uuid();
}

/** The status and the decision for a new work. */
export function newWork(
  work: WorkRequest,
  context: NewWorkContext,
): { status: Status; decision: Decision } {
  const base = {
    branch_key: context.branchKey,
    position: work.position,
    hash: context.hash,
    uuid: context.uuid,
    name: work.name,
    input: work.input,
    sync: work.sync,
  };
  const status: Status = { ...base, status: 'scheduled', type: work.type };
  const done = (output: Json): Status => ({
    ...status,
    status: 'completed',
    completion_index: context.index,
    output,
  });
  switch (work.type) {
    case 'value': {
      const value = freshValue(work.name, context.values);
      const decision: Decision = { type: 'recordValue', ...base, index: context.index, value };
      return { status: done(value), decision };
    }
    case 'event': {
      const input = (work.input ?? {}) as { to?: string | null; data?: Json };
      const decision: Decision = {
        type: 'sendEvent',
        ...base,
        index: context.index,
        to: input.to ?? null,
        event_name: work.name,
        event_input: input.data ?? null,
      };
      return { status: done(null), decision };
    }
    case 'task': {
      const clocks = {
        ...(work.timeoutMs !== undefined && { timeout_ms: work.timeoutMs }),
        ...(work.scheduleToCloseMs !== undefined && {
          schedule_to_close_ms: work.scheduleToCloseMs,
        }),
        ...(work.heartbeatTimeoutMs !== undefined && {
          heartbeat_timeout_ms: work.heartbeatTimeoutMs,
        }),
        ...(work.retry !== undefined && { retry: work.retry as RetrySettings }),
      };
      const revert = work.revert !== undefined ? { revert: work.revert } : {};
      return {
        status: { ...status, ...revert },
        decision: { type: 'scheduleTask', ...base, ...clocks, ...revert },
      };
    }
    case 'workflow':
      return {
        status,
        decision: { type: 'scheduleFlow', ...base, ...(work.queue && { queue: work.queue }) },
      };
    case 'wait': {
      const input = (work.input ?? {}) as { event?: string; durationMs?: number; until?: number };
      const decision: Decision = {
        type: 'scheduleWait',
        ...base,
        ...(input.event !== undefined ? { event: input.event } : {}),
        ...(input.durationMs !== undefined ? { duration_ms: input.durationMs } : {}),
        ...(input.until !== undefined ? { until: input.until } : {}),
      };
      return { status, decision };
    }
  }
}
