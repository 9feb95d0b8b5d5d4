/**
 * Collects the problems the compiler finds, each located: the source name, the line and
 * column (when the definition came from text), the activity it belongs to and the
 * document path. Sorted by line when read, duplicates dropped.
 */
import type { DefinitionProblem } from '../core/errors.js';
import type { DocumentPath, SourcePosition } from './source-text.js';

/** Maps a document path to where it is written, when known. */
export type Locate = (path: DocumentPath) => SourcePosition | undefined;

/** The activity a path belongs to: the key under `activities` or `transitions`. */
function activityOf(path: DocumentPath): string | undefined {
  const [section, id] = path;
  if ((section === 'activities' || section === 'transitions') && id !== undefined)
    return String(id);
  return undefined;
}

/** The problems of one compilation. */
export class ProblemList {
  private readonly list: DefinitionProblem[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly source: string | undefined,
    private readonly locate: Locate,
    /** Maps a path of the document checked to where it is written (scopes are flattened). */
    private readonly written: (path: DocumentPath) => DocumentPath = (path) => path,
  ) {}

  /** Adds a problem at `path`; `activity` defaults to the one the path is under. */
  add(path: DocumentPath, message: string, activity: string | undefined = activityOf(path)): void {
    const where = this.written(path);
    const at = this.locate(where);
    this.push({
      message,
      ...(this.source !== undefined && { file: this.source }),
      ...(at && { line: at.line, column: at.column }),
      ...(activity !== undefined && { activity }),
      ...(where.length > 0 && { path: where.join('.') }),
    });
  }

  /** Adds a problem that is already located (a YAML syntax error). */
  push(problem: DefinitionProblem): void {
    const withFile =
      this.source !== undefined && problem.file === undefined
        ? { file: this.source, ...problem }
        : problem;
    const key = `${withFile.path}\u0000${withFile.message}\u0000${withFile.line}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push(withFile);
  }

  /** How many problems so far. */
  get size(): number {
    return this.list.length;
  }

  /** The problems, by line (unlocated ones last), otherwise in the order found. */
  items(): DefinitionProblem[] {
    return this.list
      .map((problem, index) => ({ problem, index }))
      .sort(
        (a, b) =>
          (a.problem.line ?? Number.MAX_SAFE_INTEGER) -
            (b.problem.line ?? Number.MAX_SAFE_INTEGER) || a.index - b.index,
      )
      .map(({ problem }) => problem);
  }
}
