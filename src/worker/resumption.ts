/**
 * Resumption after a hard crash, as TaskFlow's flow machine has it: a worker that claims
 * a message whose lease ran out — its holder died (or stalled past its lease) — takes the
 * job over. In the transaction of that claim a RUNNING job passes RESUMING → SUSPENDED →
 * RUNNING, and its history gets a `resumption` line naming the worker whose lease ran out
 * and the message taken over, and its `resumptions` counter goes up by one (`weft status`
 * shows it). A job that was suspending or
 * suspended keeps its state (the message is parked by the claim path); the line is
 * written all the same.
 */
import type { FlowState } from '../core/states.js';
import type { Json, NewHistoryEntry, StreamMessage } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** The history kind of a takeover. */
export const RESUMPTION_KIND = 'resumption';

/** The job-level counter of its resumptions, which `weft status` shows. */
export const RESUMPTIONS_FIELD = 'resumptions';

/** The path a RUNNING job takes when a worker takes it over. */
const RESUMPTION_PATH = ['RESUMING', 'SUSPENDED', 'RUNNING'] as const;

/**
 * Records the takeovers among `messages`, just claimed by `consumer` in `tx`: each job
 * with a message taken over from another holder is locked (in id order), moved through
 * RESUMING → SUSPENDED → RUNNING when it runs, and given one history line per message.
 */
export async function resumeTakenOver(
  tx: StoreTx,
  messages: readonly StreamMessage[],
  consumer: string,
  now: number,
): Promise<void> {
  const taken = messages.filter(
    (m) => m.job !== null && m.previousConsumer !== undefined && m.previousConsumer !== consumer,
  );
  if (taken.length === 0) return;
  const jobs = [...new Set(taken.map((m) => m.job as string))].sort();
  const lines: NewHistoryEntry[] = [];
  for (const job of await tx.lockJobs(jobs)) {
    await tx.addCounter({ job: job.id, field: RESUMPTIONS_FIELD }, 1n);
    let moved = false;
    if (job.state === 'RUNNING') {
      let at: FlowState = 'RUNNING';
      for (const next of RESUMPTION_PATH) {
        await tx.setJobState(job.id, at, next);
        at = next;
      }
      moved = true;
    }
    for (const m of taken.filter((t) => t.job === job.id)) {
      const change: Record<string, Json> = {
        state: job.state,
        ...(moved ? { path: [...RESUMPTION_PATH] } : {}),
        died: m.previousConsumer as string,
        message: m.id,
        stream: m.stream,
        deliveries: m.deliveries,
      };
      lines.push({
        job: job.id,
        kind: RESUMPTION_KIND,
        activity: null,
        change,
        at: now,
        worker: consumer,
      });
      moved = false;
    }
  }
  if (lines.length > 0) await tx.appendHistory(lines);
}
