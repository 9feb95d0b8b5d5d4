/**
 * Compensation (TaskFlow's revert), as pure rules both engines follow: which finished
 * runs are reverted, in which order, what a revert handler receives, what each revert's
 * result does to its run's task state, and how the flow ends once nothing is left.
 *
 * The order rule: reverts run **one at a time, in reverse order of completion**. Every
 * run that can be reverted carries the completion sequence number it got when it ended
 * (1, 2, 3… per job); the next revert is the unreverted run with the highest number.
 * A run ends only after everything upstream of it ended, so this order is also a reverse
 * topological order; runs on parallel branches are undone in the reverse of the order
 * they actually finished in. The graph engine (`engine/revert.ts`) and the code-first
 * engine (`durable/instance-revert.ts`) both read the next revert off {@link nextRevert}
 * and move task states with {@link revertMove}.
 */
import { type TaskState, transition } from './states.js';

/** A JSON value (the store's `Json`, restated here: core imports nothing above it). */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON-safe error (the store's `ErrorRecord`, restated). */
export interface RevertError {
  name: string;
  message: string;
  code?: string;
  [key: string]: Json | undefined;
}

/** One finished run that may be reverted. */
export interface RevertCandidate<Ref = unknown> {
  /** What the engine needs to find the run again (activity and thread, or work id). */
  ref: Ref;
  /** Its task state: SUCCESS or FAILURE until its revert starts. */
  state: TaskState;
  /** Its completion sequence number (1 = first to finish). */
  seq: number;
}

/** The run to revert next, or undefined when every candidate is reverted (or failed to). */
export function nextRevert<Ref>(
  candidates: readonly RevertCandidate<Ref>[],
): RevertCandidate<Ref> | undefined {
  let best: RevertCandidate<Ref> | undefined;
  for (const c of candidates) {
    if (c.state !== 'SUCCESS' && c.state !== 'FAILURE') continue;
    if (!best || c.seq > best.seq) best = c;
  }
  return best;
}

/** True while one of the candidates is being reverted. */
export function revertRunning(candidates: readonly RevertCandidate[]): boolean {
  return candidates.some((c) => c.state === 'REVERTING');
}

/**
 * The task-state move of a revert step, checked on the task machine (an illegal move
 * throws InvalidStateError): `start` is SUCCESS|FAILURE → REVERTING, `success` is
 * REVERTING → REVERTED, `failure` is REVERTING → REVERT_FAILURE.
 */
export function revertMove(
  from: TaskState,
  step: 'start' | 'success' | 'failure',
  subject?: string,
): TaskState {
  const to: TaskState =
    step === 'start' ? 'REVERTING' : step === 'success' ? 'REVERTED' : 'REVERT_FAILURE';
  transition('task', from, to, subject);
  return to;
}

/** What a revert handler receives: its run's input, output and error. */
export function revertInput(run: {
  input?: Json;
  output?: Json;
  error?: RevertError | null;
}): Json {
  return {
    input: run.input ?? null,
    output: run.output ?? null,
    error: (run.error ?? null) as Json,
  };
}

/** The error a flow ends with when a revert failed: it names the run and the original failure. */
export function revertFailedError(
  name: string,
  error: RevertError | undefined,
  original: RevertError | null,
): RevertError {
  return {
    name: 'RevertFailedError',
    code: 'REVERT_FAILURE',
    message:
      `revert of ${name} failed: ${error?.message ?? 'unknown error'}` +
      (original ? ` (while reverting after: ${original.message})` : ''),
    activity: name,
    ...(original ? { cause: original as unknown as Json } : {}),
  };
}

/** True when a flow error is a failed revert's (the flow then ends FAILURE, not REVERTED). */
export function isRevertFailure(error: RevertError | null | undefined): boolean {
  return error?.code === 'REVERT_FAILURE';
}

/**
 * How a flow that reverted ends once no revert is left: REVERTED when every revert
 * succeeded, FAILURE when one failed (its error names it).
 */
export function revertedFlowState(error: RevertError | null | undefined): 'REVERTED' | 'FAILURE' {
  return isRevertFailure(error) ? 'FAILURE' : 'REVERTED';
}

/**
 * How a view names an activity whose run is being or was reverted (or a scope whose
 * controller is retrying): its digit alone (8, 3, 7) reads Started, Skipped or Errored,
 * so views say what happened instead.
 */
export function revertLabel(status: string | null | undefined): string | undefined {
  if (status === 'REVERTING') return 'Reverting';
  if (status === 'RETRYING') return 'Retrying';
  if (status === 'REVERTED') return 'Reverted';
  if (status === 'REVERT_FAILURE') return 'Revert failed';
  return undefined;
}
