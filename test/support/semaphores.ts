/**
 * A job's semaphores as tests compare them: each activity's `…/sem` counter as its three
 * leg digits and its Leg2 entries/exits (`888:1/1` for a task entered and left once).
 */
import { parseSemaphore } from '../../src/core/semaphore.js';
import type { Store } from '../../src/store/store.js';

export async function semaphoresOf(store: Store, job: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of await store.listCounters(job)) {
    if (!name.endsWith('/sem')) continue;
    const s = parseSemaphore(value);
    out[name] = `${s.leg1Entry}${s.leg1Exit}${s.leg2Exit}:${s.leg2Entries}/${s.leg2Exits}`;
  }
  return out;
}
