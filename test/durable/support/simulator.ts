/**
 * A deterministic, in-memory stand-in for the runtime: it plays engine, agent and
 * workers for code-first workflows, with no store and a hand-moved clock. Tests either
 * drive it step by step (decide, start a work, complete it, send an event, advance
 * time) in a chosen order, or let {@link Simulator.run} drive everything to the end.
 */

import {
  type Action,
  applyDecisions,
  type DecisionOutcome,
  type DecisionRequest,
  type Effect,
  type EngineResult,
  errorRecordOf,
  type Instance,
  initialProperties,
  pauseInstance,
  receiveAction,
  resumeInstance,
  runDecision,
  seededValueSource,
  startInstance,
  type TaskDefinition,
  terminateInstance,
  tryTriggerDecision,
  type ValueSource,
  type WorkflowDefinition,
} from '../../../src/durable/index.js';
import type { ErrorRecord, Json } from '../../../src/store/records.js';

type AnyWorkflow = WorkflowDefinition<never[], unknown>;
type AnyTask = TaskDefinition<never, unknown>;

/** A work the simulated workers know about. */
export interface SimWork {
  instance: string;
  uuid: string;
  kind: 'task' | 'workflow';
  name: string;
  input: Json;
  sync: boolean;
  state: 'scheduled' | 'started' | 'done';
}

/** A running timer. */
interface SimTimer {
  instance: string;
  uuid: string;
  at: number;
}

/** Options of a simulator. */
export interface SimulatorOptions {
  workflows: AnyWorkflow[];
  tasks?: AnyTask[];
  /** Start time, epoch ms. */
  now?: number;
  values?: ValueSource;
}

/** The in-memory runtime. */
export class Simulator {
  now: number;
  readonly instances = new Map<string, Instance>();
  readonly pending = new Map<string, DecisionRequest>();
  readonly works: SimWork[] = [];
  readonly timers: SimTimer[] = [];
  /** Every effect, with its instance, in order. */
  readonly effects: { instance: string; effect: Effect }[] = [];
  /** Every decision request, in order. */
  readonly requests: DecisionRequest[] = [];
  /** Decision outcomes, in order. */
  readonly outcomes: DecisionOutcome[] = [];
  private readonly workflows = new Map<string, AnyWorkflow>();
  private readonly tasks = new Map<string, AnyTask>();
  private readonly parents = new Map<string, { instance: string; uuid: string }>();
  private readonly values: ValueSource;
  private decisionCount = 0;
  private instanceCount = 0;

  constructor(options: SimulatorOptions) {
    this.now = options.now ?? Date.UTC(2026, 0, 1);
    for (const w of options.workflows) this.workflows.set(w.name, w);
    for (const t of options.tasks ?? []) this.tasks.set(t.name, t);
    this.values = options.values ?? seededValueSource(7, this.now);
  }

  /** Replaces a workflow's code (a new deployment under the same name). */
  deploy(workflow: WorkflowDefinition<never[], unknown>): void {
    this.workflows.set(workflow.name, workflow);
  }

  /** An instance by id. */
  instance(id: string): Instance {
    const found = this.instances.get(id);
    if (!found) throw new Error(`no instance ${id}`);
    return found;
  }

  /** Starts a workflow; its first decision is then pending. */
  start<A extends unknown[]>(
    workflow: WorkflowDefinition<A, unknown>,
    input: A,
    options: { id?: string; customId?: string } = {},
  ): string {
    const def = this.workflows.get(workflow.name) ?? (workflow as unknown as AnyWorkflow);
    this.workflows.set(def.name, def);
    this.instanceCount += 1;
    const id = options.id ?? `wf-${this.instanceCount}`;
    const instance = startInstance({
      id,
      workflowName: def.name,
      input,
      properties: initialProperties(def),
      customId: options.customId ?? null,
      now: this.now,
    });
    this.instances.set(id, instance);
    this.trigger(id);
    return id;
  }

  private commit(id: string, result: EngineResult): void {
    this.instances.set(id, result.instance);
    for (const effect of result.effects) this.perform(id, effect);
  }

  private trigger(id: string): void {
    this.decisionCount += 1;
    const uuid = `decision-${this.decisionCount}`;
    const { instance, request } = tryTriggerDecision(this.instance(id), { now: this.now, uuid });
    this.instances.set(id, instance);
    if (request) {
      this.pending.set(id, request);
      this.requests.push(request);
    }
  }

  private perform(id: string, effect: Effect): void {
    this.effects.push({ instance: id, effect });
    switch (effect.type) {
      case 'scheduleTask':
        this.works.push({
          instance: id,
          uuid: effect.uuid,
          kind: 'task',
          name: effect.name,
          input: effect.input,
          sync: effect.sync,
          state: 'scheduled',
        });
        return;
      case 'startChild': {
        this.works.push({
          instance: id,
          uuid: effect.uuid,
          kind: 'workflow',
          name: effect.workflow,
          input: effect.input,
          sync: effect.sync,
          state: 'started',
        });
        const child = this.workflows.get(effect.workflow);
        if (!child) throw new Error(`no workflow ${effect.workflow}`);
        this.parents.set(effect.uuid, { instance: id, uuid: effect.uuid });
        this.start(child, effect.input as never[], { id: effect.uuid });
        this.act(id, { type: 'onStart', uuid: effect.uuid });
        return;
      }
      case 'startWait':
        if (effect.at !== undefined)
          this.timers.push({ instance: id, uuid: effect.uuid, at: effect.at });
        return;
      case 'cancelWait': {
        const i = this.timers.findIndex((t) => t.uuid === effect.uuid);
        if (i >= 0) this.timers.splice(i, 1);
        return;
      }
      case 'sendEvent':
        if (this.instances.has(effect.instance)) {
          this.act(effect.instance, { type: 'onEvent', name: effect.name, data: effect.data });
        }
        return;
      case 'finished':
      case 'failed': {
        const parent = this.parents.get(id);
        if (!parent) return;
        const work = this.works.find((w) => w.uuid === parent.uuid);
        if (work) work.state = 'done';
        const action: Action =
          effect.type === 'finished'
            ? { type: 'onSuccess', uuid: parent.uuid, output: effect.output }
            : { type: 'onFailure', uuid: parent.uuid, error: effect.error };
        this.act(parent.instance, action);
        return;
      }
      default:
        return;
    }
  }

  /** Delivers an action to an instance and tries to trigger a decision. */
  act(id: string, action: Action): void {
    this.commit(id, receiveAction(this.instance(id), action, this.now));
    this.trigger(id);
  }

  private only(id?: string): string {
    if (id) return id;
    const [first] = [...this.pending.keys()];
    if (!first) throw new Error('no decision pending');
    return first;
  }

  /** Runs the pending decision of an instance without applying it. */
  async compute(id?: string): Promise<{ id: string; outcome: DecisionOutcome }> {
    const target = this.only(id);
    const request = this.pending.get(target);
    if (!request) throw new Error(`no decision pending for ${target}`);
    const def = this.workflows.get(request.workflow_name);
    if (!def) throw new Error(`no workflow ${request.workflow_name}`);
    const outcome = await runDecision(request, def, { values: this.values });
    this.outcomes.push(outcome);
    return { id: target, outcome };
  }

  /** Applies a computed decision. */
  apply(id: string, outcome: DecisionOutcome): void {
    this.pending.delete(id);
    this.commit(id, applyDecisions(this.instance(id), outcome, this.now));
    this.trigger(id);
  }

  /** Runs and applies the pending decision of an instance (or the only one pending). */
  async decide(id?: string): Promise<DecisionOutcome> {
    const { id: target, outcome } = await this.compute(id);
    this.apply(target, outcome);
    return outcome;
  }

  /** The first work matching a task name (or uuid) in a state. */
  work(match: string, state?: SimWork['state']): SimWork {
    const found = this.works.find(
      (w) => (w.name === match || w.uuid === match) && (state === undefined || w.state === state),
    );
    if (!found) throw new Error(`no work ${match}${state ? ` (${state})` : ''}`);
    return found;
  }

  /** A worker picks up a scheduled task. */
  startWork(match: string): void {
    const work = this.work(match, 'scheduled');
    work.state = 'started';
    this.act(work.instance, { type: 'onStart', uuid: work.uuid });
  }

  /** A worker runs a started task and reports its output or its failure. */
  async completeWork(match: string): Promise<void> {
    const work = this.work(match, 'started');
    const task = this.tasks.get(work.name);
    if (!task) throw new Error(`no task ${work.name}`);
    let action: Action;
    try {
      const output = (await task.run(work.input as never)) as Json;
      action = { type: 'onSuccess', uuid: work.uuid, output: output ?? null };
    } catch (error) {
      action = { type: 'onFailure', uuid: work.uuid, error: errorRecordOf(error) };
    }
    work.state = 'done';
    this.act(work.instance, action);
  }

  /** A worker reports a failure without running the task. */
  failWork(match: string, error: ErrorRecord): void {
    const work = this.work(match, 'started');
    work.state = 'done';
    this.act(work.instance, { type: 'onFailure', uuid: work.uuid, error });
  }

  /** Sends an event to an instance. */
  sendEvent(id: string, name: string, data?: Json): void {
    this.act(id, { type: 'onEvent', name, ...(data !== undefined ? { data } : {}) });
  }

  /** Moves time forward, firing due timers in time order. */
  advance(ms: number): void {
    const target = this.now + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.now = Math.max(this.now, due.at);
      this.act(due.instance, { type: 'waitElapsed', uuid: due.uuid });
    }
    this.now = target;
  }

  /** Pauses, resumes or terminates an instance. */
  control(id: string, op: 'pause' | 'resume' | 'terminate'): void {
    const fn =
      op === 'pause' ? pauseInstance : op === 'resume' ? resumeInstance : terminateInstance;
    this.commit(id, fn(this.instance(id), this.now));
    this.trigger(id);
  }

  /**
   * Drives everything to rest: pending decisions first, then scheduled tasks are started
   * and started tasks completed (oldest first), then time jumps to the next timer
   * (unless `advanceTime` is false).
   */
  async run(options: { advanceTime?: boolean; maxSteps?: number } = {}): Promise<void> {
    const maxSteps = options.maxSteps ?? 1_000_000;
    let startAt = 0;
    let completeAt = 0;
    for (let step = 0; step < maxSteps; step++) {
      const [id] = this.pending.keys();
      if (id !== undefined) {
        await this.decide(id);
        continue;
      }
      while (startAt < this.works.length && this.works[startAt]?.state !== 'scheduled') startAt++;
      const toStart = this.works[startAt];
      if (toStart) {
        toStart.state = 'started';
        this.act(toStart.instance, { type: 'onStart', uuid: toStart.uuid });
        continue;
      }
      while (
        completeAt < this.works.length &&
        !(this.works[completeAt]?.state === 'started' && this.works[completeAt]?.kind === 'task')
      ) {
        completeAt++;
      }
      const toComplete = this.works[completeAt];
      if (toComplete) {
        await this.completeWork(toComplete.uuid);
        continue;
      }
      const next = [...this.timers].sort((a, b) => a.at - b.at)[0];
      if (next && options.advanceTime !== false) {
        this.advance(Math.max(0, next.at - this.now));
        continue;
      }
      return;
    }
    throw new Error('simulation did not come to rest');
  }
}
