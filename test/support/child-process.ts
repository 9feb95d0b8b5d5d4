/**
 * Running a TypeScript helper script in a separate OS process for the backend tests
 * (`node --import tsx <script> <args>`), reading its stdout line by line, waiting for a
 * given line, killing it and waiting for it to end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processEnd } from './process-end.js';
import { waitFor } from './wait-for.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A running helper process. */
export interface TestChild {
  process: ChildProcess;
  /** Lines printed to stdout so far. */
  lines: string[];
  /** Everything printed to stderr so far. */
  stderr(): string;
  /** Waits until a stdout line equals `line`. */
  waitForLine(line: string, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (or signal name) once it ended and its output is read. */
  exited: Promise<number | string>;
}

/** Starts `test/support/<script>` with `args` in its own Node process. */
export function spawnTestChild(script: string, args: string[]): TestChild {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test/support', script), ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: string[] = [];
  let partial = '';
  let errors = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.map((l) => l.trim()));
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  // Its end once its output is all read: the last lines come after the 'exit' event.
  const exited = processEnd(child);
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  return {
    process: child,
    lines,
    stderr: () => errors,
    exited,
    waitForLine: (line, timeoutMs = 60_000) =>
      waitFor(
        () => {
          if (lines.includes(line)) return true;
          if (ended) throw new Error(`${script} ended before printing ${line}: ${errors}`);
          return false;
        },
        `${script} to print ${line}`,
        { timeoutMs, intervalMs: 10 },
      ),
  };
}
