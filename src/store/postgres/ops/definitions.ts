/**
 * PostgreSQL definition operations: store a (workflow, version) once, by the rule of
 * {@link ../../definition-version.ts}, and read one version, the newest, or the newest of
 * every workflow.
 */
import { DefinitionConflictError } from '../../../core/errors.js';
import {
  checkSameDefinition,
  definitionText,
  type NewDefinition,
} from '../../definition-version.js';
import type { DefinitionRecord, Json } from '../../records.js';
import { type Db, sql } from './context.js';

interface DefinitionRow {
  workflow: string;
  version: number;
  model: DefinitionRecord['model'];
  definition: Json;
  definition_text: string;
  source: string | null;
  created_at: number;
}

function toDefinition(row: DefinitionRow): DefinitionRecord {
  return {
    workflow: row.workflow,
    version: row.version,
    model: row.model,
    definition: row.definition,
    source: row.source,
    createdAt: row.created_at,
  };
}

const COLUMNS =
  'workflow, version, model, definition, definition::text AS definition_text, source, created_at';

const INSERT = sql(
  'definition_insert',
  `INSERT INTO weft_definitions (workflow, version, model, definition, source, created_at)
   VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (workflow, version) DO NOTHING`,
);
const SELECT_ONE = sql(
  'definition_get',
  `SELECT ${COLUMNS} FROM weft_definitions WHERE workflow = $1 AND version = $2`,
);
const SELECT_NEWEST = sql(
  'definition_newest',
  `SELECT ${COLUMNS} FROM weft_definitions WHERE workflow = $1 ORDER BY version DESC LIMIT 1`,
);
const SELECT_ALL = sql(
  'definition_list',
  `SELECT DISTINCT ON (workflow) ${COLUMNS} FROM weft_definitions
   ORDER BY workflow, version DESC`,
);

/** Definition operations. */
export const definitions = {
  /** Stores a version once; the same definition again returns the stored record. */
  async putDefinition(db: Db, def: NewDefinition): Promise<DefinitionRecord> {
    const definition = definitionText(def);
    const createdAt = db.clock.now();
    const source = def.source ?? null;
    const values = [def.workflow, def.version, def.model, definition, source, createdAt];
    if ((await db.count(INSERT, values)) === 1) return { ...def, source, createdAt };
    const [existing] = await db.rows<DefinitionRow>(SELECT_ONE, [def.workflow, def.version]);
    if (!existing) throw new DefinitionConflictError(def.workflow, def.version);
    checkSameDefinition({ model: existing.model, text: existing.definition_text }, def);
    return toDefinition(existing);
  },

  /** Reads one version, or the newest. */
  async getDefinition(
    db: Db,
    workflow: string,
    version?: number,
  ): Promise<DefinitionRecord | undefined> {
    const [row] =
      version === undefined
        ? await db.rows<DefinitionRow>(SELECT_NEWEST, [workflow])
        : await db.rows<DefinitionRow>(SELECT_ONE, [workflow, version]);
    return row ? toDefinition(row) : undefined;
  },

  /** The newest version of every workflow, by workflow name. */
  async listDefinitions(db: Db): Promise<DefinitionRecord[]> {
    return (await db.rows<DefinitionRow>(SELECT_ALL, [])).map(toDefinition);
  },
};
