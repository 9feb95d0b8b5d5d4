/**
 * The messages the code-first runtime exchanges over store streams. Actions and control
 * requests for instances go to {@link DURABLE_STREAM}; a decision whose workflow code
 * this process does not have goes to the workflow's own decision stream, where a worker
 * (or an HTTP agent) with that code claims it.
 */
import type { DeadlineMessage } from '../engine/job-deadline.js';
import type { Action } from './actions.js';

/** The stream of instance actions and control requests. */
export const DURABLE_STREAM = 'durable';

/** The stream of decisions of one workflow. */
export function decisionStream(workflow: string): string {
  return `decide:${workflow}`;
}

/** Something happened to an instance (event, work started/ended, wait elapsed). */
export interface ActionMessage {
  k: 'action';
  job: string;
  action: Action;
}

/** A client asked to pause, resume or terminate an instance. */
export interface ControlMessage {
  k: 'control';
  job: string;
  op: 'pause' | 'resume' | 'terminate';
}

/** Run the decision in flight (its uuid) of an instance. */
export interface DecideMessage {
  k: 'decide';
  job: string;
  uuid: string;
}

/** Any message of the code-first runtime (a job's deadline: `engine/job-deadline.ts`). */
export type DurableMessage = ActionMessage | ControlMessage | DecideMessage | DeadlineMessage;
