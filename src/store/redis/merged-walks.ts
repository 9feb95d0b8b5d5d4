/**
 * Several ordered walks (one per partition of a cluster) read as one: the reads that
 * walk an index (listings, counts, prune) walk each partition's index and merge them.
 */

/**
 * The walks merged in `before` order; an item at the head of several walks at once
 * (neither before the other) comes out once.
 */
export async function* mergedWalks<T>(
  walks: AsyncGenerator<T>[],
  before: (a: T, b: T) => boolean,
): AsyncGenerator<T> {
  const heads = await Promise.all(walks.map((w) => w.next()));
  for (;;) {
    let pick: T | undefined;
    let found = false;
    for (const head of heads) {
      if (head.done) continue;
      if (!found || before(head.value, pick as T)) pick = head.value;
      found = true;
    }
    if (!found) return;
    const value = pick as T;
    yield value;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i] as IteratorResult<T>;
      if (!head.done && !before(value, head.value) && !before(head.value, value)) {
        heads[i] = await (walks[i] as AsyncGenerator<T>).next();
      }
    }
  }
}
