/**
 * A backlog of task messages, queued in one `append` (one statement on PostgreSQL, one
 * transaction on SQLite): the cheapest way to give a worker a hundred thousand tasks to
 * claim, run and commit. They name a job that does not exist, so each result is dropped
 * when it is recorded (the job is gone), and no job, counter or history row has to be
 * written to make them — starting that many real jobs takes minutes on a loaded machine.
 */
import { taskStream } from '../../src/engine/messages.js';
import type { NewMessage } from '../../src/store/records.js';
import type { Store } from '../../src/store/store.js';

/** The job the backlog's task messages name; it never exists. */
export const BACKLOG_JOB = 'backlog-of-a-job-long-gone';

/** Queues `count` task messages for handler `task` (input `{ n }`, n = 0…count−1). */
export async function queueTaskBacklog(store: Store, task: string, count: number): Promise<void> {
  const messages: NewMessage[] = Array.from({ length: count }, (_, n) => ({
    stream: taskStream(task),
    job: BACKLOG_JOB,
    payload: { job: BACKLOG_JOB, a: 'work', d: `n#${n}`, task, input: { n }, attempt: 1 },
  }));
  await store.append(messages);
}
