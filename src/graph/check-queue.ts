/**
 * A workflow file's `queue:`: the queue every job of the workflow waits in for a slot
 * (unless its start names one), the key its jobs get for the queue's per-key limits (a
 * JSONata expression over the job's input, checked to read nothing else), their priority,
 * and — when it gives any limit — the queue's declaration, which a deploy stores. A wrong
 * field is reported at its line.
 */

import { ValidationError } from '../core/errors.js';
import { type CheckedQueue, checkQueue, type QueueSpec } from '../core/queue-rules.js';
import { checkExpression } from './check-fields.js';
import type { WorkflowQueue } from './compiled-workflow.js';
import { parseDuration, parseRate } from './durations.js';
import type { ProblemList } from './problem-list.js';

/** A `queue:` as the file's shape check leaves it. */
type QueueDocument =
  | string
  | {
      name: string;
      key?: string | undefined;
      priority?: number | undefined;
      concurrency?: number | undefined;
      key_concurrency?: number | undefined;
      rate?: string | undefined;
      key_rate?: string | undefined;
      throttle?: 'wait' | 'drop' | undefined;
      aging?: string | number | undefined;
    };

/** The file's fields that declare the queue, by the name `checkQueue` gives them. */
const FILE_FIELD: Record<string, string> = {
  name: 'name',
  concurrency: 'concurrency',
  keyConcurrency: 'key_concurrency',
  rateLimit: 'rate',
  keyRateLimit: 'key_rate',
  throttle: 'throttle',
  agingMs: 'aging',
};

/** What a file's `queue:` gives the compiled workflow. */
export interface FileQueue {
  queue?: WorkflowQueue;
  declaration?: CheckedQueue;
}

/** Checks the file's `queue:` (a problem added for each wrong field). */
export function checkFileQueue(
  doc: { queue?: QueueDocument | undefined },
  problems: ProblemList,
): FileQueue {
  const entry = doc.queue;
  if (entry === undefined) return {};
  const spec = typeof entry === 'string' ? { name: entry } : entry;
  const path = typeof entry === 'string' ? ['queue'] : ['queue', 'name'];
  const declares =
    typeof entry !== 'string' &&
    [
      entry.concurrency,
      entry.key_concurrency,
      entry.rate,
      entry.key_rate,
      entry.throttle,
      entry.aging,
    ].some((v) => v !== undefined);
  const declared: QueueSpec = {
    name: spec.name,
    ...(typeof entry !== 'string' && {
      ...(entry.concurrency !== undefined && { concurrency: entry.concurrency }),
      ...(entry.key_concurrency !== undefined && { keyConcurrency: entry.key_concurrency }),
      ...(entry.rate !== undefined && { rateLimit: parseRate(entry.rate) }),
      ...(entry.key_rate !== undefined && { keyRateLimit: parseRate(entry.key_rate) }),
      ...(entry.throttle !== undefined && { throttle: entry.throttle }),
      ...(entry.aging !== undefined && { agingMs: parseDuration(entry.aging) ?? -1 }),
    }),
  };
  for (const field of ['rate', 'key_rate'] as const) {
    const written = typeof entry === 'string' ? undefined : entry[field];
    if (written !== undefined && parseRate(written) === undefined) {
      problems.add(
        ['queue', field],
        `${field} ${JSON.stringify(written)} is not at least 1 start per period`,
      );
      return {};
    }
  }
  let declaration: CheckedQueue;
  try {
    declaration = checkQueue(declared, 'queue');
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const detail = error.message.replace(/^queue: /, '');
    const field = Object.keys(FILE_FIELD).find((f) => detail.startsWith(f));
    problems.add(field && field !== 'name' ? ['queue', FILE_FIELD[field] as string] : path, detail);
    return {};
  }
  if (typeof entry !== 'string' && entry.key !== undefined) {
    // The key reads the job's input, nothing else: no activity has run yet.
    checkExpression(entry.key, ['queue', 'key'], problems, new Set<string>());
  }
  const queue: WorkflowQueue = {
    name: spec.name,
    ...(typeof entry !== 'string' && entry.key !== undefined && { key: entry.key }),
    ...(typeof entry !== 'string' && entry.priority !== undefined && { priority: entry.priority }),
  };
  return declares ? { queue, declaration } : { queue };
}
