/**
 * The task names deployed graph workflows send work to — each task activity's handler
 * and its revert handler — in their newest versions, with the workflows that name each:
 * what `weft worker` compares its handlers module with when it starts.
 */
import type { CompiledWorkflow } from '../engine/kinds/index.js';
import type { StoreTx } from '../store/store.js';

/** Each task name the newest deployed graph workflows use, with those workflows (sorted). */
export async function deployedTasks(
  tx: Pick<StoreTx, 'listDefinitions'>,
): Promise<Map<string, string[]>> {
  const tasks = new Map<string, Set<string>>();
  const add = (task: string, workflow: string) => {
    const workflows = tasks.get(task) ?? new Set<string>();
    workflows.add(workflow);
    tasks.set(task, workflows);
  };
  for (const record of await tx.listDefinitions()) {
    if (record.model !== 'graph') continue;
    const compiled = record.definition as unknown as CompiledWorkflow;
    for (const activity of Object.values(compiled.activities ?? {})) {
      if (activity.kind !== 'task') continue;
      add(activity.task, record.workflow);
      if (activity.revert) add(activity.revert, record.workflow);
    }
  }
  return new Map(
    [...tasks.keys()].sort().map((task) => [task, [...(tasks.get(task) ?? [])].sort()]),
  );
}
