/**
 * A code-first workflow's definition record. Its code lives in the processes that run it
 * (workers, HTTP agents); the store keeps only its name, under one version, so clients can
 * start it by name and a graph workflow cannot take the name.
 */
import type { DefinitionRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { DURABLE_VERSION } from './durable-engine.js';

/**
 * Stores workflow `name` as code-first (again is a no-op); a graph workflow stored under
 * the same name and version is a `DefinitionConflictError`.
 */
export function putCodeFirstDefinition(
  store: Pick<Store, 'putDefinition'>,
  name: string,
): Promise<DefinitionRecord> {
  return store.putDefinition({
    workflow: name,
    version: DURABLE_VERSION,
    model: 'durable',
    definition: { workflow: name },
    source: null,
  });
}
