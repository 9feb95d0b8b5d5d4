/**
 * PostgreSQL migration 0005: code-first instances become append-only journals. Until now
 * a job's `context` held its whole instance, rewritten on every step; from here on it
 * holds only the instance's head (its scalar fields, `journal`: how many entries it has,
 * and `rev`), and its branches, executions, statuses, properties versions, waits and
 * buffer are entries of `weft_journal`, one per item, appended as they come.
 *
 * Instances stored before this migration are converted in place: each item of each array
 * becomes one entry (kind, key: its index — or a wait's uuid, a buffered action's seq —
 * and data: the item, as written), numbered in the order branches, executions, statuses,
 * properties, waits, buffer; then the context keeps the head's fields only. The values
 * stay `json` (not `jsonb`), so outputs keep their key order. (Version 4 is another
 * change's.)
 */
import type { Migration } from '../../migration-plan.js';

/** The journal table, and today's instances moved into it. */
export const instanceJournal: Migration = {
  version: 5,
  name: 'instance-journal',
  sql: `
CREATE TABLE weft_journal (
  job text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  kind text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  data json NOT NULL,
  PRIMARY KEY (job, seq)
);

CREATE TEMP TABLE weft_legacy_instances ON COMMIT DROP AS
  SELECT id, context FROM weft_jobs
  WHERE model = 'durable' AND json_typeof(context -> 'branches') = 'array';

INSERT INTO weft_journal (job, seq, kind, key, data)
SELECT job, row_number() OVER (PARTITION BY job ORDER BY part, n), kind, key, data
FROM (
  SELECT i.id AS job, 1 AS part, e.n, 'branch' AS kind, (e.n - 1)::text AS key, e.v AS data
    FROM weft_legacy_instances i, json_array_elements(i.context -> 'branches') WITH ORDINALITY e(v, n)
  UNION ALL
  SELECT i.id, 2, e.n, 'execution', (e.n - 1)::text, e.v
    FROM weft_legacy_instances i, json_array_elements(i.context -> 'executions') WITH ORDINALITY e(v, n)
  UNION ALL
  SELECT i.id, 3, e.n, 'status', (e.n - 1)::text, e.v
    FROM weft_legacy_instances i, json_array_elements(i.context -> 'statuses') WITH ORDINALITY e(v, n)
  UNION ALL
  SELECT i.id, 4, e.n, 'properties', (e.n - 1)::text, e.v
    FROM weft_legacy_instances i, json_array_elements(i.context -> 'properties') WITH ORDINALITY e(v, n)
  UNION ALL
  SELECT i.id, 5, e.n, 'wait', e.v ->> 'uuid', e.v
    FROM weft_legacy_instances i, json_array_elements(i.context -> 'waits') WITH ORDINALITY e(v, n)
  UNION ALL
  SELECT i.id, 6, e.n, 'buffer', e.v ->> 'seq', e.v
    FROM weft_legacy_instances i, json_array_elements(i.context -> 'buffer') WITH ORDINALITY e(v, n)
) entries;

UPDATE weft_jobs j SET context = json_build_object(
    'id', c -> 'id',
    'custom_id', c -> 'custom_id',
    'workflow_name', c -> 'workflow_name',
    'programming_language', c -> 'programming_language',
    'properties_pending', c -> 'properties_pending',
    'buffer_seq', c -> 'buffer_seq',
    'ongoing_index', c -> 'ongoing_index',
    'decision_current_index', c -> 'decision_current_index',
    'decision_ongoing', c -> 'decision_ongoing',
    'decision_mode', c -> 'decision_mode',
    'decision_uuid', c -> 'decision_uuid',
    'decision_triggered_at', c -> 'decision_triggered_at',
    'state', c -> 'state',
    'output', c -> 'output',
    'error', c -> 'error',
    'created_at', c -> 'created_at',
    'updated_at', c -> 'updated_at',
    'journal', (SELECT count(*) FROM weft_journal w WHERE w.job = j.id),
    'rev', 'migrated')
  FROM (SELECT id, context AS c FROM weft_legacy_instances) legacy
  WHERE j.id = legacy.id;
`,
};
