/**
 * What `weft serve` runs: an {@link AgentServer} over one store and, unless told not to,
 * an engine {@link Worker} with no handlers beside it — it runs the engine and code-first
 * action streams and fires timers (waits, task timeouts, events between instances), so
 * HTTP agents are all a deployment needs besides the store.
 */
import type { Clock } from '../core/clock.js';
import type { Store } from '../store/store.js';
import { Worker } from '../worker/worker.js';
import type { WorkerLogger } from '../worker/worker-options.js';
import { AgentServer, type AgentServerAddress, type AgentServerOptions } from './agent-server.js';

/** Options of {@link serve}. */
export interface ServeOptions extends AgentServerOptions {
  /** Port (default 4001; 0 picks a free one). */
  port?: number;
  /** Host (default 127.0.0.1). */
  host?: string;
  /** Also run the engine streams and timers in this process (default true). */
  engine?: boolean;
}

/** A running `weft serve`. */
export interface Serving extends AgentServerAddress {
  server: AgentServer;
  /** The engine worker, when `engine` is on. */
  worker: Worker | undefined;
  /** Stops the server, then the worker. */
  close(): Promise<void>;
}

/** Starts the agent server (and the engine worker) over `options.store`. */
export async function serve(options: ServeOptions): Promise<Serving> {
  const server = new AgentServer(options);
  const worker = options.engine === false ? undefined : engineWorker(options);
  await worker?.start();
  let address: AgentServerAddress;
  try {
    address = await server.listen(options.port ?? 4001, options.host ?? '127.0.0.1');
  } catch (error) {
    await worker?.stop();
    await server.close().catch(() => {});
    throw error;
  }
  return {
    ...address,
    server,
    worker,
    async close() {
      await server.close();
      await worker?.stop();
    },
  };
}

function engineWorker(options: { store: Store; clock?: Clock; logger?: WorkerLogger }): Worker {
  return new Worker({
    store: options.store,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
