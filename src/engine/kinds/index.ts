/**
 * The table of activity kinds: every kind weft runs, each one module. The compiler
 * (`../compiler.ts`) and the engine both read this table and nothing else about kinds.
 */
import type { z } from 'zod';
import type { CompiledWorkflow as CompiledGraph } from '../../graph/compiled-workflow.js';
import type { ActivityKind } from './activity-kind.js';
import { awaitKind, type CompiledAwait } from './await.js';
import { type CompiledCycle, cycle } from './cycle.js';
import { type CompiledHook, hook } from './hook.js';
import { type CompiledScope, scope } from './scope.js';
import { type CompiledSleep, sleep } from './sleep.js';
import { type CompiledTask, task } from './task.js';
import { type CompiledTrigger, trigger } from './trigger.js';

/** Every activity kind, in the order messages and the JSON Schema list them. */
export const KINDS = [trigger, task, hook, sleep, awaitKind, cycle, scope] as const;

/** An activity kind's name. */
export type ActivityKindName = (typeof KINDS)[number]['kind'];

/** One compiled activity, of any kind. */
export type CompiledActivity =
  | CompiledTrigger
  | CompiledTask
  | CompiledHook
  | CompiledSleep
  | CompiledAwait
  | CompiledCycle
  | CompiledScope;

/** A compiled graph workflow of weft's kinds. */
export type CompiledWorkflow = CompiledGraph<CompiledActivity>;

/** One activity of a workflow document, of any kind. */
export type ActivityDocument = z.input<(typeof KINDS)[number]['document']>;

const byName = new Map<string, ActivityKind>(
  KINDS.map((k) => [k.kind, k as unknown as ActivityKind]),
);

/** The kind module of an activity. */
export function kindOf(activity: { kind: string }): ActivityKind {
  const kind = byName.get(activity.kind);
  if (!kind) throw new Error(`no activity kind ${JSON.stringify(activity.kind)}`);
  return kind;
}
