/**
 * What `weft status` says under a code-first job's works about those it dispatched
 * (`dispatch`: the code did not wait for them): each one's end — its output, or its
 * failure, which does not fail the job — or that it still runs, after the job's end too.
 */
import type { JobView } from '../client/job-view.js';

const ENDED = new Set(['SUCCESS', 'FAILURE', 'REVERTED']);

/** One line per dispatched work of `view`, in the order they were scheduled. */
export function dispatchedLines(view: JobView): string[] {
  const ended = ENDED.has(view.state);
  return view.activities
    .filter((a) => a.dispatched)
    .map((a) => {
      const what = `dispatched ${a.kind} ${a.id}`;
      if (a.state === 'completed')
        return `${what} completed: output ${JSON.stringify(a.output ?? null)}`;
      if (a.state === 'failed') {
        const error = a.error ? `${a.error.name}: ${a.error.message}` : 'failed';
        return `${what} failed: ${error} (the job does not wait for dispatched work, so this did not fail it)`;
      }
      const after = ended ? ' after the job ended' : '';
      return a.state === 'running'
        ? `${what} still running${after}`
        : `${what} waits for a worker${after}`;
    });
}
