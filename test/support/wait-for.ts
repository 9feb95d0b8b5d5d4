/**
 * Waiting for a condition in tests: poll until it holds or a generous deadline passes.
 * Tests use this instead of sleeping a fixed time, so they assert behaviour, not timing.
 */

/** Polls `condition` every `intervalMs` until it is true; rejects after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what = 'condition',
  { timeoutMs = 20_000, intervalMs = 5 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((done) => setTimeout(done, intervalMs));
  }
}
