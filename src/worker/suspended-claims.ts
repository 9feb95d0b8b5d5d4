/**
 * The claim path's side of suspension (engine/suspension.ts): a task message claimed for
 * a job that is SUSPENDING or SUSPENDED is not run — the job starts nothing new — but
 * completed and parked, in the claim's own transaction, to run when the job resumes; a
 * suspending job whose last running handler was that message's (its holder died) then
 * settles to SUSPENDED.
 */
import { parked, settleSuspending, startsNothing } from '../engine/suspension.js';
import type { Json, StreamMessage } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** Parks the claimed messages of suspended jobs; returns those to run. */
export async function admitClaimed(
  tx: StoreTx,
  messages: readonly StreamMessage[],
  consumer: string,
  now: number,
): Promise<StreamMessage[]> {
  const jobs = [...new Set(messages.map((m) => m.job).filter((j): j is string => j !== null))];
  if (jobs.length === 0) return [...messages];
  const stopped = new Set<string>();
  for (const id of jobs.sort()) {
    const job = await tx.getJob(id);
    if (job && startsNothing(job.state)) stopped.add(id);
  }
  if (stopped.size === 0) return [...messages];
  const run: StreamMessage[] = [];
  for (const m of messages) {
    if (m.job === null || !stopped.has(m.job)) {
      run.push(m);
      continue;
    }
    await tx.ack(m.stream, m.id, consumer);
    await tx.append([parked(m.job, { stream: m.stream, payload: m.payload as Json })]);
  }
  for (const id of stopped) {
    const job = await tx.lockJob(id);
    if (job?.state === 'SUSPENDING') await settleSuspending(tx, id, { now, worker: consumer });
  }
  return run;
}
