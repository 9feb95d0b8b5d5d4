/**
 * How the long-running commands (`weft worker`, `weft serve`, `weft run`) meet Ctrl-C and
 * SIGTERM: the first signal asks the command to stop (it finishes or hands back its
 * in-flight work within the grace period); a second one ends the process at once.
 * A command interrupted before its end exits with the shell's code for the signal: 130
 * for SIGINT, 143 for SIGTERM.
 */
import type { Client } from '../client/client.js';

/** How long `weft run`'s in-process worker lets running handlers finish on a signal. */
export const WORKER_GRACE_MS = 5_000;

/** The signals a command stops on. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The exit code of a command a signal ended before its work was done. */
export const SIGNAL_EXIT_CODE: Readonly<Record<StopSignal, number>> = {
  SIGINT: 130,
  SIGTERM: 143,
};

/** Listens for the first stop signal until disposed. */
export interface Interrupt {
  /** Resolves with the first signal received (never, if none comes). */
  readonly received: Promise<StopSignal>;
  /** The signal received so far, if any. */
  readonly signal: StopSignal | undefined;
  /** Stops listening. */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM. The first one resolves {@link Interrupt.received};
 * a second one exits the process at once with its code (`onForce` runs first, to say so).
 */
export function listenForInterrupt(onForce?: (signal: StopSignal) => void): Interrupt {
  let resolveReceived: (signal: StopSignal) => void = () => {};
  const received = new Promise<StopSignal>((resolve) => {
    resolveReceived = resolve;
  });
  const state: { signal: StopSignal | undefined } = { signal: undefined };
  const on = (signal: StopSignal) => () => {
    if (state.signal !== undefined) {
      onForce?.(signal);
      process.exit(SIGNAL_EXIT_CODE[signal]);
    }
    state.signal = signal;
    resolveReceived(signal);
  };
  const onInt = on('SIGINT');
  const onTerm = on('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    received,
    get signal() {
      return state.signal;
    },
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/**
 * Waits until the job ends (resolves `undefined`) or a stop signal comes (resolves the
 * signal): what `weft run` waits on.
 */
export async function untilEndOrInterrupt(
  client: Client,
  jobId: string,
  interrupt: Interrupt,
): Promise<StopSignal | undefined> {
  const ended = client.result(jobId, { wait: true }).then(() => undefined);
  // Once interrupted, the wait is abandoned; its store may close under it.
  ended.catch(() => {});
  return Promise.race([ended, interrupt.received]);
}

/** What `weft run` prints when a signal stopped it: the job, its state, how to resume. */
export async function interruptedNote(
  client: Client,
  jobId: string,
  signal: StopSignal,
  command: string,
): Promise<string> {
  const state = await client.status(jobId).then(
    (view) => view.state,
    () => 'unknown',
  );
  return `weft run: ${signal}: stopped; job ${jobId} is ${state}. Resume it with: ${command} --id ${jobId}`;
}

/**
 * The command line that resumes a job (`--id` is added to it), as a user types it in the
 * project that installed weft: `npx weft run <file> [--handlers …] [--workflow …]`.
 */
export function resumeCommand(
  file: string,
  handlers: string | undefined,
  workflow?: string,
): string {
  return `npx weft run ${file}${handlers ? ` --handlers ${handlers}` : ''}${workflow ? ` --workflow ${workflow}` : ''}`;
}
