/**
 * What the chaos harness runs: workloads, each a kind of job with its definitions, its
 * task handlers and what its finished jobs must look like. Job `i` of a run belongs to
 * workload `i % workloads.length`, so adding a workload to {@link CHAOS_WORKLOADS} mixes
 * it into every run.
 *
 * The graph workload exercises every graph mechanism that a kill can interrupt: a
 * trigger, tasks in sequence, a four-way fan-out joined again, a task that fails its
 * first attempt and is retried after a 300 ms backoff, a hook released by a signal another task sends, a
 * conditional branch whose untaken side (two activities deep) is skipped, a sleep (a
 * durable timer) and an awaited child job with its own task and sleep. The spread workload
 * runs crossflow's spread → task → collect, whose collected array must be exactly the
 * spread's items.
 */

import type { Client } from '../../src/client/client.js';
import {
  createCollationLayout,
  formatCollationKey,
  parseCollationKey,
} from '../../src/core/collation.js';
import type { WorkflowDefinition } from '../../src/durable/definitions.js';
import { compileWorkflow } from '../../src/engine/compiler.js';
import type { CompiledWorkflow } from '../../src/engine/kinds/index.js';
import type { Json } from '../../src/store/records.js';
import type { TaskHandlers } from '../../src/worker/task-handler.js';
import type { Worker } from '../../src/worker/worker.js';
import { durableWorkload } from './chaos-durable-workload.js';
import type { HandlerLog } from './chaos-handlers.js';
import { sagaWorkload } from './chaos-saga-workload.js';

/** A kind of job the chaos harness starts, runs under kills and checks. */
export interface ChaosWorkload {
  /** Short name, shown in the report. */
  name: string;
  /** Which engine runs its jobs. */
  model: 'graph' | 'durable';
  /** The workflows its jobs and their children run. */
  workflows: readonly string[];
  /** The task streams its handlers take work from. */
  taskStreams: readonly string[];
  /** Stores its definitions (idempotent). */
  deploy(client: Client): Promise<void>;
  /** Starts job number `index` with the given id. */
  start(client: Client, index: number, id: string): Promise<void>;
  /** Code-first workflows a worker must have the code of. */
  code?: readonly WorkflowDefinition<never[], unknown>[];
  /** Its task handlers; each logs its runs to `log` (see chaos-handlers.ts). */
  handlers(log: HandlerLog): TaskHandlers;
  /**
   * Prepares a worker process's {@link Worker} before it starts: registers the engine
   * route its jobs need (the code-first engine's stream, say) with audit taps like
   * chaos-audit.ts puts on the graph engine. The graph route is built in.
   */
  configureWorker?(worker: Worker, workerNumber: number): void;
  /**
   * The compiled graph of a workflow this workload's jobs (and their children) run, for
   * the semaphore checks; undefined for a workflow it does not own.
   */
  graph(workflow: string): CompiledWorkflow | undefined;
  /** The collation key a finished graph job of `workflow` must hold, as digits. */
  expectedKey(workflow: string, input: Json): string | undefined;
  /** The output a finished job of `workflow` with this input must have. */
  expectedOutput(workflow: string, input: Json): Json | undefined;
}

const PARENT = compileWorkflow(`
workflow: chaos
version: 1
activities:
  start:   { kind: trigger }
  prep:    { kind: task, task: chaos-work }
  left:    { kind: task, task: chaos-work }
  right:   { kind: task, task: chaos-flaky, retry: { attempts: 3, backoff: 300ms } }
  ring:    { kind: task, task: chaos-ring }
  bell:    { kind: hook, signal: bell }
  merge:   { kind: task, task: chaos-work }
  even:    { kind: task, task: chaos-work }
  odd:     { kind: task, task: chaos-work }
  oddmore: { kind: task, task: chaos-work }
  nap:     { kind: sleep, duration: 5ms }
  child:   { kind: await, workflow: chaos-child, input: "{ 'n': input.n }" }
  done:    { kind: task, task: chaos-work }
transitions:
  start: [prep]
  prep: [left, right, ring, bell]
  left: [merge]
  right: [merge]
  ring: [merge]
  bell: [merge]
  merge:
    - { to: even, when: "input.n % 2 = 0" }
    - { to: odd, when: "input.n % 2 = 1" }
  even: [nap]
  odd: [oddmore]
  oddmore: [nap]
  nap: [child]
  child: [done]
output: "{ 'n': input.n, 'bell': bell.output.n, 'child': child.output.n, 'done': done.output.n }"
`);

const CHILD = compileWorkflow(`
workflow: chaos-child
version: 1
activities:
  begin: { kind: trigger }
  work:  { kind: task, task: chaos-work }
  rest:  { kind: sleep, duration: 3ms }
transitions:
  begin: [work]
  work: [rest]
output: "{ 'n': input.n }"
`);

/** Builds a key from the digits each activity must end on (6 unless listed). */
function keyOf(compiled: CompiledWorkflow, digits: Record<string, number>): string {
  const layout = createCollationLayout(compiled.order);
  const text = compiled.order.map((id) => String(digits[id] ?? 6)).join('');
  return formatCollationKey(layout, parseCollationKey(layout, text.padEnd(layout.width, '0')));
}

const EVEN_KEY = keyOf(PARENT, { bell: 4, odd: 3, oddmore: 3 });
const ODD_KEY = keyOf(PARENT, { bell: 4, even: 3 });
const CHILD_KEY = keyOf(CHILD, {});

function numberOf(input: Json): number {
  const n = (input as { n?: unknown } | null)?.n;
  return typeof n === 'number' ? n : Number.NaN;
}

/** How long a handler "works": a few random milliseconds. */
function work(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(Math.random() * 5)));
}

/** The graph workload: the `chaos` workflow and its `chaos-child`. */
export const graphWorkload: ChaosWorkload = {
  name: 'graph',
  model: 'graph',
  workflows: [PARENT.workflow, CHILD.workflow],
  taskStreams: ['task:chaos-work', 'task:chaos-flaky', 'task:chaos-ring'],
  async deploy(client) {
    await client.deploy(CHILD);
    await client.deploy(PARENT);
  },
  async start(client, index, id) {
    await client.start(PARENT.workflow, { n: index }, { id });
  },
  handlers(log) {
    return {
      'chaos-work': log.wrap(async (input, ctx) => {
        await work();
        return { n: numberOf(input), a: ctx.activity };
      }),
      // Fails its first attempt for every third job; the retry must run exactly once.
      'chaos-flaky': log.wrap(async (input, ctx) => {
        await work();
        if (numberOf(input) % 3 === 0 && ctx.attempt === 1) {
          throw new Error(`planned failure of attempt 1 for n=${numberOf(input)}`);
        }
        return { n: numberOf(input), attempt: ctx.attempt };
      }),
      // Releases the job's `bell` hook. A re-run sends a second signal, which the store
      // keeps in its buffer and nothing ever consumes: harmless by design.
      'chaos-ring': log.wrap(async (input, ctx) => {
        await work();
        await ctx.sendSignal('bell', { n: numberOf(input) });
        return { rang: true };
      }),
    };
  },
  graph(workflow) {
    if (workflow === PARENT.workflow) return PARENT;
    if (workflow === CHILD.workflow) return CHILD;
    return undefined;
  },
  expectedKey(workflow, input) {
    if (workflow === CHILD.workflow) return CHILD_KEY;
    if (workflow !== PARENT.workflow) return undefined;
    return numberOf(input) % 2 === 0 ? EVEN_KEY : ODD_KEY;
  },
  expectedOutput(workflow, input): Json | undefined {
    const n = numberOf(input);
    if (workflow === CHILD.workflow) return { n };
    if (workflow === PARENT.workflow) return { n, bell: n, child: n, done: n };
    return undefined;
  },
};

const SPREAD = compileWorkflow(`
workflow: chaos-spread
version: 1
activities:
  start:  { kind: trigger }
  fan:    { kind: spread, items: "input.items" }
  item:   { kind: task, task: chaos-item, input: "fan.item" }
  gather: { kind: collect, min: 1 }
  done:   { kind: task, task: chaos-work, input: "{ 'n': input.n }" }
transitions: { start: [fan], fan: [item], item: [gather], gather: [done] }
end: done
output: "{ 'n': input.n, 'items': $sort(gather.output) }"
`);

const SPREAD_KEY = keyOf(SPREAD, {});

/** The items job `n` of the spread workload spreads: 2 to 12 of them, distinct per job. */
function spreadItems(n: number): number[] {
  return Array.from({ length: 2 + (n % 11) }, (_, i) => n * 100 + i);
}

/**
 * The spread workload: one spread → task → collect job per index. A kill between two
 * threads must neither lose nor double an item: the collected array (sorted) is exactly
 * the spread's items.
 */
export const spreadWorkload: ChaosWorkload = {
  name: 'spread',
  model: 'graph',
  workflows: [SPREAD.workflow],
  taskStreams: ['task:chaos-item', 'task:chaos-work'],
  async deploy(client) {
    await client.deploy(SPREAD);
  },
  async start(client, index, id) {
    await client.start(SPREAD.workflow, { n: index, items: spreadItems(index) }, { id });
  },
  handlers(log) {
    return {
      ...graphWorkload.handlers(log),
      'chaos-item': log.wrap(async (input) => {
        await work();
        return input;
      }),
    };
  },
  graph(workflow) {
    return workflow === SPREAD.workflow ? SPREAD : undefined;
  },
  expectedKey(workflow) {
    return workflow === SPREAD.workflow ? SPREAD_KEY : undefined;
  },
  expectedOutput(workflow, input): Json | undefined {
    if (workflow !== SPREAD.workflow) return undefined;
    const n = numberOf(input);
    return { n, items: spreadItems(n) };
  },
};

/** Every workload a chaos run mixes, in the order jobs are dealt to them. */
export const CHAOS_WORKLOADS: readonly ChaosWorkload[] = [
  graphWorkload,
  durableWorkload,
  sagaWorkload,
  spreadWorkload,
];

/** The workload owning a workflow name, if any. */
export function workloadOf(workflow: string): ChaosWorkload | undefined {
  return CHAOS_WORKLOADS.find((w) => w.workflows.includes(workflow));
}
