/**
 * Receiving actions (the seed's "When Receiving actions from Agents"): each action is
 * pushed into the buffer with its reception time and a reception sequence number; an
 * event also releases every running wait for it. Duplicate reports of the same work
 * (a message delivered twice) are ignored, so a work completes once.
 */
import type { Json } from '../store/records.js';
import type { Action } from './actions.js';
import type { Effect } from './effects.js';
import {
  type BufferedAction,
  type Instance,
  type Status,
  statusIndexOf,
  type Wait,
} from './instance.js';
import { copyInstance } from './instance-life.js';

/** A new instance and the effects the runtime must perform. */
export interface EngineResult {
  instance: Instance;
  effects: Effect[];
}

/** Pushes an action into a copied instance's buffer. */
export function pushBuffer(
  instance: Instance,
  type: BufferedAction['type'],
  timestamp: number,
  data: BufferedAction['data'],
): void {
  instance.buffer.push({ timestamp, type, data, seq: instance.buffer_seq });
  instance.buffer_seq += 1;
}

function statusIndex(instance: Instance, uuid: string): number {
  return statusIndexOf(instance.statuses, uuid);
}

function completionBuffered(instance: Instance, uuid: string): boolean {
  return instance.buffer.some(
    (a) => (a.type === 'onSuccess' || a.type === 'onFailure') && a.data?.uuid === uuid,
  );
}

/** Ends a running wait in a copied instance: an onSuccess at `timestamp`, timer cancelled. */
export function releaseWait(
  instance: Instance,
  wait: Wait,
  timestamp: number,
  output: Json,
  effects: Effect[],
): void {
  instance.waits = instance.waits.filter((w) => w.uuid !== wait.uuid);
  pushBuffer(instance, 'onSuccess', timestamp, { uuid: wait.uuid, output });
  effects.push({
    type: 'cancelWait',
    uuid: wait.uuid,
    hash: wait.hash,
    timed: wait.timestamp !== null,
  });
}

function isOpen(status: Status | undefined): status is Status {
  return status !== undefined && status.status === 'scheduled';
}

/**
 * Records an action. Returns the new instance and effects; an action for an instance
 * that has ended, or a repeated report of a work, changes nothing. Call
 * {@link tryTriggerDecision} afterwards.
 */
export function receiveAction(instance: Instance, action: Action, now: number): EngineResult {
  if (instance.state !== 'running') return { instance, effects: [] };
  const next = copyInstance(instance, now);
  const effects: Effect[] = [];
  switch (action.type) {
    case 'onEvent': {
      const data = action.data ?? null;
      pushBuffer(next, 'onEvent', now, { event_name: action.name, event_input: data });
      for (const wait of instance.waits) {
        if (wait.event === action.name) releaseWait(next, wait, now, data, effects);
      }
      break;
    }
    case 'onStart': {
      const i = statusIndex(next, action.uuid);
      const status = next.statuses[i];
      if (!isOpen(status) || status.started || status.type === 'wait') {
        return { instance, effects: [] };
      }
      next.statuses[i] = { ...status, started: true, started_at: now };
      pushBuffer(next, 'onStart', now, { uuid: action.uuid });
      break;
    }
    case 'onSuccess':
    case 'onFailure': {
      const status = next.statuses[statusIndex(next, action.uuid)];
      if (!isOpen(status) || status.type === 'wait' || completionBuffered(next, action.uuid)) {
        return { instance, effects: [] };
      }
      const data =
        action.type === 'onSuccess'
          ? { uuid: action.uuid, output: action.output }
          : { uuid: action.uuid, error: action.error };
      pushBuffer(next, action.type, now, data);
      break;
    }
    case 'onTimeout': {
      if (!isOpen(next.statuses[statusIndex(next, action.uuid)])) return { instance, effects: [] };
      pushBuffer(next, 'onTimeout', now, { uuid: action.uuid });
      break;
    }
    case 'waitElapsed': {
      const wait = next.waits.find((w) => w.uuid === action.uuid);
      if (!wait || wait.timestamp === null) return { instance, effects: [] };
      // The wait ended at its own end time: that is its place among buffered actions.
      next.waits = next.waits.filter((w) => w.uuid !== wait.uuid);
      pushBuffer(next, 'onSuccess', Math.min(wait.timestamp, now), {
        uuid: wait.uuid,
        output: null,
      });
      break;
    }
  }
  return { instance: next, effects };
}
