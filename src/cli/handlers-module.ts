/**
 * Loads a worker module: an ES module (JavaScript, or TypeScript run through tsx) whose
 * default export may map task names to `async (input, ctx) => output`, and whose exports
 * may hold code-first workflows (`defineWorkflow`) and tasks (`defineTask`).
 */
import { existsSync } from 'node:fs';
import { register as registerHooks } from 'node:module';
import { extname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ValidationError } from '../core/errors.js';
import type { TaskDefinition, WorkflowDefinition } from '../durable/definitions.js';
import type { QueueDefinition } from '../models/queue-spec.js';
import type { ScheduleDefinition } from '../models/schedule-spec.js';
import type { TaskContext, TaskHandlers } from '../worker/task-handler.js';

/** What a worker module provides. */
export interface WorkerModule {
  handlers: TaskHandlers;
  workflows: WorkflowDefinition<never[], unknown>[];
  tasks: TaskDefinition<never, unknown>[];
  /** Schedules it exports (`defineSchedule`): the worker declares them when it starts. */
  schedules: ScheduleDefinition[];
  /** Queues it exports (`defineQueue`): the worker declares them when it starts. */
  queues: QueueDefinition[];
  /** The default export, when it is a code-first workflow. */
  defaultWorkflow?: WorkflowDefinition<never[], unknown>;
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);

function isDefinition(value: unknown, kind: 'task' | 'workflow' | 'schedule' | 'queue'): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === kind &&
    typeof (value as { name?: unknown }).name === 'string'
  );
}

let typescript: Promise<void> | undefined;

/**
 * A resolve hook that loads `.ts` files outside `node_modules` as ES modules whatever
 * their package says: in a CommonJS package (a plain `npm init -y` project) Node would
 * load them through `require`, refuse them as a cycle, or give them a second copy of
 * weft whose classes are not the worker's. `.cts` files stay CommonJS.
 */
const TS_AS_ESM = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/\\.ts$/.test(resolved.url) && !resolved.url.includes('/node_modules/')) {
    return { ...resolved, format: 'module' };
  }
  return resolved;
}`;

/** Registers tsx's ESM loader, and {@link TS_AS_ESM} in front of it, for the process. */
function registerTypeScript(): Promise<void> {
  typescript ??= import('tsx/esm/api').then(({ register }) => {
    register();
    registerHooks(`data:text/javascript,${encodeURIComponent(TS_AS_ESM)}`);
  });
  return typescript;
}

/**
 * The module's exports: a CommonJS module compiled from ESM (a `.ts` file in a CommonJS
 * package) arrives as `{ default: { __esModule: true, …exports } }`.
 */
function exportsOf(namespace: Record<string, unknown>): Record<string, unknown> {
  const inner = namespace.default as Record<string, unknown> | undefined;
  const onlyDefault = Object.keys(namespace).every(
    (k) => k === 'default' || k === 'module.exports',
  );
  if (onlyDefault && inner && typeof inner === 'object' && inner.__esModule === true) {
    const { __esModule: _, ...exports } = inner;
    return exports;
  }
  return namespace;
}

/**
 * Where an import failed, in the user's own files: the cause's message, then the stack
 * lines outside Node and outside weft (file:line:column), so a syntax error or a throw
 * at a module's top level points at its line.
 */
function importFailure(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const own = (cause.stack ?? '')
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at ') && !/node:|node_modules/.test(line))
    .filter((line) => !OWN_CODE.some((dir) => line.includes(dir)))
    .slice(0, 5);
  return [cause.message, ...own.map((line) => `    ${line}`)].join('\n');
}

/** weft's own code (built and source), left out of an import error's stack. */
const OWN_CODE = ['../', '../../dist/'].map((up) => fileURLToPath(new URL(up, import.meta.url)));

/** Imports a module by path; TypeScript files go through tsx. */
export async function importModule(path: string, option: string): Promise<Record<string, unknown>> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new ValidationError('file not found', `${option} ${path}`);
  try {
    // tsx's loader is registered for the whole process (not a scoped import), so the
    // module shares weft's own classes with this process.
    if (TYPESCRIPT.has(extname(absolute))) await registerTypeScript();
    return exportsOf((await import(pathToFileURL(absolute).href)) as Record<string, unknown>);
  } catch (cause) {
    throw new ValidationError(
      `could not be imported: ${importFailure(cause)}`,
      `${option} ${path}`,
      {
        cause,
      },
    );
  }
}

/** Imports and checks a worker module; no path gives an empty module. */
export async function loadWorkerModule(
  path: string | undefined,
  option = '--handlers',
): Promise<WorkerModule> {
  const empty: WorkerModule = { handlers: {}, workflows: [], tasks: [], schedules: [], queues: [] };
  if (!path) return empty;
  const module = await importModule(path, option);
  const result: WorkerModule = { ...empty };
  const seen = new Set<unknown>();
  for (const [name, value] of Object.entries(module)) {
    if (seen.has(value)) continue;
    seen.add(value);
    if (isDefinition(value, 'workflow')) {
      result.workflows.push(value as WorkflowDefinition<never[], unknown>);
      if (name === 'default')
        result.defaultWorkflow = value as WorkflowDefinition<never[], unknown>;
    } else if (isDefinition(value, 'task')) {
      result.tasks.push(value as TaskDefinition<never, unknown>);
    } else if (isDefinition(value, 'schedule')) {
      result.schedules.push(value as ScheduleDefinition);
    } else if (isDefinition(value, 'queue')) {
      result.queues.push(value as QueueDefinition);
    } else if (name === 'default') {
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        throw new ValidationError(
          'its default export must map task names to async functions (or be a workflow)',
          `${option} ${path}`,
        );
      }
      for (const [task, fn] of Object.entries(value)) {
        if (typeof fn !== 'function') {
          throw new ValidationError(
            `task ${JSON.stringify(task)} is not a function`,
            `${option} ${path}`,
          );
        }
      }
      result.handlers = value as TaskHandlers;
    }
  }
  const defined =
    result.workflows.length + result.tasks.length + result.schedules.length + result.queues.length;
  if (defined === 0 && !('default' in module)) {
    throw new ValidationError(
      'exports no task handlers (a default export), workflows, tasks, schedules or queues',
      `${option} ${path}`,
    );
  }
  return result;
}

/** The task handlers of a module (graph workflows' view of it). */
export async function loadHandlers(path: string | undefined): Promise<TaskHandlers> {
  const module = await loadWorkerModule(path);
  return {
    ...module.handlers,
    ...Object.fromEntries(
      module.tasks.map((t) => [
        t.name,
        (input: unknown, context: TaskContext) => t.run(input as never, context),
      ]),
    ),
  };
}
