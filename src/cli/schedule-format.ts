/**
 * How `weft schedule …` prints schedules: a table for the list, a block for one schedule
 * with its next run times in UTC and in the schedule's own zone.
 */

import type { ScheduleView } from '../client/schedules.js';
import { humanDuration, isoTime as iso } from '../models/view-time.js';
import { alignColumns } from './print.js';

/** A time in the schedule's zone: `Fri 27 Nov 2026, 03:00:00 CET`. */
export function zonedTime(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).format(ms);
}

const state = (s: ScheduleView) => (s.paused ? 'paused' : s.nextAt === null ? 'ended' : 'active');

/** The schedules as a table, by name. */
export function formatScheduleList(schedules: readonly ScheduleView[]): string {
  if (schedules.length === 0) return 'no schedules';
  const rows = [
    ['NAME', 'WORKFLOW', 'CRON', 'ZONE', 'STATE', 'NEXT RUN', 'RUNS', 'SKIPPED', 'LAST JOB'],
    ...schedules.map((s) => [
      s.name,
      s.workflow,
      s.cron,
      s.timezone,
      state(s),
      s.paused ? '-' : (iso(s.nextAt) ?? '-'),
      String(s.runs),
      String(s.skipped),
      s.lastJob ?? '-',
    ]),
  ];
  return alignColumns(rows);
}

/** The next run times, one a line: UTC, then the schedule's zone. */
export function formatUpcoming(s: ScheduleView): string {
  if (s.paused) return 'next runs: none while paused (weft schedule resume starts it again)';
  if (s.upcoming.length === 0) return 'next runs: none (the expression matches no later date)';
  return [
    'next runs:',
    ...s.upcoming.map((t) => `  ${new Date(t).toISOString()}  ${zonedTime(t, s.timezone)}`),
  ].join('\n');
}

/** One schedule: what it starts, where it stands, its next runs. */
export function formatSchedule(s: ScheduleView): string {
  const lines = [
    `schedule ${s.name} (${state(s)})`,
    `  workflow:  ${s.workflow}`,
    `  cron:      ${s.cron} (${s.timezone})`,
    `  input:     ${JSON.stringify(s.input)}`,
    `  overlap:   ${s.overlap}; ticks missed by more than ${humanDuration(s.catchupWindowMs)} are skipped`,
    `  runs:      ${s.runs} started, ${s.skipped} skipped`,
    `  last tick: ${iso(s.lastTickAt) ?? '-'}${s.lastJob ? ` (job ${s.lastJob})` : ''}`,
  ];
  if (s.bufferedAt !== null) {
    lines.push(`  held tick: ${iso(s.bufferedAt)} (starts when ${s.lastJob} ends)`);
  }
  if (s.lastError) lines.push(`  last error: ${s.lastError}`);
  lines.push(formatUpcoming(s));
  return lines.join('\n');
}
