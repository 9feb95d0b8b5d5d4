/**
 * A workflow file's `schedules:`: each entry checked as any schedule declaration is
 * (core/schedule-rules.ts), a wrong field reported at its line, and two entries of one
 * name refused.
 */
import { type CheckedSchedule, scheduleProblem } from '../core/schedule-rules.js';
import { type Duration, parseDuration } from './durations.js';
import type { ProblemList } from './problem-list.js';

/** A `schedules:` entry as the file's shape check leaves it. */
interface ScheduleDocument {
  name: string;
  cron: string;
  timezone?: string | undefined;
  input?: unknown;
  overlap?: CheckedSchedule['overlap'] | undefined;
  catchup?: number | string | undefined;
}

/** The file's schedules, checked (those with a problem left out, the problem added). */
export function checkSchedules(
  doc: { workflow: string; schedules?: readonly ScheduleDocument[] | undefined },
  problems: ProblemList,
): CheckedSchedule[] {
  const out: CheckedSchedule[] = [];
  const seen = new Set<string>();
  (doc.schedules ?? []).forEach((entry, i) => {
    const { catchup, ...rest } = entry;
    const checked = scheduleProblem({
      ...rest,
      workflow: doc.workflow,
      ...(catchup !== undefined && { catchupWindowMs: parseDuration(catchup as Duration) ?? -1 }),
    });
    if ('field' in checked) {
      const field = checked.field === 'catchupWindowMs' ? 'catchup' : checked.field;
      problems.add(['schedules', i, field], checked.message);
    } else if (seen.has(checked.name)) {
      problems.add(
        ['schedules', i, 'name'],
        `schedule ${JSON.stringify(checked.name)} is named twice`,
      );
    } else {
      seen.add(checked.name);
      out.push(checked);
    }
  });
  return out;
}
