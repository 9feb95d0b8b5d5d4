/**
 * `weft dashboard`: the web dashboard and its HTTP API on the store every other command
 * uses, until SIGTERM or SIGINT.
 *
 *     weft dashboard [--port 7070] [--host 127.0.0.1] [--store URL] [--token-file PATH]
 *
 * Bound beyond loopback it refuses to start without a token (`--token-file`, `--token` or
 * `WEFT_DASHBOARD_TOKEN`); with one, the API and `/metrics` need `Authorization: Bearer`.
 */
import type { Command } from 'commander';
import { toErrorRecord, ValidationError, WeftError } from '../core/errors.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { listenForInterrupt } from './interrupt.js';
import { parseLogFormat } from './log-format.js';
import { wholeNumber } from './numeric-option.js';
import type { Output } from './print.js';
import { addTokenOptions, serverToken, type TokenFlags } from './token-option.js';

interface DashboardFlags extends TokenFlags {
  store?: string;
  port?: number;
  host: string;
  logFormat?: string;
}

const TOKEN_VARIABLE = 'WEFT_DASHBOARD_TOKEN';

/** Adds `weft dashboard` to the program; `setExit` receives its exit code. */
export function registerDashboardCommand(
  program: Command,
  output: Output,
  setExit: (code: number) => void,
): void {
  const command = program
    .command('dashboard')
    .description('serve the web dashboard and its HTTP API until SIGTERM')
    .option('--store <url>', 'store URL (default: $WEFT_STORE or sqlite:./.weft/weft.db)')
    .option(
      '--port <n>',
      'port (0: any free port; default: $WEFT_DASHBOARD_PORT or 7070)',
      wholeNumber({ min: 0, max: 65535 }),
    )
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--log-format <format>', 'log lines on stderr: pretty or json (default: pretty)');
  addTokenOptions(command, TOKEN_VARIABLE).action(async (flags: DashboardFlags) => {
    let store: Store | undefined;
    const interrupt = listenForInterrupt();
    try {
      const token = serverToken(flags, TOKEN_VARIABLE, output);
      const format = parseLogFormat(flags.logFormat);
      const port = flags.port ?? portFromEnv(process.env.WEFT_DASHBOARD_PORT);
      // The server and the logger load only when the command runs.
      const [{ startDashboard }, { createCliLogger }] = await Promise.all([
        import('../server/dashboard.js'),
        import('./cli-logger.js'),
      ]);
      const logger = createCliLogger(format);
      store = await openStore(flags.store ?? process.env.WEFT_STORE);
      const dashboard = await startDashboard({
        store,
        port,
        host: flags.host,
        logger,
        ...(token !== undefined && { token }),
      });
      output.out(`weft dashboard on ${dashboard.url} (store ${store.url})`);
      const signal = await interrupt.received;
      output.err(`weft dashboard: ${signal}: stopping`);
      await dashboard.close();
      setExit(0);
    } catch (error) {
      output.err(
        `error: ${error instanceof WeftError ? error.message : (toErrorRecord(error).stack ?? String(error))}`,
      );
      setExit(1);
    } finally {
      interrupt.dispose();
      await store?.close();
    }
  });
}

/** The port `WEFT_DASHBOARD_PORT` names (7070 when unset); a {@link ValidationError} otherwise. */
function portFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return 7070;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ValidationError(
      `${JSON.stringify(value)} is not a port (0 to 65535)`,
      'WEFT_DASHBOARD_PORT',
    );
  }
  return port;
}
