/**
 * `client.schedules`: cron schedules from the client's side — create (or update), list,
 * read with their next run times, pause, resume, delete, and backfill a past range.
 * Workers fire them (worker/worker.ts); this only writes what they read.
 */
import type { Clock } from '../core/clock.js';
import { CronTimes } from '../core/cron.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import type { Models } from '../models/models.js';
import type { TickJob } from '../models/schedule-fire.js';
import {
  type CheckedSchedule,
  checkSchedule,
  type DeclareStatus,
  declareSchedule,
  type ScheduleSpec,
  setSchedulePaused,
} from '../models/schedule-spec.js';
import { retryingConflicts } from '../store/conflict-retry.js';
import type { ScheduleRecord } from '../store/records.js';
import type { Store, StoreTx } from '../store/store.js';
import type { ScheduleView } from './schedule-json.js';

export { type ScheduleView, scheduleJson } from './schedule-json.js';

/** How many run times a schedule view lists. */
export const UPCOMING_RUNS = 5;

/** Most ticks one backfill starts. */
export const MAX_BACKFILL_TICKS = 1000;

/** What `create` did. */
export interface CreatedSchedule extends ScheduleView {
  status: DeclareStatus;
}

/** What a deploy did with a schedule of its file (or one the file no longer names). */
export interface FileScheduleOutcome {
  name: string;
  status: DeclareStatus | 'deleted';
  /** Its next tick, unless deleted or paused. */
  nextAt: number | null;
}

/** The next `count` ticks of a stored schedule, from its first unhandled one. */
export function upcomingRuns(schedule: ScheduleRecord, count = UPCOMING_RUNS): number[] {
  if (schedule.paused || schedule.nextAt === null) return [];
  const cron = new CronTimes(schedule.cron, schedule.timezone, `schedule ${schedule.name}`);
  return [schedule.nextAt, ...cron.upcoming(count - 1, schedule.nextAt)];
}

function view(schedule: ScheduleRecord): ScheduleView {
  return { ...schedule, upcoming: upcomingRuns(schedule) };
}

/** The schedule operations of a {@link Client}. */
export class Schedules {
  constructor(
    private readonly store: Store,
    /** The client's runtimes, loaded when a schedule first fires (client-engines.ts). */
    private readonly models: () => Promise<Models>,
    private readonly clock: Clock,
  ) {}

  private transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return retryingConflicts(() => this.store.transaction(fn));
  }

  /**
   * Creates a schedule, or updates the one of that name (`status` says which, or
   * `unchanged`). Its workflow must be known to the store: a graph workflow deployed, or
   * a code-first one a worker has registered; otherwise a ValidationError, so that a
   * misspelt name fails here rather than at 3 in the morning.
   */
  async create(spec: ScheduleSpec, source = 'api'): Promise<CreatedSchedule> {
    const checked = checkSchedule(spec);
    if (!(await this.store.getDefinition(checked.workflow))) {
      throw new ValidationError(
        `workflow ${JSON.stringify(checked.workflow)} is not known to this store: deploy it (weft deploy), or start a worker that registers it, first`,
        `schedule ${checked.name}`,
      );
    }
    const { schedule, status } = await this.transaction((tx) =>
      declareSchedule(tx, checked, this.clock.now(), source),
    );
    return { ...view(schedule), status };
  }

  /**
   * Stores the schedules of a workflow file being deployed, in one transaction, and
   * deletes the ones an earlier deploy of that workflow's file stored that it no longer
   * names (schedules from code or the command line are left alone).
   */
  async declareFromFile(
    workflow: string,
    schedules: readonly CheckedSchedule[],
  ): Promise<FileScheduleOutcome[]> {
    const stale = (await this.store.listSchedules()).filter(
      (s) => s.source === 'file' && s.workflow === workflow,
    );
    if (schedules.length === 0 && stale.length === 0) return [];
    return this.transaction(async (tx) => {
      const now = this.clock.now();
      const out: FileScheduleOutcome[] = [];
      for (const spec of schedules) {
        const { schedule, status } = await declareSchedule(tx, spec, now, 'file');
        out.push({ name: spec.name, status, nextAt: schedule.paused ? null : schedule.nextAt });
      }
      const named = new Set(schedules.map((s) => s.name));
      for (const old of stale) {
        if (!named.has(old.name) && (await tx.deleteSchedule(old.name))) {
          out.push({ name: old.name, status: 'deleted', nextAt: null });
        }
      }
      return out;
    });
  }

  /** Every schedule, by name. */
  async list(): Promise<ScheduleView[]> {
    return (await this.store.listSchedules()).map(view);
  }

  /** One schedule; a NotFoundError when there is none. */
  async get(name: string): Promise<ScheduleView> {
    const schedule = await this.store.getSchedule(name);
    if (!schedule) throw new NotFoundError('schedule', name);
    return view(schedule);
  }

  /** Pauses a schedule: no tick starts a job until it is resumed. */
  pause(name: string): Promise<ScheduleView> {
    return this.setPaused(name, true);
  }

  /**
   * Resumes a paused schedule from its next tick after now: the ticks that fell while it
   * was paused are skipped (a backfill starts them, if they are wanted).
   */
  resume(name: string): Promise<ScheduleView> {
    return this.setPaused(name, false);
  }

  private async setPaused(name: string, paused: boolean): Promise<ScheduleView> {
    const schedule = await this.transaction((tx) =>
      setSchedulePaused(tx, name, paused, this.clock.now()),
    );
    if (!schedule) throw new NotFoundError('schedule', name);
    return view(schedule);
  }

  /** Deletes a schedule; the jobs it started are left as they are. */
  async delete(name: string): Promise<void> {
    if (!(await this.store.deleteSchedule(name))) throw new NotFoundError('schedule', name);
  }

  /**
   * Starts a job for every tick from `from` to `to` (epoch ms, both included), in one
   * transaction, whatever the overlap policy: the jobs of ticks already started are
   * found, not started again (`created` false), so a backfill run twice starts nothing
   * new. At most {@link MAX_BACKFILL_TICKS} ticks.
   */
  async backfill(name: string, range: { from: number; to: number }): Promise<TickJob[]> {
    const where = `schedule ${name} backfill`;
    if (!(range.from <= range.to)) {
      throw new ValidationError('the range is empty: from is after to', where);
    }
    const stored = await this.get(name);
    const cron = new CronTimes(stored.cron, stored.timezone, where);
    const { ticks, more } = cron.between(range.from, range.to, MAX_BACKFILL_TICKS);
    if (more) {
      throw new ValidationError(
        `the range holds more than ${MAX_BACKFILL_TICKS} ticks; backfill it in parts`,
        where,
      );
    }
    // Starting jobs takes the engines (and a file queue's key, the expression language).
    const models = await this.models();
    const { startTick } = await import('../models/schedule-fire.js');
    return this.transaction(async (tx) => {
      const schedule = await tx.lockSchedule(name);
      if (!schedule) throw new NotFoundError('schedule', name);
      const jobs: TickJob[] = [];
      for (const tick of ticks)
        jobs.push(await startTick(tx, models, schedule, tick, this.clock.now()));
      const created = jobs.filter((j) => j.created).length;
      if (created > 0) {
        await tx.putSchedule({
          ...schedule,
          runs: schedule.runs + created,
          updatedAt: this.clock.now(),
        });
      }
      return jobs;
    });
  }
}
