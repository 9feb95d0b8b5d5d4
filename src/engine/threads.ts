/**
 * Dimensional threads (seed 001) as weft names them: a thread is a path of segments
 * `<activity>#<n>` joined by `/`, the job's own thread being `''`. An activity that opens
 * threads — a cycle's re-entry, a scope's session, a spread's items — names each new one
 * after itself under the thread it ran in, so a thread always tells which one it is inside
 * and the step that closes it finds the thread to go back to.
 */

/** The thread `n` of `activity` inside `parent`. */
export function childThread(parent: string, activity: string, n: bigint | number): string {
  const segment = `${activity}#${n}`;
  return parent === '' ? segment : `${parent}/${segment}`;
}

/**
 * The innermost thread of `activity` that `dimension` is (or is inside), and the thread
 * that one was opened in; undefined when `dimension` is in no thread of `activity`.
 */
export function threadOf(
  dimension: string,
  activity: string,
): { thread: string; parent: string } | undefined {
  const segments = dimension === '' ? [] : dimension.split('/');
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i] as string;
    if (segment.startsWith(`${activity}#`) && /^\d+$/.test(segment.slice(activity.length + 1))) {
      return {
        thread: segments.slice(0, i + 1).join('/'),
        parent: segments.slice(0, i).join('/'),
      };
    }
  }
  return undefined;
}

/**
 * The thread a cycle's re-entry opens its next iteration under: the one the cycle ran in,
 * less the cycle's own previous iteration, so iterations are siblings, not nested.
 */
export function reentryParent(dimension: string, cycle: string): string {
  const own = threadOf(dimension, cycle);
  return own && own.thread === dimension ? own.parent : dimension;
}
