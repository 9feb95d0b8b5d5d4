/**
 * The claim machine (core/states: UNCLAIMED → CLAIMED → COMPLETE, CLAIMED → UNCLAIMED) as
 * the backends apply it to stream messages, the same on every backend. A message is
 * UNCLAIMED while nobody holds it, CLAIMED while a consumer does (its lease may have run
 * out: it stays that consumer's until another claim takes it over), and COMPLETE once
 * acked, when its row is gone. The backends run the SQL; an ack that deleted nothing asks
 * here what it was.
 */
import { type ClaimState, transition } from '../core/states.js';

/** The claim state of a stored message; undefined (no row) is COMPLETE. */
export function claimStateOf(message: { consumer: string | null } | undefined): ClaimState {
  if (!message) return 'COMPLETE';
  return message.consumer === null ? 'UNCLAIMED' : 'CLAIMED';
}

/**
 * Checks an ack that deleted nothing: a message held by someone else, already gone, or
 * given back after a claim (its lease ran out and was freed) is a lost lease — the
 * caller's false. One that was never claimed at all would move UNCLAIMED → COMPLETE,
 * which the claim machine refuses with `InvalidStateError`.
 */
export function checkMissedAck(
  stream: string,
  id: string,
  message: { consumer: string | null; deliveries: number } | undefined,
): void {
  const from = claimStateOf(message);
  if (from === 'UNCLAIMED' && message?.deliveries === 0) {
    transition('claim', from, 'COMPLETE', `message ${id} on ${stream}`);
  }
}

/** The stream a job's parked messages wait in while it is suspended. */
export function parkStream(job: string): string {
  return `parked:${job}`;
}
