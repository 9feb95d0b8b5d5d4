/**
 * When a child process has ended *and* everything it printed has been read. Node emits
 * `exit` as soon as the process is gone, possibly before the last chunks of its stdout and
 * stderr have arrived; a test that reads the output on `exit` can miss the final lines
 * (the "stopping" or "resume it with" line a command prints just before it exits).
 * `close` comes once the pipes are drained, so this waits for it.
 */
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves with the exit code (or the signal's name) once `child` has exited and its
 * pipes have closed, or `graceMs` after its exit when something else still holds them
 * (a grandchild it left running), so a test never hangs on an orphan's pipe.
 */
export function processEnd(child: ChildProcess, graceMs = 2_000): Promise<number | string> {
  return new Promise((resolve) => {
    child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    child.once('exit', (code, signal) => {
      setTimeout(() => resolve(code ?? signal ?? 'unknown'), graceMs).unref();
    });
  });
}
