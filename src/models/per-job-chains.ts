/**
 * Work on many jobs inside one transaction, side by side: the items of one job run one
 * after the other, in their order (each reads what the one before it wrote), while the
 * chains of different jobs run at once. They touch different rows, and on a store whose
 * connection pipelines (PostgreSQL) their statements then share round trips, so a batch of
 * fifty results costs about the round trips of one, not fifty times them.
 *
 * Chains start in job id order (as the task runner sorts its batches), so the first
 * statement of each, its job's lock, is issued in that order and two transactions lock
 * their jobs alike. Every chain is let finish before the first failure is thrown, so no
 * statement is issued after the transaction ends.
 */
export async function perJobChains<T extends { job: string }>(
  items: readonly T[],
  run: (item: T) => Promise<void>,
): Promise<void> {
  const chains = new Map<string, T[]>();
  for (const item of items) {
    const chain = chains.get(item.job);
    if (chain) chain.push(item);
    else chains.set(item.job, [item]);
  }
  if (chains.size <= 1) {
    for (const item of items) await run(item);
    return;
  }
  const ordered = [...chains].sort(([a], [b]) => a.localeCompare(b));
  const settled = await Promise.allSettled(
    ordered.map(async ([, chain]) => {
      for (const item of chain) await run(item);
    }),
  );
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
}
