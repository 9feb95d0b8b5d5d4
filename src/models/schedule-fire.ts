/**
 * Firing a schedule: in one transaction, lock its row, plan its due ticks
 * (schedule-plan.ts), start their jobs and write where it stands. Two workers that fire
 * one schedule at once run one after the other (the row lock), and the second finds
 * nothing due; a worker killed before its commit leaves the tick due for the next one.
 * Each tick's job id is the schedule's name and the tick's time, so a tick started twice
 * by any path (a backfill, say) is one job.
 */
import { CronTimes } from '../core/cron.js';
import { StoreError, ValidationError, WeftError } from '../core/errors.js';
import { isFinalFlowState } from '../core/states.js';
import { fileQueuePlace } from '../engine/queue-place.js';
import type { CompiledWorkflow } from '../graph/compiled-workflow.js';
import { enqueueStart } from '../store/queue-admission.js';
import type { JobRecord, Json, ScheduleRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { Models } from './models.js';
import { planTicks } from './schedule-plan.js';

/** The job id of a schedule's tick: `nightly@2026-11-26T03:00:00.000Z`. */
export function scheduledJobId(schedule: string, tick: number): string {
  return `${schedule}@${new Date(tick).toISOString()}`;
}

/** A job a tick started (or found started: `created` false). */
export interface TickJob {
  tick: number;
  id: string;
  created: boolean;
}

/** What a firing did. */
export interface Firing {
  schedule: string;
  started: TickJob[];
  skipped: number;
  /** The running job it cancelled (`cancel_other`). */
  cancelled?: string;
  /** Why a tick's job could not start (it is counted as skipped). */
  error?: string;
}

/**
 * Starts the job of one tick of `schedule` in `tx`, with the schedule's input. A start
 * the workflow refuses (its input schema, say), or a workflow the store does not know,
 * throws a typed error before it writes.
 */
export async function startTick(
  tx: StoreTx,
  models: Models,
  schedule: Pick<ScheduleRecord, 'name' | 'workflow' | 'input'>,
  tick: number,
  now: number,
): Promise<TickJob> {
  const id = scheduledJobId(schedule.name, tick);
  const definition = await tx.getDefinition(schedule.workflow);
  // Unlike a client's start, a tick does not wait for a workflow no one has registered:
  // a misspelt name would pile up a job per tick that never runs.
  if (!definition) {
    throw new ValidationError(
      `workflow ${JSON.stringify(schedule.workflow)} is not known to this store: deploy it, or start a worker that registers it`,
    );
  }
  const model = models.ofDefinition(definition);
  const request = { id, workflow: schedule.workflow, definition, input: schedule.input as Json };
  await model.check?.(request);
  const { created } = await model.start(tx, request);
  // A workflow whose file names a queue: its tick's job waits there as a client's would
  // (charged, never dropped, by a `drop` queue's rate).
  const fileQueue =
    definition.model === 'graph'
      ? (definition.definition as unknown as CompiledWorkflow).queue
      : undefined;
  if (created && fileQueue) {
    const place = await fileQueuePlace(schedule.workflow, fileQueue, request.input, {}, now);
    await enqueueStart(tx, id, place, now, now, { drops: false });
  }
  return { tick, id, created };
}

/** Cancels a job and its running children, in `tx`. */
async function cancelJob(tx: StoreTx, models: Models, job: JobRecord): Promise<void> {
  const children = await models.ofJob(job).cancel(tx, job);
  for (const id of children) {
    const child = await tx.getJob(id);
    if (child && !isFinalFlowState(child.state)) await cancelJob(tx, models, child);
  }
}

/**
 * Fires schedule `name` at `now`, in `tx`: nothing when it is paused, gone, or has
 * nothing due. Returns what it did, or undefined when it did nothing.
 */
export async function fireSchedule(
  tx: StoreTx,
  models: Models,
  name: string,
  now: number,
): Promise<Firing | undefined> {
  const schedule = await tx.lockSchedule(name);
  if (!schedule || schedule.paused) return undefined;
  const due = schedule.nextAt !== null && schedule.nextAt <= now;
  if (!due && schedule.bufferedAt === null) return undefined;
  const last = schedule.lastJob ? await tx.getJob(schedule.lastJob) : undefined;
  const running = last !== undefined && !isFinalFlowState(last.state);
  // A held tick waits for the running job; nothing else is due.
  if (!due && running) return undefined;
  const cron = new CronTimes(schedule.cron, schedule.timezone, `schedule ${name}`);
  const plan = planTicks(schedule, cron, now, running);
  const firing: Firing = { schedule: name, started: [], skipped: plan.skipped };
  if (plan.cancelRunning && last && running) {
    await cancelJob(tx, models, last);
    firing.cancelled = last.id;
  }
  let error: string | null = null;
  for (const tick of plan.start) {
    try {
      firing.started.push(await startTick(tx, models, schedule, tick, now));
    } catch (e) {
      // A start the workflow refuses is the schedule's error, not the worker's.
      if (!(e instanceof WeftError) || e instanceof StoreError) throw e;
      error = `tick ${new Date(tick).toISOString()}: ${e.message}`;
      firing.skipped++;
    }
  }
  if (error !== null) firing.error = error;
  const newest = firing.started.at(-1);
  await tx.putSchedule({
    ...schedule,
    nextAt: plan.nextAt,
    bufferedAt: plan.bufferedAt,
    lastTickAt: plan.lastTickAt,
    lastJob: newest?.id ?? schedule.lastJob,
    lastError: error ?? (firing.started.length > 0 ? null : schedule.lastError),
    runs: schedule.runs + firing.started.filter((s) => s.created).length,
    skipped: schedule.skipped + firing.skipped,
    updatedAt: now,
  });
  return firing;
}
