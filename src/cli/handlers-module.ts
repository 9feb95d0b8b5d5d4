/**
 * Loads a handlers module: an ES module whose default export maps task names to
 * `async (input, ctx) => output`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ValidationError } from '../core/errors.js';
import type { TaskHandlers } from '../worker/task-handler.js';

/** Imports and checks a handlers module. */
export async function loadHandlers(path: string | undefined): Promise<TaskHandlers> {
  if (!path) return {};
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new ValidationError('file not found', `--handlers ${path}`);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(absolute).href)) as { default?: unknown };
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new ValidationError(`could not be imported: ${reason}`, `--handlers ${path}`, { cause });
  }
  const handlers = module.default;
  if (!handlers || typeof handlers !== 'object' || Array.isArray(handlers)) {
    throw new ValidationError(
      'must have a default export mapping task names to async functions',
      `--handlers ${path}`,
    );
  }
  for (const [name, fn] of Object.entries(handlers)) {
    if (typeof fn !== 'function') {
      throw new ValidationError(
        `task ${JSON.stringify(name)} is not a function`,
        `--handlers ${path}`,
      );
    }
  }
  return handlers as TaskHandlers;
}
