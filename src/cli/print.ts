/**
 * How the CLI prints: one JSON object per command with `--json`, readable text
 * otherwise. Jobs print their collation table the way seed 000 lays it out.
 */

import type { JobView } from '../client/job-view.js';
import { renderCollationTable } from '../core/collation.js';
import type { CollationDigit } from '../core/collation-digits.js';
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
    const table = renderCollationTable(
      view.activities.map((a) => ({
        activity: a.id,
        state: a.state,
        digit: a.digit as CollationDigit,
      })),
    );
    lines.push(...table.split('\n').map((l) => indent + l));
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

/** One line per job for `weft list`. */
export function formatJobLine(job: JobRecord): string {
  return `${job.id}  ${job.workflow}@${job.version}  ${job.state}  ${new Date(job.createdAt).toISOString()}`;
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
