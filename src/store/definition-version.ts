/**
 * The rule of storing a definition version, the same on every backend: a (workflow,
 * version) is stored once, as canonical JSON text (so key order does not matter); storing
 * it again with the same definition and model returns what is stored, with any other a
 * {@link DefinitionConflictError}. The backends keep the SQL.
 */
import { canonicalJson } from '../core/canonical-json.js';
import { DefinitionConflictError } from '../core/errors.js';
import type { DefinitionRecord } from './records.js';

/** A definition version to store. */
export type NewDefinition = Omit<DefinitionRecord, 'createdAt'>;

/** The text a definition is stored and compared as. */
export function definitionText(def: NewDefinition): string {
  return canonicalJson(def.definition);
}

/**
 * Checks `def` against the version already stored (its model and canonical text); throws
 * DefinitionConflictError when they differ.
 */
export function checkSameDefinition(
  stored: { model: string; text: string },
  def: NewDefinition,
): void {
  if (stored.text !== definitionText(def) || stored.model !== def.model) {
    throw new DefinitionConflictError(def.workflow, def.version);
  }
}
