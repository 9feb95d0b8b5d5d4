/**
 * The rule of a job's compare-and-set state move, the same on every backend: the flow
 * machine (core/states) decides whether the move writes — an illegal one throws
 * `InvalidStateError`, `same` (from === to) and `ignored` (a suspend request on an idle job)
 * write nothing — and a move into a final state stamps the finish time and, after commit,
 * sends the job's notice. The backends run the conditional UPDATE.
 */
import { type FlowState, isFinalFlowState, transition } from '../core/states.js';
import { noticeKey } from './notices.js';

/** What a move that writes does besides setting the state. */
export interface JobMove {
  /** The move ends the job: `finishedAt` is stamped (unless the patch gives it). */
  final: boolean;
  /** The notice to send after commit, for a final move. */
  notice?: string;
}

/** Checks a move of job `id`; undefined when it writes nothing. */
export function jobMove(id: string, from: FlowState, to: FlowState): JobMove | undefined {
  if (transition('flow', from, to, id) !== 'move') return undefined;
  if (!isFinalFlowState(to)) return { final: false };
  return { final: true, notice: noticeKey({ kind: 'job', id }) };
}
