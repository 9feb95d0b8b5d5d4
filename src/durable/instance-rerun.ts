/**
 * Rerunning a code-first job from a step: the new instance a rerun starts with. It is a
 * fresh start of the same workflow with the same input (`handle` buffered, the old
 * instance's initial properties), whose statuses are the old instance's statuses of the
 * workflow's main code (branch 0, the `handle` branch) recorded before the chosen step,
 * each as it ended, made visible to the first decision (`completion_index` 0). Replaying
 * the main code then finds every kept work's result in the journal and runs none of them;
 * the chosen step has no status, so the code schedules it anew, and everything after it.
 *
 * What is cut: the chosen step and every status recorded after it; the statuses of other
 * branches (handlers of events and of task results, `onEvent`, `onSuccess`…); a kept
 * status that had not ended (dispatched work still running: it runs again when the code
 * meets it); revert states. Child workflows before the cut keep their ids (the step
 * still points at the old child job); tasks, waits and values get work ids of the new job.
 *
 * A step is named as the timeline shows it: its name (`charge`), its name and occurrence
 * among the steps of that name (`charge#2`, counted from 1 in the order they were met),
 * or its work id. Pure.
 */
import { NotFoundError, ValidationError } from '../core/errors.js';
import type { Json } from '../store/records.js';
import { startInstance } from './engine-start.js';
import type { Instance, Status } from './instance.js';

/** The main code's branch: the one `handle` runs on. */
const MAIN_BRANCH = 0;

/** A status's name as the timeline shows it: a wait's is `wait for <event>`, `wait until` or `sleep`. */
function shownName(s: Status): string {
  if (s.type !== 'wait') return s.name;
  const input = (s.input ?? {}) as { event?: unknown; until?: unknown };
  if (typeof input.event === 'string') return `wait for ${input.event}`;
  return typeof input.until === 'number' ? 'wait until' : 'sleep';
}

/** `name#n`: the label of each status, in the order they were met (`#1` left out). */
export function stepLabels(statuses: readonly Status[]): string[] {
  const seen = new Map<string, number>();
  return statuses.map((s) => {
    const name = shownName(s);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}#${n}`;
  });
}

/** The index of `step` in `instance.statuses`: a work id, `name` or `name#n`. */
export function findStep(instance: Instance, step: string, jobId: string): number {
  const byId = instance.statuses.findIndex((s) => s.uuid === step);
  if (byId >= 0) return byId;
  const labels = stepLabels(instance.statuses);
  const wanted = /#1$/.test(step) ? step.slice(0, -2) : step;
  const index = labels.indexOf(wanted);
  if (index < 0) {
    const known = [...new Set(labels)].join(', ') || 'none';
    throw new NotFoundError('step', `${step} in job ${jobId} (its steps: ${known})`);
  }
  return index;
}

/** What {@link cutInstance} made. */
export interface CutInstance {
  instance: Instance;
  /** The labels of the steps kept as recorded results. */
  kept: string[];
  /** The labels of the main code's steps from the cut on (they run again if met again). */
  again: string[];
}

/**
 * The rerun's instance `id`: `old` cut before its status at `cut`, with `input` (the
 * arguments of `handle`). A ValidationError (`RERUN_REFUSED`) when the step is not on
 * the workflow's main code.
 */
export function cutInstance(
  old: Instance,
  cut: number,
  input: readonly Json[],
  id: string,
  now: number,
): CutInstance {
  const chosen = old.statuses[cut] as Status;
  const labels = stepLabels(old.statuses);
  if (chosen.branch_key !== MAIN_BRANCH) {
    throw new ValidationError(
      `cannot rerun ${old.id} from ${labels[cut]}: it ran in a handler (branch ${chosen.branch_key}), not in the workflow's main code`,
      'rerun',
      { code: 'RERUN_REFUSED' },
    );
  }
  const pending = old.properties_pending === true;
  const instance = startInstance({
    id,
    workflowName: old.workflow_name,
    input,
    properties: pending ? null : (old.properties[0]?.values ?? {}),
    customId: id,
    now,
  });
  if (old.on_failure) instance.on_failure = old.on_failure;
  const kept: string[] = [];
  const again: string[] = [];
  old.statuses.forEach((s, i) => {
    if (s.branch_key !== MAIN_BRANCH) return;
    if (i >= cut) {
      again.push(labels[i] as string);
      return;
    }
    if (s.status === 'scheduled') return;
    const { revert_state: _revert, completion_index: _at, ...rest } = s;
    instance.statuses.push({
      ...rest,
      // A child workflow's work id is its job id: the step still names the old child.
      uuid: s.type === 'workflow' ? s.uuid : `${id}.${s.branch_key}.${s.position}`,
      completion_index: 0,
      // Where the work really ran (a rerun of a rerun keeps the first job's name).
      kept_from: s.kept_from ?? old.id,
    });
    kept.push(labels[i] as string);
  });
  return { instance, kept, again };
}
