/**
 * Where `weft dashboard` and `weft serve` take their token from, first found wins:
 * `--token-file <path>` (the file's text, a final line break dropped), `--token <token>`,
 * the environment variable (`WEFT_DASHBOARD_TOKEN`, `WEFT_SERVE_TOKEN`). A token on the
 * command line is visible to every user of the machine (`ps`), so it is taken with a
 * warning.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ValidationError } from '../core/errors.js';
import { checkListenHost, checkTokenText } from '../server/http-api/token.js';
import type { Output } from './print.js';

/** The flags {@link addTokenOptions} adds. */
export interface TokenFlags {
  token?: string;
  tokenFile?: string;
}

/** Adds `--token` and `--token-file` to a server command; `variable` is its environment variable. */
export function addTokenOptions(command: Command, variable: string): Command {
  return command
    .option(
      '--token-file <path>',
      `file holding the token requests must carry (or set $${variable})`,
    )
    .option(
      '--token <token>',
      `the token itself (visible in ps: prefer $${variable} or --token-file)`,
    );
}

/** The token the flags and environment give, or undefined for none (an empty value is none). */
export function resolveToken(
  flags: TokenFlags,
  variable: string,
  output: Output,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (flags.tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.tokenFile, 'utf8');
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unreadable';
      throw new ValidationError(`cannot read ${flags.tokenFile} (${code})`, '--token-file', {
        code: 'BAD_TOKEN',
      });
    }
    return checkTokenText(text.replace(/\r?\n$/, ''), '--token-file');
  }
  if (flags.token !== undefined && flags.token !== '') {
    output.err(
      `warning: a token given with --token is visible to other users of this machine (ps); prefer $${variable} or --token-file`,
    );
    return checkTokenText(flags.token, '--token');
  }
  const fromEnv = env[variable];
  if (fromEnv !== undefined && fromEnv !== '') return checkTokenText(fromEnv, variable);
  return undefined;
}

/**
 * The token a server command runs with ({@link resolveToken}), refusing (before the store
 * is touched: a bad host is the user's to fix first) a `host` beyond loopback without one.
 */
export function serverToken(
  flags: TokenFlags & { host: string },
  variable: string,
  output: Output,
): string | undefined {
  const token = resolveToken(flags, variable, output);
  checkListenHost(flags.host, token, variable);
  return token;
}
