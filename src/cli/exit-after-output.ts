/**
 * How the `weft` command ends: it exits as soon as its command settles (a handlers module
 * may hold a timer or a connection pool open), but only once everything it wrote has left
 * the process. Writes to a pipe are asynchronous: what the pipe could not take at once
 * waits in the process, and `process.exit` would drop it (`weft list --json | jq` got the
 * first 64 KiB).
 */

/** A stream the command wrote to (stdout, stderr). */
export interface OutputStream {
  write(chunk: string, callback: (error?: Error | null) => void): boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Calls `exit(code)` once every stream has handed all that was written to it to the
 * operating system. A reader that went away (EPIPE: `weft list | head -1`) counts as
 * done: what it did not read has nowhere to go.
 */
export function exitAfterOutput(
  code: number,
  streams: readonly OutputStream[] = [process.stdout, process.stderr],
  exit: (code: number) => void = (c) => process.exit(c),
): void {
  let pending = streams.length;
  const finished = () => {
    pending--;
    if (pending === 0) exit(code);
  };
  if (pending === 0) exit(code);
  for (const stream of streams) {
    let done = false;
    const once = () => {
      if (done) return;
      done = true;
      finished();
    };
    stream.on('error', once);
    // Writes complete in order: this empty one's callback runs once all before it have.
    stream.write('', once);
  }
}
