/**
 * A scope's retry controller at run time (`retry:` on a scope; the decisions are
 * core/retry-controller's, TaskFlow's). The scope's record carries the controller:
 *
 * - its `input` holds `{ retry: { value, attempt, values } }` — what `retry.value` and
 *   `retry.attempt` read in the scope's expressions;
 * - its `status` follows the retry machine: RUNNING while a run of the scope goes on
 *   (the controller has given its value: TaskFlow's retry is in SUCCESS then, and the
 *   moves below are checked from there), RETRYING while the failed run's work is reverted
 *   before the next run, REVERTING while it is reverted before the scope fails, then
 *   REVERTED (or REVERT_FAILURE when a revert failed), SUCCESS when a run succeeds.
 *
 * When a run fails (a member ended errored with nothing handling it), the controller
 * decides: RETRY reverts the run's finished members that have a revert — only those of
 * this run's thread, newest first, one at a time (`revert.ts`) — then moves every member
 * back to pending and runs the scope again in a new thread with the next value; REVERT
 * reverts the same way and fails the scope with the run's error (its `on: error`
 * transition, the enclosing scope's controller or the job's `on_failure` decide next);
 * REVERT_ALL does too, and its error carries code REVERT_ALL, so every enclosing
 * controller decides REVERT_ALL and the job reverts whatever its `on_failure`.
 */
import { COLLATION_DIGITS } from '../core/collation-digits.js';
import {
  decideRetry,
  REVERT_ALL_CODE,
  type RetryController,
  type RetryValue,
  retryValue,
} from '../core/retry-controller.js';
import { revertFailedError } from '../core/revert-order.js';
import { type RetryState, transition } from '../core/states.js';
import type { ActivityRecord, ErrorRecord, Json } from '../store/records.js';
import { finishActivity } from './finish-activity.js';
import type { ActivityAddress } from './messages.js';
import { markJobReverting, startNextRevert } from './revert.js';
import type { Step } from './step.js';
import { childThread } from './threads.js';
import { enter } from './transitions.js';

/** What the scope's record keeps about its controller. */
export interface RetryRun {
  value: Json;
  attempt: number;
  values: Json[];
}

/** The scope as this module needs it. */
export interface RetryScope {
  id: string;
  entries: readonly string[];
  retry?: RetryController;
  /** The scope around it, if any. */
  scope?: string;
}

/** Where a scope runs: its session's thread and the thread the scope itself is in. */
export interface ScopeThreads {
  thread: string;
  parent: string;
}

/** The controller data on a scope's record, if it has a controller. */
export function retryRunOf(record: ActivityRecord | undefined): RetryRun | undefined {
  const input = record?.input as { retry?: RetryRun } | null | undefined;
  return input?.retry ?? undefined;
}

/** How the controller's writes are checked: on the retry machine, by {@link checkMove}. */
const CONTROLLER = { machine: 'retry', checked: true } as const;

/**
 * Checks a controller move on the retry machine. RUNNING on the record reads as the
 * machine's SUCCESS (the controller gave its value); RETRYING reverts the failed run
 * before the next one, so a revert ending there is checked as REVERTING's.
 */
function checkMove(from: string, to: RetryState, scope: string): RetryState {
  const machineFrom = (
    from === 'RUNNING' ? 'SUCCESS' : from === 'RETRYING' && to !== 'RUNNING' ? 'REVERTING' : from
  ) as RetryState;
  transition('retry', machineFrom, to, `scope ${scope}`);
  return to;
}

/** The first run's controller data: its values (a for_each expression evaluated) and value. */
export async function firstRun(step: Step, scope: RetryScope): Promise<RetryRun | undefined> {
  const controller = scope.retry;
  if (!controller) return undefined;
  let values: Json[] = [];
  if (controller.kind === 'for_each') {
    if ('values' in controller) values = controller.values as Json[];
    else {
      const out = await step.evaluate(
        controller.expression,
        `scope ${scope.id} (retry.for_each)`,
        scope.scope,
      );
      values = Array.isArray(out) ? out : out === null || out === undefined ? [] : [out];
    }
  }
  return { attempt: 1, value: retryValue(controller, 1, values as RetryValue[]) as Json, values };
}

/** Starts a run of the scope: a new session thread, its record RUNNING, its entries entered. */
export async function startRun(
  step: Step,
  scope: RetryScope,
  address: ActivityAddress,
  run: RetryRun | undefined,
  from?: string,
): Promise<void> {
  const session = await step.addCounter(
    { job: step.job.id, activity: scope.id, field: 'sessions' },
    1n,
  );
  step.putActivity(
    {
      activity: address.a,
      dimension: address.d,
      status: from === undefined ? 'RUNNING' : checkMove(from, 'RUNNING', scope.id),
      attempt: Number(session),
      ...(run ? { input: { retry: run } as unknown as Json } : {}),
      ...(from === undefined ? { startedAt: step.clock.now() } : {}),
      finishedAt: null,
      error: null,
    },
    CONTROLLER,
  );
  const thread = childThread(address.d, address.a, session);
  for (const entry of scope.entries) await enter(step, entry, thread);
}

function inRun(record: ActivityRecord, scope: string, thread: string): boolean {
  return (
    record.activity.startsWith(`${scope}.`) &&
    (record.dimension === thread || record.dimension.startsWith(`${thread}/`))
  );
}

/**
 * Called when a run of a scope with a controller ended with `failure` (or a failure
 * asking for REVERT_ALL reached a scope): the controller decides, the record moves to
 * RETRYING or REVERTING, and the run's reverts begin ({@link continueScopeRevert}).
 */
export async function failRun(
  step: Step,
  scope: RetryScope,
  threads: ScopeThreads,
  record: ActivityRecord | undefined,
  failure: ErrorRecord,
): Promise<void> {
  const run = retryRunOf(record);
  const revertAll = failure.code === REVERT_ALL_CODE;
  const decision = scope.retry
    ? decideRetry(scope.retry, run?.attempt ?? 1, (run?.values ?? []) as RetryValue[], revertAll)
    : 'REVERT_ALL';
  const status = checkMove(
    record?.status ?? 'RUNNING',
    decision === 'RETRY' ? 'RETRYING' : 'REVERTING',
    scope.id,
  );
  const error: ErrorRecord =
    decision === 'REVERT_ALL'
      ? {
          ...failure,
          code: REVERT_ALL_CODE,
          message: revertAll ? failure.message : `${failure.message} (revert_all)`,
        }
      : failure;
  step.putActivity({ activity: scope.id, dimension: threads.parent, status, error }, CONTROLLER);
  await continueScopeRevert(step, scope, threads);
}

/**
 * Goes on with a scope that is RETRYING or REVERTING: the next revert of its failed run,
 * or — none left — the next run (RETRYING) or the scope's failure (REVERTING).
 */
export async function continueScopeRevert(
  step: Step,
  scope: RetryScope,
  threads: ScopeThreads,
): Promise<void> {
  if (await startNextRevert(step, (r) => inRun(r, scope.id, threads.thread))) return;
  const address = { job: step.job.id, a: scope.id, d: threads.parent };
  const record = await step.record(scope.id, threads.parent);
  const status = record?.status ?? 'RUNNING';
  const runError = (record?.error ?? { name: 'Error', message: 'scope failed' }) as ErrorRecord;
  const failedRevert = (await step.allRecords()).find(
    (r) => inRun(r, scope.id, threads.thread) && r.status === 'REVERT_FAILURE',
  );
  if (failedRevert) {
    const error = revertFailedError(
      failedRevert.activity,
      (failedRevert.error ?? undefined) as ErrorRecord | undefined,
      runError,
    ) as ErrorRecord;
    // A REVERT_ALL goes on past a failed revert: the job still reverts everything else.
    if (runError.code === REVERT_ALL_CODE) await markJobReverting(step);
    await finishActivity(step, address, { outcome: 'error', error, controller: true });
    step.putActivity(
      {
        activity: scope.id,
        dimension: threads.parent,
        status: checkMove(status, 'REVERT_FAILURE', scope.id),
      },
      CONTROLLER,
    );
    return;
  }
  if (status === 'RETRYING') {
    const run = retryRunOf(record) ?? { attempt: 1, value: null, values: [] };
    const attempt = run.attempt + 1;
    const next: RetryRun = {
      ...run,
      attempt,
      value: scope.retry
        ? (retryValue(scope.retry, attempt, run.values as RetryValue[]) as Json)
        : null,
    };
    // Every member back to pending, as a cycle's re-entry does; the new run's thread
    // gives them fresh semaphores and join counters.
    for (const id of step.wf.compiled.order) {
      if (!id.startsWith(`${scope.id}.`)) continue;
      if ((await step.digit(id)) !== COLLATION_DIGITS.pending) {
        await step.move(id, COLLATION_DIGITS.pending);
      }
    }
    await startRun(step, scope, address, next, status);
    return;
  }
  await finishActivity(step, address, { outcome: 'error', error: runError, controller: true });
  step.putActivity(
    {
      activity: scope.id,
      dimension: threads.parent,
      status: checkMove(status, 'REVERTED', scope.id),
    },
    CONTROLLER,
  );
}
