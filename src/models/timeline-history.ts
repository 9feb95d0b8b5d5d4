/**
 * The lines of a job's history a timeline is read from (models/step-timeline.ts): the
 * first {@link TIMELINE_HISTORY_LIMIT}, page by page, and whether there were more. The
 * dashboard's job page and `weft status` of a code-first job read the same lines.
 */
import type { HistoryEntry } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** At most this many history lines are read for a timeline (a longer one says `truncated`). */
export const TIMELINE_HISTORY_LIMIT = 20_000;
const HISTORY_PAGE = 1000;

/** The first {@link TIMELINE_HISTORY_LIMIT} lines of job `id`'s history, and whether there were more. */
export async function historyForTimeline(
  reader: Pick<StoreTx, 'historyOfJob'>,
  id: string,
): Promise<{ lines: HistoryEntry[]; truncated: boolean }> {
  const lines: HistoryEntry[] = [];
  let afterSeq = 0;
  for (;;) {
    const page = await reader.historyOfJob(id, { afterSeq, limit: HISTORY_PAGE });
    lines.push(...page);
    if (page.length < HISTORY_PAGE) return { lines, truncated: false };
    if (lines.length >= TIMELINE_HISTORY_LIMIT) return { lines, truncated: true };
    afterSeq = (page.at(-1) as HistoryEntry).seq;
  }
}
