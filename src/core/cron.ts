/**
 * Cron expressions in an IANA time zone: when a schedule's ticks fall. Croner does the
 * calendar work, daylight saving included: a time that a spring-forward skips runs at the
 * first valid time after the gap (02:30 in Berlin on the last Sunday of March runs at
 * 03:00 CEST), a fixed time that a fall-back repeats runs once (its first occurrence), and
 * an interval (`*\/15 * * * *`) keeps its pace through the repeated hour. Pure: no clock,
 * every time is epoch ms given by the caller.
 */
import { Cron } from 'croner';
import { ValidationError } from './errors.js';

/** The time zone a schedule without one runs in. */
export const DEFAULT_TIME_ZONE = 'UTC';

/** A parsed cron expression in one time zone. */
export class CronTimes {
  private readonly cron: Cron;

  /**
   * Parses `expression` — five fields (minute hour day-of-month month day-of-week), six
   * (seconds first) or a nickname (`@hourly`, `@daily`, `@weekly`, `@monthly`,
   * `@yearly`) — for `timeZone`. A bad expression or an unknown zone is a
   * ValidationError at `where`.
   */
  constructor(
    readonly expression: string,
    readonly timeZone: string = DEFAULT_TIME_ZONE,
    where = 'schedule',
  ) {
    checkTimeZone(timeZone, where);
    try {
      this.cron = new Cron(expression, { timezone: timeZone, paused: true });
    } catch (error) {
      const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : '';
      throw new ValidationError(
        `cron expression ${JSON.stringify(expression)} is not valid: ${reason}`,
        where,
        {
          cause: error,
        },
      );
    }
    if (this.cron.nextRun(new Date(0)) === null) {
      throw new ValidationError(
        `cron expression ${JSON.stringify(expression)} never matches a date`,
        where,
      );
    }
  }

  /** The first tick strictly after `after` (epoch ms), or undefined when there is none. */
  next(after: number): number | undefined {
    return this.cron.nextRun(new Date(after))?.getTime();
  }

  /** The next `count` ticks strictly after `after`. */
  upcoming(count: number, after: number): number[] {
    const out: number[] = [];
    let at = after;
    while (out.length < count) {
      const next = this.next(at);
      if (next === undefined) break;
      out.push(next);
      at = next;
    }
    return out;
  }

  /**
   * The ticks from `from` (inclusive, when it is a tick) to `to` (inclusive), at most
   * `max`; `more` says whether some were left out.
   */
  between(from: number, to: number, max: number): { ticks: number[]; more: boolean } {
    const ticks: number[] = [];
    let next = this.next(from - 1);
    while (next !== undefined && next <= to) {
      if (ticks.length === max) return { ticks, more: true };
      ticks.push(next);
      next = this.next(next);
    }
    return { ticks, more: false };
  }
}

/** Refuses a time zone the runtime's Intl does not know, naming it. */
export function checkTimeZone(timeZone: string, where = 'schedule'): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    throw new ValidationError(
      `time zone ${JSON.stringify(timeZone)} is not an IANA time zone (for example UTC, Europe/Berlin, America/New_York)`,
      where,
    );
  }
}
