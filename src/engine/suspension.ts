/**
 * Suspending and resuming a job, graph or code-first, as TaskFlow's flow machine goes:
 * a pause moves a RUNNING job to SUSPENDING, and from then on it starts nothing new —
 * its waiting work (entries of activities, task messages nobody has claimed) is parked in
 * a stream of its own (`parked:<job>`) that no worker claims — while the task handlers
 * already running finish and their results are recorded. When none runs any more it moves
 * to SUSPENDED (or ends, SUCCESS or FAILURE, if its last work finished meanwhile). A
 * resume moves it back to RUNNING and puts the parked work back where it came from, so
 * it carries on where it stopped.
 *
 * "Running" means a task message of the job held by a worker under a live lease. A
 * holder that dies lets its lease run out; the next worker that claims the message finds
 * the job suspended and parks it too (and, see resumption.ts, records the takeover).
 */
import { InvalidStateError } from '../core/errors.js';
import type { FlowState } from '../core/states.js';
import { parkStream } from '../store/claim-move.js';
import type { JobRecord, Json, NewHistoryEntry, NewMessage } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import { ENGINE_STREAM } from './messages.js';

/** Who does it and when: the worker's consumer id (null for a client), epoch ms. */
export interface SuspensionContext {
  now: number;
  worker?: string | null;
}

/** True in the states where a job starts nothing new. */
export function startsNothing(state: FlowState): boolean {
  return state === 'SUSPENDING' || state === 'SUSPENDED';
}

/** True for a stream of task messages (their handlers are the job's running atoms). */
export function isTaskStream(stream: string): boolean {
  return stream.startsWith('task:');
}

/** How many of the job's task handlers run now: its task messages held under a live lease. */
export async function runningTasks(tx: StoreTx, job: string, now: number): Promise<number> {
  const messages = await tx.jobMessages(job);
  return messages.filter(
    (m) => isTaskStream(m.stream) && m.consumer !== null && (m.leaseUntil ?? 0) > now,
  ).length;
}

/**
 * True when a message a step of a job that starts nothing new would append is new work
 * of that job — an activity's entry or a task — and so must be parked instead.
 */
export function isNewWork(job: string, message: NewMessage): boolean {
  if (message.job !== job) return false;
  if (isTaskStream(message.stream)) return true;
  const payload = message.payload as { k?: string } | null;
  return message.stream === ENGINE_STREAM && payload?.k === 'enter';
}

/**
 * True for an engine message a suspending or suspended graph job keeps parked until it
 * resumes: an activity's entry (new work), and what a durable timer fired — a sleep's
 * wake-up, a hook's timeout, the job's deadline — so no timer fires into a paused job.
 * They run when it resumes: at once when their time came meanwhile.
 */
export function heldWhileSuspended(payload: unknown): boolean {
  const k = (payload as { k?: unknown } | null)?.k;
  return k === 'enter' || k === 'wake' || k === 'timeout' || k === 'deadline';
}

/** The message that keeps `message` parked for `job` until it resumes. */
export function parked(job: string, message: { stream: string; payload: Json }): NewMessage {
  return {
    stream: parkStream(job),
    job,
    payload: { stream: message.stream, payload: message.payload },
  };
}

function line(
  job: string,
  kind: string,
  change: Record<string, Json>,
  context: SuspensionContext,
): NewHistoryEntry {
  return { job, kind, activity: null, change, at: context.now, worker: context.worker ?? null };
}

/**
 * Pauses a job the caller has locked: RUNNING → SUSPENDING, its waiting work parked, and
 * SUSPENDED at once when no task handler of it runs. A job in any other state is left as
 * it is (a suspended one is already; TaskFlow ignores a suspend of an idle or finished
 * flow). Returns the state the job is in after.
 */
export async function suspendJob(
  tx: StoreTx,
  job: JobRecord,
  context: SuspensionContext,
): Promise<FlowState> {
  if (job.state !== 'RUNNING') return job.state;
  await tx.setJobState(job.id, 'RUNNING', 'SUSPENDING');
  const parkedCount = await tx.parkMessages(job.id, parkStream(job.id));
  const running = await runningTasks(tx, job.id, context.now);
  const lines = [
    line(job.id, 'suspend', { state: 'SUSPENDING', parked: parkedCount, running }, context),
  ];
  let state: FlowState = 'SUSPENDING';
  if (running === 0) {
    await tx.setJobState(job.id, 'SUSPENDING', 'SUSPENDED');
    lines.push(line(job.id, 'suspended', { state: 'SUSPENDED' }, context));
    state = 'SUSPENDED';
  }
  await tx.appendHistory(lines);
  return state;
}

/**
 * Moves a SUSPENDING job the caller has locked to SUSPENDED once none of its task
 * handlers runs (parking first whatever waiting work of it appeared meanwhile). Returns
 * true when it moved.
 */
export async function settleSuspending(
  tx: StoreTx,
  job: string,
  context: SuspensionContext,
): Promise<boolean> {
  await tx.parkMessages(job, parkStream(job));
  if ((await runningTasks(tx, job, context.now)) > 0) return false;
  if (!(await tx.setJobState(job, 'SUSPENDING', 'SUSPENDED'))) return false;
  await tx.appendHistory([line(job, 'suspended', { state: 'SUSPENDED' }, context)]);
  return true;
}

/** Deletes the work parked for a job that ended (cancelled while suspended); returns how much. */
export async function dropParked(tx: StoreTx, job: string): Promise<number> {
  const stream = parkStream(job);
  const ids = (await tx.jobMessages(job)).filter((m) => m.stream === stream).map((m) => m.id);
  return ids.length ? tx.remove(stream, ids) : 0;
}

/**
 * Resumes a SUSPENDED job the caller has locked: RUNNING again, its parked work back in
 * its streams. A job still SUSPENDING cannot resume yet (its running handlers have not
 * finished): `InvalidStateError`. A job in any other state is left as it is. Returns the
 * state the job is in after.
 */
export async function resumeJob(
  tx: StoreTx,
  job: JobRecord,
  context: SuspensionContext,
  options: { line?: boolean } = {},
): Promise<FlowState> {
  if (job.state === 'SUSPENDING') {
    throw new InvalidStateError(
      `flow ${job.id}`,
      'SUSPENDING',
      'RUNNING',
      'its running task handlers have not finished; resume it once it is SUSPENDED',
    );
  }
  if (job.state !== 'SUSPENDED') return job.state;
  await tx.setJobState(job.id, 'SUSPENDED', 'RUNNING');
  const unparked = await tx.unparkMessages(job.id, parkStream(job.id));
  if (options.line !== false) {
    await tx.appendHistory([line(job.id, 'resume', { state: 'RUNNING', unparked }, context)]);
  }
  return 'RUNNING';
}
