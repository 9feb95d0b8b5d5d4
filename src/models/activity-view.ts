/** One row of a job's view: an activity of a graph job, or a work of a code-first job. */
import type { ErrorRecord, Json } from '../store/records.js';

/** One activity's row (graph jobs), or one work of a code-first job. */
export interface ActivityView {
  /** The activity's id; for a code-first job, the work's name (a task's name, say). */
  id: string;
  /** The activity's kind (task, hook…); for a code-first work: task, workflow, wait, event, value. */
  kind: string;
  /**
   * The digit's name (Pending, Started, Completed, Errored…); for a code-first work its
   * status: scheduled, running (a worker started it), completed or failed.
   */
  state: string;
  /** Where its digit sits in the collation key, 1 for the leftmost; null for a code-first work. */
  position: number | null;
  /** The activity's digit; null for a code-first work. */
  digit: number | null;
  /** A code-first work's id. */
  work?: string;
  /**
   * A code-first work the code did not wait for (`dispatch`): its end does not end the
   * job, and it may run on after the job ended.
   */
  dispatched?: boolean;
  /** A code-first work's output, once it completed. */
  output?: Json;
  /**
   * Its record's status (PENDING, RUNNING, SUCCESS, FAILURE), null before it ran; for a
   * code-first work, the same read off its status.
   */
  status: string | null;
  /** Handler attempts so far (tasks; 0 for kinds that run no handler). */
  attempts: number;
  /** The last error, with its stack when the handler threw an Error. */
  error: ErrorRecord | null;
  /** ISO time it started, null until it has (or when not recorded). */
  startedAt: string | null;
  /** ISO time it ended, null until it has. */
  finishedAt: string | null;
}
