/**
 * Where a job waited for its slot, kept in its history: a job's queue item is deleted
 * when the job ends, so the line `queued` (its queue, key and priority), written when the
 * job joins a queue, is what says it later. A rerun of the job waits in the same place,
 * and so does the job when a requeued dead letter reopens it: neither runs around the
 * queue's limits.
 */
import type { HistoryEntry, NewHistoryEntry, NewQueueItem } from './records.js';
import type { StoreTx } from './store.js';

/** The history kind of the line that says where a job waits. */
export const QUEUED_KIND = 'queued';

/** A job's place in a queue. */
export interface QueuePlacement {
  queue: string;
  key: string;
  priority: number;
}

/** How many of a job's first history lines are searched for its `queued` line. */
const PLACEMENT_LINES = 50;

/** The line that records that `item`'s job joined its queue. */
export function queuedLine(
  item: Pick<NewQueueItem, 'job' | 'queue' | 'key' | 'priority'>,
  at: number,
): NewHistoryEntry {
  return {
    job: item.job,
    kind: QUEUED_KIND,
    activity: null,
    dimension: '',
    change: { queue: item.queue, key: item.key, priority: item.priority },
    at,
    worker: null,
  };
}

/** The placement a `queued` line records, or undefined for any other line. */
function placementOf(line: HistoryEntry): QueuePlacement | undefined {
  if (line.kind !== QUEUED_KIND) return undefined;
  const change = line.change as Partial<QueuePlacement> | null;
  if (typeof change?.queue !== 'string') return undefined;
  return {
    queue: change.queue,
    key: typeof change.key === 'string' ? change.key : '',
    priority: typeof change.priority === 'number' ? change.priority : 0,
  };
}

/**
 * Where job `id` first waited for a slot, from its history; undefined for a job that was
 * never in a queue (or whose queue was deleted since: it has nowhere to wait).
 */
export async function queuePlacement(
  reader: Pick<StoreTx, 'historyOfJob' | 'getQueue'>,
  id: string,
): Promise<QueuePlacement | undefined> {
  const lines = await reader.historyOfJob(id, { limit: PLACEMENT_LINES });
  for (const line of lines) {
    const placement = placementOf(line);
    if (!placement) continue;
    return (await reader.getQueue(placement.queue)) ? placement : undefined;
  }
  return undefined;
}
