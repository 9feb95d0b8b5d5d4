/**
 * The wrapper of a subcommand's action that needs a client: it opens the store its
 * `--store` names (else `WEFT_STORE`, else the embedded default), runs the action, and
 * reports a typed error as the other commands do (`error: …`, or `{"error": …}` with
 * `--json`, exit 1). Commands grouped under one word (`weft dead-letters …`, `weft
 * schedule …`) use it.
 */
import type { Command } from 'commander';
import type { Client } from '../client/client.js';
import { toErrorRecord, WeftError } from '../core/errors.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { clientOf } from './lazy-client.js';
import { type Output, printJson } from './print.js';

/** The flags every such subcommand has. */
export interface ClientFlags {
  store?: string;
  json?: boolean;
}

/** `--store` as every subcommand spells it. */
export const STORE_FLAGS = '--store <url>';
export const STORE_HELP = 'store URL (default: $WEFT_STORE or sqlite:./.weft/weft.db)';

/** Makes the wrapper for one program's output and exit code. */
export function clientAction(output: Output, setExit: (code: number) => void) {
  return <F extends ClientFlags, A extends unknown[]>(
    action: (client: Client, flags: F, ...args: A) => Promise<void>,
  ) =>
    async (...args: unknown[]) => {
      const flags = (args[args.length - 1] as Command).opts() as F;
      let store: Store | undefined;
      try {
        store = await openStore(flags.store ?? process.env.WEFT_STORE);
        await action(await clientOf(store), flags, ...(args.slice(0, -2) as A));
        setExit(0);
      } catch (error) {
        const record = error instanceof WeftError ? error.toJSON() : toErrorRecord(error);
        if (flags.json) printJson(output, { error: record });
        else output.err(`error: ${record.message}`);
        setExit(1);
      } finally {
        await store?.close();
      }
    };
}
