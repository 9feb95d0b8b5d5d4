/**
 * A worker's own `/metrics` port, for a process that runs no dashboard: a plain
 * node:http server answering `GET /metrics` with the process's series (weft-metrics.ts)
 * and, when asked, the store-wide ones (store-series.ts), 404 on any other path and 405
 * on any other method. It binds to loopback unless told otherwise, and needs no token:
 * a port opened beyond loopback should sit behind the network's own access rules.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ValidationError } from '../../core/errors.js';
import type { StoreSeries } from './store-series.js';
import type { WeftMetrics } from './weft-metrics.js';

/** What a metrics server serves and where. */
export interface MetricsServerOptions {
  metrics: WeftMetrics;
  /** Port to listen on (0: any free port). */
  port: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** The store-wide series too (one process per store is enough to serve them). */
  storeSeries?: StoreSeries;
  /** The clock the store series read (epoch ms). */
  now?: () => number;
  /** Told of a scrape that failed (the store went away); it answers 503. */
  onError?: (error: unknown) => void;
}

/** A listening metrics server. */
export interface MetricsServer {
  /** `http://host:port/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Throws a {@link ValidationError} naming `metricsPort` unless `port` is one (0 to 65535). */
export function checkMetricsPort(port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ValidationError(
      `expected a whole number from 0 to 65535, got ${port}`,
      'metricsPort',
    );
  }
}

/** Starts a metrics server; resolves once it listens. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  checkMetricsPort(options.port);
  const now = options.now ?? Date.now;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('not found: the metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      response.end('method not allowed\n');
      return;
    }
    void (async () => {
      try {
        const store = options.storeSeries ? await options.storeSeries.text(now()) : '';
        const own = await options.metrics.text();
        response.writeHead(200, { 'content-type': options.metrics.contentType });
        response.end(request.method === 'HEAD' ? undefined : store + own);
      } catch (error) {
        options.onError?.(error);
        response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('the store did not answer\n');
      }
    })();
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        new ValidationError(
          `cannot listen for /metrics (${error.code ?? error.message})`,
          `metrics port ${host}:${options.port}`,
          { cause: error, code: 'METRICS_PORT' },
        ),
      );
    server.once('error', failed);
    server.listen(options.port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
