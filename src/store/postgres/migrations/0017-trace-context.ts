/**
 * PostgreSQL migration 0017: the W3C trace context a job was started in (its
 * `traceparent` and `tracestate`), so the workers that run it continue the trace
 * (docs/tracing.md). Null for a job started without one.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds the columns to `weft_jobs`. */
export const traceContext: Migration = {
  version: 17,
  name: 'trace-context',
  sql: `
ALTER TABLE weft_jobs ADD COLUMN traceparent text;
ALTER TABLE weft_jobs ADD COLUMN tracestate text;
`,
};
