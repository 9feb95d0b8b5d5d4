/**
 * SQLite definition operations: store a (workflow, version) once, by the rule of
 * {@link ../../definition-version.ts}, and read one version, the newest, or the newest of
 * every workflow.
 */
import {
  checkSameDefinition,
  definitionText,
  type NewDefinition,
} from '../../definition-version.js';
import type { DefinitionRecord } from '../../records.js';
import { fromJson, type OpsContext, type Statement } from './context.js';

interface DefinitionRow {
  workflow: string;
  version: number;
  model: DefinitionRecord['model'];
  definition: string;
  source: string | null;
  created_at: number;
}

function toDefinition(row: DefinitionRow): DefinitionRecord {
  return {
    workflow: row.workflow,
    version: row.version,
    model: row.model,
    definition: fromJson(row.definition),
    source: row.source,
    createdAt: row.created_at,
  };
}

/** Definition operations on one connection. */
export class SqliteDefinitions {
  private readonly insert: Statement;
  private readonly selectOne: Statement;
  private readonly selectNewest: Statement;
  private readonly selectAll: Statement;

  constructor(private readonly ctx: OpsContext) {
    const { db } = ctx;
    this.insert = db.prepare(`INSERT INTO weft_definitions
      (workflow, version, model, definition, source, created_at)
      VALUES (@workflow, @version, @model, @definition, @source, @created_at)`);
    this.selectOne = db.prepare(
      'SELECT * FROM weft_definitions WHERE workflow = ? AND version = ?',
    );
    this.selectNewest = db.prepare(
      'SELECT * FROM weft_definitions WHERE workflow = ? ORDER BY version DESC LIMIT 1',
    );
    this.selectAll = db.prepare(`SELECT d.* FROM weft_definitions d
      WHERE d.version = (SELECT MAX(version) FROM weft_definitions WHERE workflow = d.workflow)
      ORDER BY d.workflow`);
  }

  /** Stores a version once; the same definition again returns the stored record. */
  putDefinition(def: NewDefinition): DefinitionRecord {
    const definition = definitionText(def);
    const existing = this.selectOne.get(def.workflow, def.version) as DefinitionRow | undefined;
    if (existing) {
      checkSameDefinition({ model: existing.model, text: existing.definition }, def);
      return toDefinition(existing);
    }
    const createdAt = this.ctx.clock.now();
    this.insert.run({
      workflow: def.workflow,
      version: def.version,
      model: def.model,
      definition,
      source: def.source ?? null,
      created_at: createdAt,
    });
    return { ...def, source: def.source ?? null, createdAt };
  }

  /** Reads one version, or the newest. */
  getDefinition(workflow: string, version?: number): DefinitionRecord | undefined {
    const row = (
      version === undefined
        ? this.selectNewest.get(workflow)
        : this.selectOne.get(workflow, version)
    ) as DefinitionRow | undefined;
    return row ? toDefinition(row) : undefined;
  }

  /** The newest version of every workflow, by workflow name. */
  listDefinitions(): DefinitionRecord[] {
    return (this.selectAll.all() as DefinitionRow[]).map(toDefinition);
  }
}
