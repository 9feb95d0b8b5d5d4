/**
 * Loads a worker module: an ES module (JavaScript, or TypeScript run through tsx) whose
 * default export may map task names to `async (input, ctx) => output`, and whose exports
 * may hold code-first workflows (`defineWorkflow`) and tasks (`defineTask`).
 */
import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ValidationError } from '../core/errors.js';
import type { TaskDefinition, WorkflowDefinition } from '../durable/definitions.js';
import type { TaskHandlers } from '../worker/task-handler.js';

/** What a worker module provides. */
export interface WorkerModule {
  handlers: TaskHandlers;
  workflows: WorkflowDefinition<never[], unknown>[];
  tasks: TaskDefinition<never, unknown>[];
  /** The default export, when it is a code-first workflow. */
  defaultWorkflow?: WorkflowDefinition<never[], unknown>;
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);

function isDefinition(value: unknown, kind: 'task' | 'workflow'): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === kind &&
    typeof (value as { name?: unknown }).name === 'string'
  );
}

let typescript: Promise<void> | undefined;
function registerTypeScript(): Promise<void> {
  typescript ??= import('tsx/esm/api').then(({ register }) => {
    register();
  });
  return typescript;
}

/** Imports a module by path; TypeScript files go through tsx. */
export async function importModule(path: string, option: string): Promise<Record<string, unknown>> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new ValidationError('file not found', `${option} ${path}`);
  try {
    // tsx's loader is registered for the whole process (not a scoped import), so the
    // module shares weft's own classes with this process.
    if (TYPESCRIPT.has(extname(absolute))) await registerTypeScript();
    return (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new ValidationError(`could not be imported: ${reason}`, `${option} ${path}`, { cause });
  }
}

/** Imports and checks a worker module; no path gives an empty module. */
export async function loadWorkerModule(
  path: string | undefined,
  option = '--handlers',
): Promise<WorkerModule> {
  const empty: WorkerModule = { handlers: {}, workflows: [], tasks: [] };
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
  if (result.workflows.length === 0 && result.tasks.length === 0 && !('default' in module)) {
    throw new ValidationError(
      'exports no task handlers (a default export), workflows or tasks',
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
      module.tasks.map((t) => [t.name, (input: unknown) => t.run(input as never)]),
    ),
  };
}
