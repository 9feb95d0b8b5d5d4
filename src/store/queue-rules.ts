/**
 * What both backends share about queues: the stream a waiting job's messages are parked
 * in until it is admitted, and how the two reads of waiting items merge.
 */
import type { NewMessage, QueueItem } from './records.js';

/** Where a queued job's messages wait until a slot admits it (a stream nobody claims). */
export const QUEUED_STREAM = 'queued';

/**
 * `message` as `parkMessages` would leave it parked in the `queued` stream, for a planner
 * that appends a queued job's first message parked from the start.
 */
export function parkedMessage(message: NewMessage): NewMessage {
  return {
    stream: QUEUED_STREAM,
    job: message.job ?? null,
    payload: { stream: message.stream, payload: message.payload },
    ...(message.availableAt !== undefined && { availableAt: message.availableAt }),
  };
}

/**
 * The waiting items an admission looks at: the first by priority and the oldest, once
 * each, oldest first (aging may lift an old low-priority item over newer high ones).
 */
export function mergeWaiting(byPriority: QueueItem[], oldest: QueueItem[]): QueueItem[] {
  const seen = new Map<string, QueueItem>();
  for (const item of [...byPriority, ...oldest]) seen.set(item.job, item);
  return [...seen.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * The upper bounds (seconds) of the histogram of queue waits (`QueueRecord.waits`,
 * `/metrics`'s `weft_queue_wait_seconds`): from 10 ms to an hour.
 */
export const QUEUE_WAIT_BOUNDS_S: readonly number[] = [
  0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600,
];
