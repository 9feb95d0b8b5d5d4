/**
 * How the CLI prints: one JSON object per command with `--json` (a job always as the
 * one {@link JobView} shape), readable text otherwise. A job prints its activities by
 * digit position, so its collation key reads against the table.
 */

import type { JobHistoryEntry } from '../client/job-history.js';
import type { ActivityView, JobView } from '../client/job-view.js';
import { type CollationDigit, DIGIT_LABELS } from '../core/collation-digits.js';
import { revertLabel } from '../core/revert-order.js';
import type { Instance } from '../durable/instance.js';
import type { TimelineStep } from '../models/step-timeline.js';
import { TIMELINE_HISTORY_LIMIT } from '../models/timeline-history.js';
import { humanDuration } from '../models/view-time.js';
import type { ErrorRecord } from '../store/records.js';
import { dispatchedLines } from './dispatched-lines.js';

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

/** How {@link formatJobView} prints. */
export interface JobViewFormat {
  /**
   * Also print every activity error's whole stack (by default only the failure that ended
   * the job, your frames only) and a code-first job's engine internals (branches,
   * executions, decisions).
   */
  verbose?: boolean;
  /** Prefix of every line (child jobs are indented). */
  indent?: string;
  /**
   * The order of a graph job's activity rows: `key` (default), by digit position, so the
   * key reads down the Digit column; `run`, in the order they ran (by start, else end).
   */
  order?: ActivityOrder;
}

/** The orders {@link formatJobView} lays a graph job's activities out in. */
export const ACTIVITY_ORDERS = ['key', 'run'] as const;

/** One of {@link ACTIVITY_ORDERS}. */
export type ActivityOrder = (typeof ACTIVITY_ORDERS)[number];

/**
 * A job as readable text: a header line, its times, what it waits for (in words), its
 * collation key and activity table (by digit position, so the key reads against it) — a
 * code-first job's steps in the order they ran instead, when the view has them — the
 * stack of the error that failed the job, the output or error, then its child jobs. Other
 * errors' stacks and a code-first job's engine internals only with `verbose`.
 */
export function formatJobView(view: JobView, options: JobViewFormat = {}): string {
  const indent = options.indent ?? '';
  const lines = [
    `job ${view.id}  ${view.workflow}@${view.version}  ${view.state}${view.model === 'durable' ? '  (code-first)' : ''}`,
    `created ${view.createdAt}${view.finishedAt ? `  finished ${view.finishedAt}` : ''}`,
    ...view.waitingFor,
  ];
  if (view.deadline !== null && view.timeoutMs !== null) {
    const limit = view.timeoutMs < 1000 ? `${view.timeoutMs}ms` : humanDuration(view.timeoutMs);
    lines.push(`deadline ${view.deadline}  (timeout ${limit} from its start)`);
  }
  if (view.resumptions > 0) {
    const times = view.resumptions === 1 ? 'once' : `${view.resumptions} times`;
    lines.push(
      `resumed ${times} after a worker's lease ran out (it died or stalled; \`weft history\` names it)`,
    );
  }
  if (view.collation) {
    lines.push(`collation ${view.collation}`);
    if (view.compositional && view.children.length > 0) {
      lines.push(`compositional ${view.compositional}`);
    }
  }
  if (view.steps && view.steps.length > 0) {
    lines.push(...renderStepTable(view.steps, view.createdAt).split('\n'));
    if (view.stepsTruncated) {
      lines.push(
        `(steps read off the first ${TIMELINE_HISTORY_LIMIT.toLocaleString('en-US')} lines of the job's history; later steps are not shown: weft history ${view.id} lists every line)`,
      );
    }
  } else if (view.activities.length > 0) {
    lines.push(...renderActivityTable(view.activities, options.order).split('\n'));
  }
  for (const a of stackedActivities(view, Boolean(options.verbose))) {
    if (a.error?.stack) {
      const where = a.attempts > 0 ? `${a.id} (attempt ${a.attempts})` : a.id;
      lines.push(...formatStack(where, a.error, Boolean(options.verbose)));
    }
  }
  lines.push(...dispatchedLines(view));
  if (options.verbose && view.instance) {
    lines.push(...formatInstance(view.instance as unknown as Instance).split('\n'));
  }
  if (view.error) lines.push(`error ${view.error.name}: ${view.error.message}`);
  else if (view.output !== null) lines.push(`output ${JSON.stringify(view.output)}`);
  const text = lines.map((l) => indent + l);
  for (const child of view.children) {
    text.push('', formatJobView(child, { ...options, indent: `${indent}  ` }));
  }
  return text.join('\n');
}

/**
 * The activities whose error stack a job's text prints: with `verbose`, every one that
 * has an error; otherwise only those of the failure that ended the job (the activity its
 * error names, else every activity with an error), and none for a job that did not fail:
 * an error its `on: error` path handled, or an attempt that will be retried, is the
 * table's Error column.
 */
function stackedActivities(view: JobView, verbose: boolean): readonly ActivityView[] {
  if (verbose) return view.activities;
  if (view.state !== 'FAILURE' && view.state !== 'REVERTED') return [];
  const named = view.error?.activity;
  const failed = view.activities.filter((a) => a.id === named);
  return failed.length > 0 ? failed : view.activities;
}

/** The folder weft's own modules run from (`…/dist/`), to tell its frames from yours. */
const WEFT_MODULES = new URL('../', import.meta.url).href;

/**
 * `error in <activity>: Name: message`, then the stack's frames, indented: your code's,
 * without weft's own and Node's internals (all of them with `verbose`, or when none is
 * yours).
 */
function formatStack(where: string, error: ErrorRecord, verbose: boolean): string[] {
  const frames = (error.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .map((line) => `    ${line.trim()}`);
  const yours = frames.filter(
    (frame) =>
      !frame.includes(WEFT_MODULES) &&
      !frame.includes('(node:') &&
      !frame.startsWith('    at node:') &&
      !frame.includes('(<anonymous>)'),
  );
  const shown = verbose || yours.length === 0 ? frames : yours;
  return [`error in ${where}: ${error.name}: ${error.message}`, ...shown];
}

/**
 * Rows as columns two spaces apart, each as wide as its widest cell (the last left as it
 * is): the layout of every table the CLI prints.
 */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '),
    )
    .join('\n');
}

/** `weft list`'s table: a header, then one line per job (id, workflow@version, state, created). */
export function formatJobList(jobs: readonly JobView[]): string {
  if (jobs.length === 0) return 'no jobs';
  const rows = [
    ['JOB', 'WORKFLOW', 'STATE', 'CREATED'],
    ...jobs.map((job) => [job.id, `${job.workflow}@${job.version}`, job.state, job.createdAt]),
  ];
  return alignColumns(rows);
}

/**
 * The activities of a job as a table. A graph job's rows go by digit position, so the key
 * reads against the table (or, with `order` `run`, in the order they ran): position,
 * activity, state and digit, then attempts and times (UTC), and an error column when an
 * activity has one. A code-first job's works (no digits) go in the order they were
 * scheduled.
 */
export function renderActivityTable(
  activities: readonly ActivityView[],
  order: ActivityOrder = 'key',
): string {
  const graph = activities.some((a) => a.position !== null);
  const rows = graph
    ? [...activities].sort(
        order === 'run' ? byRun : (a, b) => (a.position ?? 0) - (b.position ?? 0),
      )
    : [...activities];
  const time = (iso: string | null) => (iso ? iso.slice(11, 23) : '');
  const errors = rows.some((a) => a.error);
  const header = graph
    ? ['#', 'Activity', 'State', 'Digit', 'Attempts', 'Started', 'Finished']
    : ['Activity', 'Kind', 'State', 'Attempts', 'Started', 'Finished'];
  if (errors) header.push('Error');
  const body = rows.map((a) => {
    const cells = [
      ...(graph
        ? [String(a.position), a.id, a.state, String(a.digit)]
        : [a.id, a.dispatched ? `${a.kind} (dispatched)` : a.kind, a.state]),
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

/** A step's state, in the words of a code-first work's `state`. */
const STEP_STATES: Readonly<Record<string, string>> = {
  PENDING: 'scheduled',
  RUNNING: 'running',
  SUCCESS: 'completed',
  FAILURE: 'failed',
  REVERTING: 'reverting',
  REVERTED: 'reverted',
  REVERT_FAILURE: 'revert failed',
};

/** A duration: `840ms`, `1.02s`, `3m 5s`. */
function stepDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)}s`;
  return humanDuration(ms);
}

/** What a step's last column says: its error, the errors its retried attempts met, a wait's deadline, changed values. */
function stepDetail(step: TimelineStep): string {
  const parts: string[] = [];
  for (const a of step.attempts) {
    if (a.retryAt && a.error) parts.push(`attempt ${a.attempt} ${a.error} (retried)`);
  }
  if (step.error) parts.push(`${step.error.name}: ${step.error.message}`);
  if (step.kind === 'wait' && step.until && !step.finishedAt) parts.push(`until ${step.until}`);
  if (step.kind === 'properties' && step.changed !== undefined) {
    parts.push(JSON.stringify(step.changed));
  }
  return parts.join('; ');
}

/**
 * A code-first job's steps as a table, in the order they ran (models/step-timeline.ts):
 * name (a revert as `<revert task> (reverts <task>)`), kind, state, attempts, start,
 * finish (`running` while it runs) and duration, then a detail column when a step has
 * one (its error, its retried attempts' errors, a wait's deadline). Times are UTC, the
 * time of day when on the day the job was created (`createdAt`), else whole.
 */
export function renderStepTable(steps: readonly TimelineStep[], createdAt: string): string {
  const day = createdAt.slice(0, 10);
  const time = (iso: string | null) =>
    !iso ? '' : iso.slice(0, 10) === day ? iso.slice(11, 23) : iso;
  const tasks = new Map<string, string>();
  for (const s of steps) if (s.kind !== 'revert' && s.work) tasks.set(s.work, s.name);
  const details = steps.map(stepDetail);
  const header = ['Step', 'Kind', 'State', 'Attempts', 'Started', 'Finished', 'Duration'];
  if (details.some(Boolean)) header.push('Detail');
  const body = steps.map((s, i) => {
    const reverted = s.kind === 'revert' && s.work ? tasks.get(s.work) : undefined;
    const running = s.startedAt !== null && s.finishedAt === null;
    const cells = [
      reverted ? `${s.name} (reverts ${reverted})` : s.name,
      s.dispatched ? `${s.kind} (dispatched)` : s.kind,
      STEP_STATES[s.status] ?? s.status.toLowerCase(),
      s.attempts.length > 0 ? String(s.attempts.length) : '',
      time(s.startedAt),
      running ? 'running' : time(s.finishedAt),
      s.durationMs === null ? '' : stepDuration(s.durationMs),
    ];
    if (header.length > cells.length) cells.push(details[i] ?? '');
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

/**
 * Execution order: by when each activity started (a trigger, which only ends, by when it
 * ended); those that never ran last, by digit position.
 */
function byRun(a: ActivityView, b: ActivityView): number {
  const at = (x: ActivityView) => x.startedAt ?? x.finishedAt;
  const [ta, tb] = [at(a), at(b)];
  if (ta !== tb) {
    if (ta === null) return 1;
    if (tb === null) return -1;
    return ta < tb ? -1 : 1;
  }
  return (a.position ?? 0) - (b.position ?? 0);
}

/** A code-first instance's engine internals, for `weft status --verbose`: one line per branch. */
export function formatInstance(instance: Instance): string {
  const lines = [
    `instance ${instance.id}  ${instance.workflow_name}  ${instance.state} (decisions: ${instance.decision_mode})`,
    `executions [${instance.executions.join(',')}]`,
  ];
  instance.branches.forEach((b, key) => {
    const about = b.type === 'onEvent' ? b.event_name : b.task_name;
    lines.push(`  branch ${key}  ${b.type}${about ? `(${about})` : ''}${b.ended ? '  ended' : ''}`);
  });
  return lines.join('\n');
}

/** What {@link formatKeyChanges} reads of a job: its state and each activity's digit and state. */
export interface KeyView {
  state: string;
  activities: readonly Pick<ActivityView, 'id' | 'digit' | 'state'>[];
}

/**
 * A job as one line of its history left it, for {@link formatKeyChanges}: each activity's
 * digit read off the line's collation key at the activity's position, named by the
 * digit (or, for the line's own activity, by the revert status it wrote), and the job's
 * state as of that line. `layout` gives the activities and their positions (a view of the
 * job); `state` is the job's state before the line.
 */
export function keyViewOfLine(
  layout: readonly Pick<ActivityView, 'id' | 'position'>[],
  line: Pick<JobHistoryEntry, 'activity' | 'change'>,
  state: string,
): KeyView {
  const key = line.change.collation ?? '';
  return {
    state: line.change.state ?? state,
    activities: layout.map((a) => {
      const digit = a.position === null ? null : Number(key[a.position - 1]);
      const own = a.id === line.activity ? revertLabel(line.change.status) : undefined;
      const named = digit === null ? undefined : DIGIT_LABELS[digit as CollationDigit];
      return { id: a.id, digit, state: own ?? named ?? String(digit) };
    }),
  };
}

/**
 * The lines `weft run` prints when a job's key changes: one per activity whose digit
 * moved, `<activity>  <new state>  <key>` (`fox  Started  968969000000000`); the first
 * key, and a key no activity's digit explains (a child's, in a compositional key), print
 * as `job  <job state>  <key>`.
 * `before` maps each activity to the digit it showed last; it is updated.
 */
export function formatKeyChanges(
  view: KeyView,
  key: string,
  before: Map<string, number | null>,
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
