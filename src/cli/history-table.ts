/**
 * `weft history <job>` as text: one row per committed step, oldest first — seq, time
 * (ISO, UTC), kind, activity (with its dimension inside a cycle; a code-first work by its
 * name, not its id), what changed, and the worker that committed it (`(client)` for a
 * start or cancel from a client).
 *
 *     SEQ  TIME                      KIND   ACTIVITY  CHANGE                                        WORKER
 *     1    2026-11-23T09:06:46.505Z  start  -         RUNNING flaky@1  key 999000000000000         (client)
 *     3    2026-11-23T09:06:46.536Z  enter  call      call 9→8  RUNNING attempt 1  key 989000…  host:41:9f0c
 */

import type { HistoryChange, JobHistoryEntry } from '../client/job-history.js';
import type { Json } from '../store/records.js';
import { alignColumns } from './print.js';

/** The keys {@link describeChange} prints in its own words; others print as `key=json`. */
const WORDED = new Set([
  'digits',
  'state',
  'workflow',
  'version',
  'parent',
  'status',
  'attempt',
  'error',
  'name',
  'event',
  'op',
  'added',
  'modified',
  'decision',
  'collation',
  'dispatched',
  'afterEnd',
  'retryInMs',
  'revert',
  // A decision's count of executions dates property changes on the dashboard's timeline;
  // the table leaves it out.
  'executions',
]);

/** One work, wait or event a code-first decision added: `+task reserve`. */
function describeAdded(added: Json): string {
  const a = (added ?? {}) as { type?: string; name?: string; until?: number; event?: string };
  const what = a.name ?? a.event ?? (a.until !== undefined ? new Date(a.until).toISOString() : '');
  return `+${a.type ?? 'work'}${what ? ` ${what}` : ''}`;
}

/**
 * What a step changed, in a few words: digits moved, states, attempts, errors, works
 * added, the key. A `name` equal to `named` (the row's activity already says it, with
 * `(dispatched)`) is left out.
 */
export function describeChange(change: HistoryChange, named?: string): string {
  const parts: string[] = [];
  for (const [activity, [before, after]] of Object.entries(change.digits ?? {})) {
    parts.push(`${activity} ${before}→${after}`);
  }
  const workflow = change.workflow
    ? `${change.workflow}${change.version !== undefined ? `@${change.version}` : ''}`
    : '';
  if (change.state) parts.push([change.state, workflow].filter(Boolean).join(' '));
  else if (workflow) parts.push(workflow);
  if (change.parent) parts.push(`parent ${change.parent}`);
  if (change.name && change.name !== named) {
    parts.push(change.dispatched ? `${change.name} (dispatched)` : change.name);
  }
  if (change.revert === true) parts.push('revert');
  if (change.event) parts.push(`event ${change.event}`);
  if (change.op) parts.push(change.op);
  const status = [change.status, change.attempt !== undefined ? `attempt ${change.attempt}` : '']
    .filter(Boolean)
    .join(' ');
  if (status) parts.push(status);
  if (change.added?.length) parts.push(change.added.map(describeAdded).join(' '));
  if (change.modified) parts.push(`modified: ${change.modified}`);
  if (change.error) parts.push(`error ${change.error}`);
  if (change.afterEnd) parts.push('after the job ended');
  if (typeof change.retryInMs === 'number') parts.push(`retry in ${change.retryInMs} ms`);
  for (const [key, value] of Object.entries(change)) {
    if (!WORDED.has(key) && value !== undefined) parts.push(`${key}=${JSON.stringify(value)}`);
  }
  if (change.collation) parts.push(`key ${change.collation}`);
  return parts.join('  ');
}

/** The ACTIVITY cell: `-` for the job, a code-first work's name (`notify (dispatched)`), the activity[dimension]. */
function activityCell(e: JobHistoryEntry): string {
  if (e.activity === null) return '-';
  if (e.name !== undefined) {
    return e.change.dispatched && e.change.name === e.name ? `${e.name} (dispatched)` : e.name;
  }
  return `${e.activity}${e.dimension ? `[${e.dimension}]` : ''}`;
}

/** The history as a table (a header, then one row per entry), or `no history`. */
export function formatHistory(entries: readonly JobHistoryEntry[]): string {
  if (entries.length === 0) return 'no history';
  const rows = [
    ['SEQ', 'TIME', 'KIND', 'ACTIVITY', 'CHANGE', 'WORKER'],
    ...entries.map((e) => [
      String(e.seq),
      e.at,
      e.kind,
      activityCell(e),
      describeChange(e.change, e.name),
      e.worker ?? '(client)',
    ]),
  ];
  return alignColumns(rows);
}
