/**
 * What a job listing asks for, the same on every backend: a {@link JobFilter} made
 * explicit — the states as a list, time bounds in whole milliseconds (the stored times
 * are whole), the page size defaulted (100) and never negative. The backends turn it into
 * SQL.
 */
import type { FlowState } from '../core/states.js';
import type { JobFilter } from './records.js';

/** The default page size of a job listing. */
export const DEFAULT_JOB_PAGE = 100;

/** A job listing, normalized. Absent fields do not filter. */
export interface JobQuery {
  states?: FlowState[];
  workflow?: string;
  parentId?: string;
  /** `createdAt >= createdFrom`. */
  createdFrom?: number;
  /** `createdAt < createdBefore`. */
  createdBefore?: number;
  /** Keyset paging: ids after this one in the listing's order. */
  after?: string;
  /** Newest (greatest id) first. */
  descending: boolean;
  limit: number;
}

/** The query for `filter`; undefined when no job can match (an empty list of states). */
export function jobQuery(filter: JobFilter = {}): JobQuery | undefined {
  const query: JobQuery = {
    descending: filter.descending === true,
    limit: Math.max(0, Math.floor(filter.limit ?? DEFAULT_JOB_PAGE)),
  };
  if (filter.state !== undefined) {
    query.states = Array.isArray(filter.state) ? filter.state : [filter.state];
    if (query.states.length === 0) return undefined;
  }
  if (filter.workflow !== undefined) query.workflow = filter.workflow;
  if (filter.parentId !== undefined) query.parentId = filter.parentId;
  // Stored times are whole milliseconds: rounding a bound up keeps `>=` and `<` exact.
  if (filter.createdAfter !== undefined) query.createdFrom = Math.ceil(filter.createdAfter);
  if (filter.createdBefore !== undefined) query.createdBefore = Math.ceil(filter.createdBefore);
  if (filter.after !== undefined) query.after = filter.after;
  return query;
}
