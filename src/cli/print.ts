/**
 * How the CLI prints: one JSON object per command with `--json`, readable text
 * otherwise. Jobs print their collation table the way seed 000 lays it out.
 */

import type { ActivityView, JobView } from '../client/job-view.js';
import type { Instance } from '../durable/instance.js';
import type { JobRecord } from '../store/records.js';

/** Where text goes; tests pass their own. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** The process's stdout and stderr. */
export const processOutput: Output = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** Prints a value as one line of JSON. */
export function printJson(output: Output, value: unknown): void {
  output.out(JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

/** A job as readable text: a header line, its collation table, output or error, children. */
export function formatJobView(view: JobView, indent = ''): string {
  const lines = [`${indent}job ${view.id}  ${view.workflow}@${view.version}  ${view.state}`];
  if (view.collation) {
    lines.push(`${indent}collation ${view.collation}`);
    if (view.compositional && view.children.length > 0) {
      lines.push(`${indent}compositional ${view.compositional}`);
    }
    lines.push(
      ...renderActivityTable(view.activities)
        .split('\n')
        .map((l) => indent + l),
    );
  }
  if (view.instance) {
    lines.push(
      ...formatInstance(view.instance as unknown as Instance)
        .split('\n')
        .map((l) => indent + l),
    );
  }
  if (view.error) lines.push(`${indent}error ${view.error.name}: ${view.error.message}`);
  else if (view.output !== null) lines.push(`${indent}output ${JSON.stringify(view.output)}`);
  for (const child of view.children) lines.push('', formatJobView(child, `${indent}  `));
  return lines.join('\n');
}

/** `weft list`'s table: a header, then one line per job (id, workflow@version, state, created). */
export function formatJobList(jobs: readonly JobRecord[]): string {
  if (jobs.length === 0) return 'no jobs';
  const rows = [
    ['JOB', 'WORKFLOW', 'STATE', 'CREATED'],
    ...jobs.map((job) => [
      job.id,
      `${job.workflow}@${job.version}`,
      job.state,
      new Date(job.createdAt).toISOString(),
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '),
    )
    .join('\n');
}

/**
 * The activities of a graph job by digit position, so the key reads against the table:
 * position, activity, state and digit, then attempts and times (UTC), and an error column
 * when an activity has one.
 */
export function renderActivityTable(activities: readonly ActivityView[]): string {
  const rows = [...activities].sort((a, b) => a.position - b.position);
  const time = (iso: string | null) => (iso ? iso.slice(11, 23) : '');
  const errors = rows.some((a) => a.error);
  const header = ['#', 'Activity', 'State', 'Digit', 'Attempts', 'Started', 'Finished'];
  if (errors) header.push('Error');
  const body = rows.map((a) => {
    const cells = [
      String(a.position),
      a.id,
      a.state,
      String(a.digit),
      a.attempts > 0 ? String(a.attempts) : '',
      time(a.startedAt),
      time(a.finishedAt),
    ];
    if (errors) cells.push(a.error ? `${a.error.name}: ${a.error.message}` : '');
    return cells;
  });
  const widths = header.map((title, col) =>
    Math.max(title.length, ...body.map((cells) => (cells[col] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, col) => cell.padEnd(widths[col] ?? 0)).join(' | ')} |`;
  const rule = `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

/** One line per branch of a code-first instance, for `weft status`. */
export function formatInstance(instance: Instance): string {
  const lines = [
    `instance ${instance.id}  ${instance.workflow_name}  ${instance.state} (decisions: ${instance.decision_mode})`,
    `executions [${instance.executions.join(',')}]`,
  ];
  instance.branches.forEach((b, key) => {
    const about = b.type === 'onEvent' ? b.event_name : b.task_name;
    lines.push(`  branch ${key}  ${b.type}${about ? `(${about})` : ''}${b.ended ? '  ended' : ''}`);
  });
  const open = instance.statuses.filter((s) => s.status === 'scheduled');
  if (open.length && instance.state === 'running')
    lines.push(`waiting on ${open.map((s) => `${s.type} ${s.name}`).join(', ')}`);
  return lines.join('\n');
}

/**
 * The lines `weft run` prints when a job's key changes: one per activity whose digit
 * moved, `<activity>  <new state>  <key>` (`fox  Started  968969000000000`); the first
 * key, and a key no activity's digit explains (a child's, in a compositional key), print
 * as `job  <job state>  <key>`.
 * `before` maps each activity to the digit it showed last; it is updated.
 */
export function formatKeyChanges(
  view: JobView,
  key: string,
  before: Map<string, number>,
): string[] {
  const width = Math.max(3, ...view.activities.map((a) => a.id.length));
  const jobLine = `${'job'.padEnd(width)}  ${view.state.padEnd(9)}  ${key}`;
  if (before.size === 0) {
    // The first key: where every activity starts, printed once for the job.
    for (const a of view.activities) before.set(a.id, a.digit);
    return [jobLine];
  }
  const lines: string[] = [];
  for (const a of view.activities) {
    if (before.get(a.id) === a.digit) continue;
    before.set(a.id, a.digit);
    lines.push(`${a.id.padEnd(width)}  ${a.state.padEnd(9)}  ${key}`);
  }
  return lines.length > 0 ? lines : [jobLine];
}
