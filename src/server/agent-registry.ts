/**
 * What the agents of one server can run: code-first workflow names (their decisions come
 * from `decide:<workflow>`) and task names (their works come from `task:<name>`).
 * Registering a workflow stores it as a code-first definition, so clients can start it by
 * name; registering anything subscribes to its stream's notices, which wake long polls.
 */
import { ValidationError } from '../core/errors.js';
import { decisionStream } from '../durable/durable-messages.js';
import { putCodeFirstDefinition } from '../durable/stored-definition.js';
import { taskStream } from '../engine/messages.js';
import type { Store } from '../store/store.js';
import { WakeUp } from '../worker/wake-up.js';

/** One stream the job endpoint claims from. */
export interface AgentSource {
  kind: 'decision' | 'task';
  /** The workflow or task name. */
  name: string;
  stream: string;
}

/** Names to restrict a job request to (absent: everything registered). */
export interface SourceFilter {
  workflows?: readonly string[];
  tasks?: readonly string[];
}

/**
 * Most workflow names, and most task names, one server registers: each name is a stream
 * a job request may claim from, one store transaction each, so the bound keeps what one
 * request can cost bounded.
 */
export const MAX_REGISTERED_NAMES = 200;

/** The registered workflow and task names of one server, in registration order. */
export class AgentRegistry {
  /** Woken by a notice on any registered stream. */
  readonly wake = new WakeUp();
  private readonly workflowSet = new Map<string, Promise<void>>();
  private readonly taskSet = new Map<string, Promise<void>>();

  constructor(private readonly store: Store) {}

  /** Registered workflow names. */
  get workflows(): string[] {
    return [...this.workflowSet.keys()];
  }

  /** Registered task names. */
  get tasks(): string[] {
    return [...this.taskSet.keys()];
  }

  /**
   * Registers names (again is a no-op). A workflow already stored as a graph workflow
   * under version 1 is refused with `DefinitionConflictError`, and stays unregistered.
   * Names that would take either kind past {@link MAX_REGISTERED_NAMES} are refused
   * (ValidationError TOO_MANY_NAMES) and none of them is registered.
   */
  async register(names: SourceFilter): Promise<void> {
    this.checkRoom(this.workflowSet, names.workflows ?? [], 'workflows');
    this.checkRoom(this.taskSet, names.tasks ?? [], 'tasks');
    const pending: Promise<void>[] = [];
    for (const name of names.workflows ?? []) {
      pending.push(this.once(this.workflowSet, name, () => this.addWorkflow(name)));
    }
    for (const name of names.tasks ?? []) {
      pending.push(this.once(this.taskSet, name, () => this.listen(taskStream(name))));
    }
    await Promise.all(pending);
  }

  private checkRoom(set: Map<string, unknown>, names: readonly string[], kind: string): void {
    const added = new Set(names.filter((n) => !set.has(n))).size;
    if (set.size + added > MAX_REGISTERED_NAMES) {
      throw new ValidationError(
        `${set.size} ${kind} are registered, and this server takes at most ${MAX_REGISTERED_NAMES}`,
        kind,
        { code: 'TOO_MANY_NAMES' },
      );
    }
  }

  private once(set: Map<string, Promise<void>>, name: string, add: () => Promise<void>) {
    const known = set.get(name);
    if (known) return known;
    const adding = add().catch((error: unknown) => {
      set.delete(name);
      throw error;
    });
    set.set(name, adding);
    return adding;
  }

  private async addWorkflow(name: string): Promise<void> {
    await putCodeFirstDefinition(this.store, name);
    await this.listen(decisionStream(name));
  }

  private listen(stream: string): Promise<void> {
    return this.wake.listen(this.store, [{ kind: 'stream', name: stream }]);
  }

  /**
   * The streams to claim from, decisions first (a decision is short and unblocks
   * further work), each kind in registration order; a filter keeps only its names.
   */
  sources(filter: SourceFilter = {}): AgentSource[] {
    const pick = (names: string[], only?: readonly string[]) =>
      only ? names.filter((n) => only.includes(n)) : names;
    return [
      ...pick(this.workflows, filter.workflows).map((name) => ({
        kind: 'decision' as const,
        name,
        stream: decisionStream(name),
      })),
      ...pick(this.tasks, filter.tasks).map((name) => ({
        kind: 'task' as const,
        name,
        stream: taskStream(name),
      })),
    ];
  }

  /** Stops listening for notices. */
  async close(): Promise<void> {
    await this.wake.close();
  }
}
