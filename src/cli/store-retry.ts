/**
 * Waiting out a store that is not there yet: `weft worker` started while its PostgreSQL
 * server restarts (or before it is up, under a supervisor that starts both) retries
 * opening the store and announcing itself, with backoff (250 ms doubling to 5 s), until
 * `--give-up-ms`, as its loops do once it runs. Only failures to reach the server are
 * retried; a wrong password, a missing database or a bad URL fail at once.
 */
import { StoreError } from '../core/errors.js';

/** Whether `error` says the store cannot be reached now (and may be later). */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof StoreError)) return false;
  if (error.code === 'STORE_UNREACHABLE') return true;
  // PostgreSQL starting up or shutting down (57P…), or a connection lost (08…).
  const state = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof state === 'string' && /^(57P|08)/.test(state);
}

/**
 * Runs `attempt` until it does not fail with an unreachable store, or `giveUpMs` has
 * passed (then its last error is the caller's). `onRetry` hears the first failure.
 */
export async function retryingUnreachable<T>(
  attempt: () => Promise<T>,
  giveUpMs: number,
  onRetry: (error: StoreError) => void,
): Promise<T> {
  const started = Date.now();
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isUnreachable(error) || Date.now() - started >= giveUpMs) throw error;
      if (tries === 0) onRetry(error as StoreError);
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** tries, 5_000)));
    }
  }
}
