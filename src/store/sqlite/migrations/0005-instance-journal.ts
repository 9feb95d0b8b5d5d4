/**
 * SQLite migration 0005: code-first instances become append-only journals. Until now a
 * job's `context` held its whole instance, rewritten on every step; from here on it holds
 * only the instance's head (its scalar fields, `journal`: how many entries it has, and
 * `rev`), and its branches, executions, statuses, properties versions, waits and buffer
 * are entries of `weft_journal`, one per item, appended as they come.
 *
 * Instances stored before this migration are converted in place: each item of each array
 * becomes one entry (kind, key: its index — or a wait's uuid, a buffered action's seq —
 * and data: the item), numbered in the order branches, executions, statuses, properties,
 * waits, buffer; then the arrays leave the context. (Version 4 is another change's.)
 */
import type { Migration } from '../../migration-plan.js';

/** The journal table, and today's instances moved into it. */
export const instanceJournal: Migration = {
  version: 5,
  name: 'instance-journal',
  sql: `
CREATE TABLE weft_journal (
  job TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (job, seq)
);

CREATE TEMP TABLE weft_legacy_instances AS
  SELECT id, context FROM weft_jobs
  WHERE model = 'durable' AND json_type(context, '$.branches') = 'array';

INSERT INTO weft_journal (job, seq, kind, key, data)
SELECT job, row_number() OVER (PARTITION BY job ORDER BY part, n), kind, key, data
FROM (
  SELECT i.id AS job, 1 AS part, e.key AS n, 'branch' AS kind, CAST(e.key AS TEXT) AS key,
         json(e.value) AS data
    FROM weft_legacy_instances i, json_each(i.context, '$.branches') e
  UNION ALL
  SELECT i.id, 2, e.key, 'execution', CAST(e.key AS TEXT), json(e.value)
    FROM weft_legacy_instances i, json_each(i.context, '$.executions') e
  UNION ALL
  SELECT i.id, 3, e.key, 'status', CAST(e.key AS TEXT), json(e.value)
    FROM weft_legacy_instances i, json_each(i.context, '$.statuses') e
  UNION ALL
  SELECT i.id, 4, e.key, 'properties', CAST(e.key AS TEXT), json(e.value)
    FROM weft_legacy_instances i, json_each(i.context, '$.properties') e
  UNION ALL
  SELECT i.id, 5, e.key, 'wait', json_extract(e.value, '$.uuid'), json(e.value)
    FROM weft_legacy_instances i, json_each(i.context, '$.waits') e
  UNION ALL
  SELECT i.id, 6, e.key, 'buffer', CAST(json_extract(e.value, '$.seq') AS TEXT), json(e.value)
    FROM weft_legacy_instances i, json_each(i.context, '$.buffer') e
);

UPDATE weft_jobs SET context = json_set(
    json_remove(context, '$.branches', '$.executions', '$.statuses', '$.properties',
      '$.waits', '$.buffer'),
    '$.journal', (SELECT COUNT(*) FROM weft_journal j WHERE j.job = weft_jobs.id),
    '$.rev', 'migrated')
  WHERE id IN (SELECT id FROM weft_legacy_instances);

DROP TABLE weft_legacy_instances;
`,
};
