/**
 * `weft serve`: the agent protocol over HTTP (docs/agent-protocol.md) for workers in any
 * language, plus the engine streams and timers, until SIGTERM or SIGINT.
 *
 *     weft serve --port 4001 --workflows order --tasks charge,ship --store postgres://…
 *
 * Bound beyond loopback it refuses to start without a token (`--token-file`, `--token`
 * or `WEFT_SERVE_TOKEN`); with one, every request needs `Authorization: Bearer`.
 */
import type { Command } from 'commander';
import { toErrorRecord, WeftError } from '../core/errors.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { listenForInterrupt } from './interrupt.js';
import { parseLogFormat } from './log-format.js';
import { positiveWholeNumber, wholeNumber } from './numeric-option.js';
import type { Output } from './print.js';
import { addTokenOptions, serverToken, type TokenFlags } from './token-option.js';

/** Options of {@link registerServeCommand}. */
export interface ServeCommandOptions {
  /** Resolves when the server should stop (default: SIGTERM or SIGINT). */
  until?: () => Promise<void>;
}

const TOKEN_VARIABLE = 'WEFT_SERVE_TOKEN';

interface ServeFlags extends TokenFlags {
  store?: string;
  port: number;
  host: string;
  workflows?: string;
  tasks?: string;
  leaseMs: number;
  engine: boolean;
  logFormat?: string;
}

/** Until the first SIGINT or SIGTERM (a second one exits at once). */
async function untilSignal(): Promise<void> {
  const interrupt = listenForInterrupt();
  try {
    await interrupt.received;
  } finally {
    interrupt.dispose();
  }
}

/** A comma-separated flag's names, checked as an agent's registration is. */
async function names(value: string | undefined, flag: string): Promise<string[]> {
  const { parseNameList } = await import('../server/agent-wire.js');
  return parseNameList(value ?? '', flag) ?? [];
}

/** Adds `weft serve` to the program; `setExit` receives its exit code. */
export function registerServeCommand(
  program: Command,
  output: Output,
  setExit: (code: number) => void,
  options: ServeCommandOptions = {},
): void {
  const command = program
    .command('serve')
    .description('serve the agent protocol over HTTP (workers in any language) until SIGTERM')
    .option('--store <url>', 'store URL (default: $WEFT_STORE or sqlite:./.weft/weft.db)')
    .option('--port <n>', 'port (0: any free port)', wholeNumber({ min: 0, max: 65535 }), 4001)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--workflows <names>', 'code-first workflows agents decide for, comma-separated')
    .option('--tasks <names>', 'tasks agents run, comma-separated')
    .option('--lease-ms <ms>', 'lease on a handed-out decision or task', positiveWholeNumber, 60000)
    .option('--no-engine', 'do not run the engine streams and timers in this process')
    .option('--log-format <format>', 'log lines on stderr: pretty or json (default: pretty)');
  addTokenOptions(command, TOKEN_VARIABLE).action(async (flags: ServeFlags) => {
    let store: Store | undefined;
    try {
      const { port, leaseMs } = flags;
      const token = serverToken(flags, TOKEN_VARIABLE, output);
      const workflows = await names(flags.workflows, '--workflows');
      const tasks = await names(flags.tasks, '--tasks');
      const format = parseLogFormat(flags.logFormat);
      // The server, the engines and the logger load only when the command runs.
      const [{ serve }, { createCliLogger }] = await Promise.all([
        import('../server/serve.js'),
        import('./cli-logger.js'),
      ]);
      const logger = createCliLogger(format);
      store = await openStore(flags.store ?? process.env.WEFT_STORE);
      const serving = await serve({
        store,
        port,
        host: flags.host,
        workflows,
        tasks,
        leaseMs,
        engine: flags.engine,
        logger,
        ...(token !== undefined && { token }),
      });
      output.out(`weft serve listening on ${serving.url} (store ${store.url})`);
      // The engine worker gives up (rejects) when the store stays unreachable.
      const gaveUp = serving.worker
        ? serving.worker.run().then(
            () => undefined,
            (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
          )
        : new Promise<undefined>(() => {});
      const outcome = await Promise.race([
        (options.until ?? untilSignal)().then(() => undefined),
        gaveUp,
      ]);
      await serving.close();
      if (outcome) {
        output.err(`error: ${outcome.message}`);
        setExit(1);
      } else setExit(0);
    } catch (error) {
      output.err(
        `error: ${error instanceof WeftError ? error.message : (toErrorRecord(error).stack ?? String(error))}`,
      );
      setExit(1);
    } finally {
      await store?.close();
    }
  });
}
