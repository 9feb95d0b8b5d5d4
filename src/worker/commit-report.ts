/**
 * What a worker's commits did, as the worker sees it: a view of a store whose
 * transactions note the jobs they create, the jobs they move into a final state
 * (SUCCESS, FAILURE, REVERTED), the history lines they write and the messages they move
 * to the dead letters, reported once the transaction has committed. The engines stay as
 * they are — they write through `createJob`, `setJobState`, `appendHistory` and
 * `deadLetter` — and the worker, which owns the transactions, learns what its commits
 * did: for its log (job-ends.ts) and its metrics (metrics/weft-metrics.ts). A call made
 * outside a transaction commits at once and is reported at once.
 */
import { isFinalFlowState } from '../core/states.js';
import { overriding } from '../store/overriding.js';
import type { JobRecord, NewHistoryEntry } from '../store/records.js';
import type { Store, StoreTx } from '../store/store.js';

/** What one committed transaction did. */
export interface CommitReport {
  /** Jobs it created (a duplicate id, refused, is not one). */
  created: JobRecord[];
  /** Jobs it moved into a final state, as written. */
  ended: JobRecord[];
  /** The history lines it wrote: one per step that committed. */
  history: NewHistoryEntry[];
  /** The streams of the messages it moved to the dead letters, one entry per message. */
  deadLettered: string[];
}

/** Told of each committed transaction that did something a {@link CommitReport} holds. */
export type CommitListener = (report: CommitReport) => void;

function emptyReport(): CommitReport {
  return { created: [], ended: [], history: [], deadLettered: [] };
}

function isEmpty(r: CommitReport): boolean {
  return (
    r.created.length === 0 &&
    r.ended.length === 0 &&
    r.history.length === 0 &&
    r.deadLettered.length === 0
  );
}

/** The noting versions of the write methods a report follows, over `tx` into `report`. */
function notingMethods(tx: StoreTx, report: () => CommitReport): Partial<StoreTx> {
  return {
    createJob: async (job) => {
      const result = await tx.createJob(job);
      if (result.created) report().created.push(result.job);
      return result;
    },
    setJobState: async (id, from, to, patch) => {
      const moved = await tx.setJobState(id, from, to, patch);
      if (moved && isFinalFlowState(to)) {
        const job = await tx.getJob(id);
        if (job) report().ended.push(job);
      }
      return moved;
    },
    appendHistory: async (entries) => {
      await tx.appendHistory(entries);
      // One at a time: a spread of 100,000 lines would overflow the call's arguments.
      const lines = report().history;
      for (const entry of entries) lines.push(entry);
    },
    deadLetter: async (stream, id, consumer, reason, lastError) => {
      const dead = await tx.deadLetter(stream, id, consumer, reason, lastError);
      if (dead) report().deadLettered.push(stream);
      return dead;
    },
  };
}

/**
 * `store` with transactions that report what they did to `listener` after commit. A
 * backend that runs a transaction's callback again reports only the committed run.
 */
export function reportingCommits(store: Store, listener: CommitListener): Store {
  const transaction: Store['transaction'] = async (fn) => {
    let report = emptyReport();
    const result = await store.transaction((tx) => {
      report = emptyReport();
      return fn(
        overriding(
          tx,
          notingMethods(tx, () => report),
        ),
      );
    });
    if (!isEmpty(report)) listener(report);
    return result;
  };
  // A write outside a transaction commits on its own: reported when it returns.
  const direct = notingMethods(store, () => {
    const report = emptyReport();
    queueMicrotask(() => {
      if (!isEmpty(report)) listener(report);
    });
    return report;
  });
  return overriding(store, { ...direct, transaction });
}
