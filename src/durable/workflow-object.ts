/**
 * A workflow's properties are the JSON-safe own fields of its object: own, enumerable,
 * string-keyed, not functions, not undefined. These helpers read them (failing with a
 * {@link ValidationError} on a Date, Map, class instance…), write them back before a
 * branch runs, and take the initial properties of a definition.
 */
import type { WorkflowDefinition } from './definitions.js';
import { cloneJson, type JsonObject, toJson } from './stable-json.js';
import type { Workflow } from './workflow.js';

function isField(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/** The workflow object's properties, as JSON. */
export function snapshotProperties(workflow: Workflow): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(workflow)) {
    if (isField(value)) out[key] = toJson(value, `workflow property ${key}`);
  }
  return out;
}

/** Sets the workflow object's fields to `properties` (fields absent there are removed). */
export function loadProperties(workflow: Workflow, properties: JsonObject): void {
  const target = workflow as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(workflow)) {
    if (isField(value) && !(key in properties)) delete target[key];
  }
  for (const [key, value] of Object.entries(properties)) target[key] = cloneJson(value);
}

/** `properties(0)` for a new instance: the fields of a fresh workflow object. */
export function initialProperties(definition: WorkflowDefinition<never[], unknown>): JsonObject {
  return snapshotProperties(definition.create());
}
