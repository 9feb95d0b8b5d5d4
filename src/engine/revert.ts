/**
 * Graph compensation (TaskFlow's revert), planned on the step like any kind's work. The
 * rules — which runs, which order, which task states — are core/revert-order's; this
 * module applies them to a graph job:
 *
 * - A task with a `revert:` handler gets a completion sequence number when it ends (a job counter `revert-seq`, copied to the
 *   activity's thread as `done`).
 * - When the job would end FAILURE, {@link startNextRevert} starts the newest unreverted
 *   run's revert: its digit moves 6|7 → 8 (`revert`), its record SUCCESS|FAILURE →
 *   REVERTING, its revert semaphore passes Leg1, and a task message with `revert: true`
 *   goes to the revert handler's stream with `{ input, output, error }` of the run.
 * - {@link respondRevert} is the revert's Leg2: retried by the task's retry policy,
 *   closed once (the revert semaphore refuses a second result); success moves 8 → 3
 *   (REVERTED), failure 8 → 7 (REVERT_FAILURE) and names the run in the job's error.
 *   Either way the key has no active digit again, so the engine asks for the next
 *   revert, and ends the job (REVERTED or FAILURE) when none is left.
 */
import { COLLATION_DIGITS } from '../core/collation-digits.js';
import { InvalidStateError } from '../core/errors.js';
import { REVERT_ALL_CODE } from '../core/retry-controller.js';
import { decideRetry } from '../core/retry-policy.js';
import {
  isRevertFailure,
  nextRevert,
  type RevertCandidate,
  revertFailedError,
  revertInput,
  revertMove,
} from '../core/revert-order.js';
import type { TaskState } from '../core/states.js';
import type { ActivityRecord, ErrorRecord, Json } from '../store/records.js';
import type { CompiledTask } from './kinds/task.js';
import { taskRetryPolicy } from './kinds/task.js';
import { passLeg1, passLeg2, REVERT_SEMAPHORE_FIELD } from './legs.js';
import {
  type ActivityAddress,
  type TaskMessage,
  type TaskResponse,
  taskStream,
} from './messages.js';
import type { Step } from './step.js';

/** The job counter numbering completions, and each thread's copy of its number. */
const SEQ_FIELD = 'revert-seq';
const DONE_FIELD = 'done';

/** The revert handler of an activity, when it has one. */
export function revertHandlerOf(step: Step, activity: string): string | undefined {
  const compiled = step.activity(activity);
  return compiled.kind === 'task' ? compiled.revert : undefined;
}

/**
 * True when this activity's runs may be reverted (so their completion order matters): it
 * has a revert handler. (Whether one runs is decided later: the job's `on_failure`, a
 * scope's retry controller, or a REVERT_ALL.)
 */
export function isRevertible(step: Step, activity: string): boolean {
  return revertHandlerOf(step, activity) !== undefined;
}

/** True while a scope around `activity` is running (reverting a failed run of it, say). */
async function insideLiveScope(step: Step, activity: string): Promise<boolean> {
  for (let s = step.wf.scopeOf.get(activity); s !== undefined; s = step.wf.scopeOf.get(s)) {
    if ((await step.digit(s)) === COLLATION_DIGITS.started) return true;
  }
  return false;
}

/** Gives a run that just ended its completion sequence number (when it may be reverted). */
export async function noteCompletion(step: Step, address: ActivityAddress): Promise<void> {
  if (!isRevertible(step, address.a)) return;
  const seq = await step.addCounter({ job: step.job.id, field: SEQ_FIELD }, 1n, 0n);
  const ref = { job: step.job.id, activity: address.a, dimension: address.d, field: DONE_FIELD };
  const held = (await step.counter(ref)) ?? 0n;
  await step.addCounter(ref, seq - held, 0n);
}

/** The job counter set once the job itself has begun to revert. */
const REVERTING_FIELD = 'reverting';

/**
 * True when a job ending with `error` reverts: its `on_failure` says so, a retry
 * controller decided REVERT_ALL (whatever `on_failure` says), or it already began to
 * revert (a revert that failed meanwhile changed its error, not its course).
 */
export async function revertsJob(step: Step, error: ErrorRecord): Promise<boolean> {
  if (step.wf.compiled.onFailure === 'revert' || error.code === REVERT_ALL_CODE) return true;
  return (await step.counter({ job: step.job.id, field: REVERTING_FIELD })) !== undefined;
}

/** Marks the job as reverting: once it ends, it reverts whatever its error says. */
export async function markJobReverting(step: Step): Promise<void> {
  const ref = { job: step.job.id, field: REVERTING_FIELD };
  if ((await step.counter(ref)) === undefined) await step.addCounter(ref, 1n, 0n);
}

/** Starts the job's next revert (see {@link startNextRevert}), marking the job as reverting. */
export async function startJobRevert(step: Step): Promise<boolean> {
  if (!(await startNextRevert(step))) return false;
  await markJobReverting(step);
  return true;
}

/** The runs that may be reverted, with their states and completion numbers. */
async function candidates(step: Step): Promise<RevertCandidate<ActivityRecord>[]> {
  const seqs = await step.countersNamed(DONE_FIELD);
  const out: RevertCandidate<ActivityRecord>[] = [];
  for (const record of await step.allRecords()) {
    if (!(record.activity in step.wf.compiled.activities)) continue;
    if (!revertHandlerOf(step, record.activity)) continue;
    const seq = seqs.get(`${record.activity}\u0000${record.dimension}`);
    if (seq === undefined) continue;
    out.push({ ref: record, state: record.status as TaskState, seq: Number(seq) });
  }
  return out;
}

function sendRevert(
  step: Step,
  address: ActivityAddress,
  activity: CompiledTask,
  input: Json,
  attempt: number,
  availableAt?: number,
): void {
  const message: TaskMessage = {
    ...address,
    task: activity.revert as string,
    input,
    attempt,
    revert: true,
    ...(activity.timeoutMs !== undefined ? { timeoutMs: activity.timeoutMs } : {}),
    ...(activity.heartbeatTimeoutMs !== undefined
      ? { heartbeatTimeoutMs: activity.heartbeatTimeoutMs }
      : {}),
  };
  step.send({
    stream: taskStream(message.task),
    job: address.job,
    payload: message as unknown as Json,
    ...(availableAt !== undefined ? { availableAt } : {}),
  });
}

/**
 * Starts the next revert of a job that would end with an error, in a step of its own
 * (a successor of `step`, with its own history line). False when nothing is left to
 * revert: the job may end.
 */
export async function startNextRevert(
  step: Step,
  only?: (record: ActivityRecord) => boolean,
): Promise<boolean> {
  const all = await candidates(step);
  const next = nextRevert(only ? all.filter((c) => only(c.ref)) : all);
  if (!next) return false;
  const record = next.ref;
  const address = { job: step.job.id, a: record.activity, d: record.dimension };
  const own = step.successor(record.dimension);
  const status = revertMove(next.state, 'start', `${record.activity}[${record.dimension}]`);
  if (!(await passLeg1(own, address, REVERT_SEMAPHORE_FIELD))) {
    throw new InvalidStateError(
      `revert semaphore ${record.activity}[${record.dimension}]`,
      next.state,
      status,
      'its revert already started',
    );
  }
  // A thread of a re-entered activity may find its digit already moved by the revert of
  // a later thread (3 or 7): 8 is where a running revert stands either way.
  if ((await own.digit(record.activity)) !== COLLATION_DIGITS.started) {
    await own.move(record.activity, COLLATION_DIGITS.started);
  }
  own.putActivity({ activity: record.activity, dimension: record.dimension, status, attempt: 1 });
  const activity = own.activity(record.activity) as CompiledTask;
  sendRevert(own, address, activity, revertInput(record), 1);
  await own.noteStep('revert', record.activity);
  return true;
}

/** Leg2 of a revert: one worker response. False when it is stale or Leg2 already closed. */
export async function respondRevert(step: Step, response: TaskResponse): Promise<boolean> {
  const address = { job: response.job, a: response.a, d: response.d };
  const current = await step.record(response.a, response.d);
  if (current?.status !== 'REVERTING' || current.attempt !== response.attempt) return false;
  const activity = step.activity(response.a) as CompiledTask;
  // A revert is retried by its task's policy (no schedule-to-close: undoing has no deadline).
  const decision =
    response.status === 'error'
      ? decideRetry(
          taskRetryPolicy(activity),
          { attempt: response.attempt, error: response.error, now: step.clock.now() },
          step.random,
        )
      : undefined;
  const exit = response.status === 'pending' || decision?.retry ? 'pending' : 'final';
  if ((await passLeg2(step, address, exit, REVERT_SEMAPHORE_FIELD)) === undefined) return false;
  if (response.status === 'pending') return true;
  const where = `${response.a}[${response.d}]`;
  if (decision?.retry) {
    step.putActivity({ activity: response.a, dimension: response.d, attempt: decision.attempt });
    step.noteRetry(response.a, decision.delayMs);
    sendRevert(step, address, activity, revertInput(current), decision.attempt, decision.at);
    return true;
  }
  if (response.status === 'success') {
    step.putActivity({
      activity: response.a,
      dimension: response.d,
      status: revertMove('REVERTING', 'success', where),
      finishedAt: step.clock.now(),
    });
    await step.move(response.a, COLLATION_DIGITS.skipped);
    return true;
  }
  const error: ErrorRecord = response.error ?? { name: 'Error', message: 'revert failed' };
  step.putActivity({
    activity: response.a,
    dimension: response.d,
    status: revertMove('REVERTING', 'failure', where),
    error,
    finishedAt: step.clock.now(),
  });
  await step.move(response.a, COLLATION_DIGITS.errored);
  // A scope reverting its failed run fails itself with this error; the job's own reverts
  // name the failed one on the job.
  if (!isRevertFailure(step.job.error) && !(await insideLiveScope(step, response.a))) {
    step.recordJobError(revertFailedError(response.a, error, step.job.error) as ErrorRecord);
  }
  return true;
}
