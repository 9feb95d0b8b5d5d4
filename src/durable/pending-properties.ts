/**
 * Initial properties computed where the code is. A process without a workflow's code (a
 * client, a worker starting a child it has no code for) cannot know the workflow's class
 * fields or `properties: {…}`, so it starts the instance with `properties(0)` pending.
 * The first process with the code to run a decision for the instance settles them here,
 * before the decision reads them; nothing reads `properties(0)` before that decision.
 */
import type { WorkflowDefinition } from './definitions.js';
import type { Instance } from './instance.js';
import { initialProperties } from './workflow-object.js';

/**
 * The instance with `properties(0)` set to `definition`'s initial properties when they
 * were pending; otherwise the same instance. Properties entries recorded after index 0
 * (none, before the first decision) are kept.
 */
export function settleInitialProperties(
  instance: Instance,
  definition: WorkflowDefinition<never[], unknown>,
): Instance {
  if (!instance.properties_pending) return instance;
  const { properties_pending: _pending, ...rest } = instance;
  return {
    ...rest,
    properties: [
      { key: 0, values: initialProperties(definition) },
      ...instance.properties.filter((entry) => entry.key !== 0),
    ],
  };
}

/**
 * The instance with its pending mark dropped: a decision made elsewhere (an HTTP agent)
 * has read `properties(0)` as they stand, so they are history now.
 */
export function settledAsIs(instance: Instance): Instance {
  if (!instance.properties_pending) return instance;
  const { properties_pending: _pending, ...rest } = instance;
  return rest;
}
