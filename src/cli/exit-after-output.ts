/**
 * How the `weft` command ends: it exits as soon as its command settles (a handlers module
 * may hold a timer or a connection pool open), but only once everything it wrote has left
 * the process. Writes to a pipe are asynchronous: what the pipe could not take at once
 * waits in the process, and `process.exit` would drop it (`weft list --json | jq` got the
 * first 64 KiB).
 *
 * A reader may also go away while the command is still working (`weft list --json | head
 * -c 100` closes the pipe while the command closes its store): the failed write is an
 * `error` event on stdout, which crashes the process with a stack unless someone listens
 * from the start ({@link letReadersLeave}).
 */

/** A stream the command wrote to (stdout, stderr). */
export interface OutputStream {
  write(chunk: string, callback: (error?: Error | null) => void): boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** The code of an error a stream emitted (`EPIPE`), if it has one. */
function codeOf(error: Error): unknown {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * From now on, a reader that goes away (EPIPE on stdout or stderr) is not an error: the
 * command goes on to its end, and what it writes after has nowhere to go. Other stream
 * errors still end the process as Node ends it.
 */
export function letReadersLeave(
  streams: readonly OutputStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    stream.on('error', (error) => {
      if (codeOf(error) !== 'EPIPE') throw error;
    });
  }
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
