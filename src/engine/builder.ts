/**
 * The typed TypeScript builder: the same document a YAML file holds, made in code and
 * compiled by the same compiler. Each activity method adds its id to the builder's type,
 * so a transition from or to an id not declared yet, or a cycle ancestor that is not an
 * activity, is a TypeScript error.
 *
 * ```ts
 * const order = workflow('order')
 *   .trigger('start')
 *   .task('charge', { input: "{ 'amount': input.amount }", retry: { attempts: 3, backoff: '200ms' } })
 *   .task('refund')
 *   .transition('start', 'charge')
 *   .transition('charge', 'refund', { on: 'error' })
 *   .compile();
 * ```
 */
import { WorkflowDefinitionError } from '../core/errors.js';
import type { Duration } from '../graph/durations.js';
import {
  type ActivityDocument,
  type CompileOptions,
  compileWorkflow,
  type TransitionItemDocument,
  type WorkflowDocument,
} from './compiler.js';
import type { CompiledWorkflow } from './kinds/index.js';

type Kind = ActivityDocument['kind'];
/** The fields of one activity kind, without `kind`. */
export type ActivityOptions<K extends Kind> = Omit<Extract<ActivityDocument, { kind: K }>, 'kind'>;
/** The options of a transition: condition and outcome. */
export type TransitionOptions = Omit<Extract<TransitionItemDocument, object>, 'to'>;

interface State {
  workflow: string;
  version?: number;
  description?: string;
  input?: Record<string, unknown>;
  activities: [string, ActivityDocument][];
  transitions: [string, TransitionItemDocument][];
  output?: string;
  timeout?: Duration;
}

/** Builds a workflow document; `Ids` are the activity ids declared so far. */
export class WorkflowBuilder<Ids extends string = never> {
  /** Use {@link workflow} to start one. */
  constructor(private readonly state: State) {}

  private with<More extends string = never>(patch: Partial<State>): WorkflowBuilder<Ids | More> {
    return new WorkflowBuilder<Ids | More>({ ...this.state, ...patch });
  }

  /** Sets the version (a positive integer; default 1). */
  version(version: number): WorkflowBuilder<Ids> {
    return this.with({ version });
  }

  /** Sets the free-text description. */
  describe(description: string): WorkflowBuilder<Ids> {
    return this.with({ description });
  }

  /** Sets the JSON Schema a job input must satisfy. */
  input(schema: Record<string, unknown>): WorkflowBuilder<Ids> {
    return this.with({ input: schema });
  }

  /** Sets the JSONata expression producing the job output. */
  output(expression: string): WorkflowBuilder<Ids> {
    return this.with({ output: expression });
  }

  /**
   * Sets the job execution timeout (`timeout:` in a file): a job still running this long
   * after its start ends FAILURE with a JobTimeoutError, and its child jobs with it.
   */
  timeout(duration: Duration): WorkflowBuilder<Ids> {
    return this.with({ timeout: duration });
  }

  /** Adds an activity of any kind. */
  activity<Id extends string>(id: Id, activity: ActivityDocument): WorkflowBuilder<Ids | Id> {
    return this.with<Id>({ activities: [...this.state.activities, [id, activity]] });
  }

  /** Adds the trigger (exactly one per workflow). */
  trigger<Id extends string>(
    id: Id,
    options: ActivityOptions<'trigger'> = {},
  ): WorkflowBuilder<Ids | Id> {
    return this.activity(id, { kind: 'trigger', ...options });
  }

  /** Adds a task (handler name defaults to the id). */
  task<Id extends string>(
    id: Id,
    options: ActivityOptions<'task'> = {},
  ): WorkflowBuilder<Ids | Id> {
    return this.activity(id, { kind: 'task', ...options });
  }

  /** Adds a hook that pauses until a signal (name defaults to the id). */
  hook<Id extends string>(
    id: Id,
    options: ActivityOptions<'hook'> = {},
  ): WorkflowBuilder<Ids | Id> {
    return this.activity(id, { kind: 'hook', ...options });
  }

  /** Adds a sleep. */
  sleep<Id extends string>(id: Id, options: ActivityOptions<'sleep'>): WorkflowBuilder<Ids | Id> {
    return this.activity(id, { kind: 'sleep', ...options });
  }

  /** Adds an await: starts a child job of another workflow (and waits for it by default). */
  await<Id extends string>(id: Id, options: ActivityOptions<'await'>): WorkflowBuilder<Ids | Id> {
    return this.activity(id, { kind: 'await', ...options });
  }

  /** Adds a cycle that re-enters `ancestor`, a declared activity upstream of it. */
  cycle<Id extends string>(
    id: Id,
    options: Omit<ActivityOptions<'cycle'>, 'ancestor'> & { ancestor: Ids },
  ): WorkflowBuilder<Ids | Id> {
    return this.activity(id, { kind: 'cycle', ...options });
  }

  /** Adds a transition between two declared activities. */
  transition(from: Ids, to: Ids, options?: TransitionOptions): WorkflowBuilder<Ids> {
    const item: TransitionItemDocument =
      options && Object.keys(options).length ? { to, ...options } : to;
    return this.with({ transitions: [...this.state.transitions, [from, item]] });
  }

  /**
   * The workflow document, exactly what the equivalent YAML holds. Throws
   * {@link WorkflowDefinitionError} when an activity id was declared twice.
   */
  build(): WorkflowDocument {
    const { workflow, version, description, input, output, timeout } = this.state;
    const activities: Record<string, ActivityDocument> = {};
    const duplicates = new Set<string>();
    for (const [id, activity] of this.state.activities) {
      if (Object.hasOwn(activities, id)) duplicates.add(id);
      activities[id] = activity;
    }
    if (duplicates.size > 0) {
      throw new WorkflowDefinitionError(
        [...duplicates].map((id) => ({
          message: `duplicate activity id ${JSON.stringify(id)}`,
          activity: id,
          path: `activities.${id}`,
        })),
      );
    }
    const transitions: Record<string, TransitionItemDocument[]> = {};
    for (const [from, item] of this.state.transitions) {
      if (!Object.hasOwn(transitions, from)) transitions[from] = [];
      transitions[from]!.push(item);
    }
    return {
      workflow,
      ...(version !== undefined && { version }),
      ...(description !== undefined && { description }),
      ...(input !== undefined && { input }),
      activities,
      ...(this.state.transitions.length > 0 && { transitions }),
      ...(output !== undefined && { output }),
      ...(timeout !== undefined && { timeout }),
    };
  }

  /** Builds and compiles; see {@link compileWorkflow}. */
  compile(options?: CompileOptions): CompiledWorkflow {
    return compileWorkflow(this.build(), options);
  }
}

/** Starts a workflow builder for the workflow `id`. */
export function workflow(id: string): WorkflowBuilder {
  return new WorkflowBuilder({ workflow: id, activities: [], transitions: [] });
}
