/**
 * Reads workflow files from disk and compiles them (graph/ does no I/O itself). `weft
 * run` also finds the workflows a file awaits: files beside it named after the awaited
 * workflow (`<id>.yaml`, `.yml` or `.json`), or any workflow file in that folder whose
 * `workflow:` is that id.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { ValidationError } from '../core/errors.js';
import { compileWorkflow } from '../engine/compiler.js';
import type { CompiledWorkflow } from '../engine/kinds/index.js';

const EXTENSIONS = ['.yaml', '.yml', '.json'];

/** A compiled file and its text. */
export interface WorkflowFile {
  path: string;
  text: string;
  compiled: CompiledWorkflow;
}

/** Reads and compiles one workflow file; errors name the file. */
export function readWorkflowFile(path: string): WorkflowFile {
  if (!existsSync(path)) throw new ValidationError('file not found', path);
  if (statSync(path).isDirectory())
    throw new ValidationError('is a directory, not a workflow file', path);
  const text = readFileSync(path, 'utf8');
  return { path, text, compiled: compileWorkflow(text, { source: path }) };
}

function awaited(compiled: CompiledWorkflow): string[] {
  return Object.values(compiled.activities).flatMap((a) =>
    a.kind === 'await' ? [a.workflow] : [],
  );
}

/**
 * Reads a file and, transitively, the workflows it awaits from the same folder. A
 * workflow awaited but not found is an error naming it and where it was looked for.
 */
export function readWorkflowWithDependencies(path: string): WorkflowFile[] {
  const root = readWorkflowFile(path);
  const folder = dirname(path);
  const found = new Map<string, WorkflowFile>([[root.compiled.workflow, root]]);
  let scanned: WorkflowFile[] | undefined;
  const scan = () => {
    scanned ??= readdirSync(folder)
      .filter((name) => EXTENSIONS.includes(extname(name)))
      .flatMap((name) => {
        try {
          return [readWorkflowFile(join(folder, name))];
        } catch {
          return [];
        }
      });
    return scanned;
  };
  const queue = awaited(root.compiled);
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (found.has(id)) continue;
    const named = EXTENSIONS.map((ext) => join(folder, `${id}${ext}`)).find((p) => existsSync(p));
    const file = named ? readWorkflowFile(named) : scan().find((f) => f.compiled.workflow === id);
    if (!file || file.compiled.workflow !== id) {
      throw new ValidationError(
        `awaits workflow ${JSON.stringify(id)}, which is neither in ${id}.yaml/.yml/.json nor any workflow file in ${folder}`,
        path,
      );
    }
    found.set(id, file);
    queue.push(...awaited(file.compiled));
  }
  return [...found.values()];
}
