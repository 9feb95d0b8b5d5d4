/**
 * Starting a workflow (the seed's "Starting a Workflow"): an empty history, the initial
 * properties as `properties(0)` (or a placeholder, marked pending, when the starting
 * process lacks the code), and one `handle` action in the buffer. The runtime then
 * calls {@link tryTriggerDecision}.
 */
import { ValidationError } from '../core/errors.js';
import type { Json } from '../store/records.js';
import type { Instance } from './instance.js';
import { type JsonObject, toJson } from './stable-json.js';

/** What {@link startInstance} needs. */
export interface StartInstanceInput {
  /** The instance id (from the runtime's id source). */
  id: string;
  workflowName: string;
  /** The arguments of `handle(...input)`. */
  input: readonly unknown[];
  /**
   * The workflow's initial properties (see `initialProperties`), or null when this
   * process does not have the workflow's code: `properties(0)` is then filled in by the
   * first process with the code that decides for the instance (see
   * `settleInitialProperties`).
   */
  properties: JsonObject | null;
  /** The caller's id; the runtime keeps one instance per custom id. */
  customId?: string | null;
  /** Engine time, epoch ms. */
  now: number;
}

/** A new instance with `handle` buffered. */
export function startInstance(start: StartInstanceInput): Instance {
  if (!start.id) throw new ValidationError('an instance needs an id', 'startInstance.id');
  const input = toJson([...start.input], 'workflow input') as Json[];
  const pending = start.properties === null;
  const properties = toJson(start.properties ?? {}, 'initial properties') as JsonObject;
  return {
    id: start.id,
    custom_id: start.customId ?? null,
    workflow_name: start.workflowName,
    programming_language: 'typescript',
    branches: [],
    executions: [],
    statuses: [],
    waits: [],
    properties: [{ key: 0, values: properties }],
    ...(pending ? { properties_pending: true } : {}),
    buffer: [{ timestamp: start.now, type: 'handle', data: { input }, seq: 0 }],
    buffer_seq: 1,
    ongoing_index: null,
    decision_current_index: 0,
    decision_ongoing: false,
    decision_mode: 'run',
    decision_uuid: null,
    decision_triggered_at: null,
    state: 'running',
    output: null,
    error: null,
    created_at: start.now,
    updated_at: start.now,
  };
}
