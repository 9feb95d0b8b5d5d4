/**
 * `weft dashboard`: the HTTP API (http-api/) plus the web app, a folder of plain ES
 * modules and CSS shipped in the package (`web/`), and elkjs's browser bundle served from
 * node_modules at `/vendor/elk.bundled.js`. The app's files are read once at start (only
 * those, so no request can reach another file). Bound beyond loopback it refuses to start
 * without a token. Every answer carries the API's headers (http-api/api.ts), the
 * Content-Security-Policy with `frame-ancestors 'none'` among them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve as serveNode } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Client } from '../client/client.js';
import type { Store } from '../store/store.js';
import type { WorkerLogger } from '../worker/worker-options.js';
import { createHttpApi } from './http-api/api.js';
import { checkListenHost } from './http-api/token.js';
import { letGoOfBody } from './http-json.js';

/** The web app's folder: `web/` at the package root (beside `src/` and `dist/`). */
export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** What to serve and where. */
export interface DashboardOptions {
  store: Store;
  client?: Client;
  port?: number;
  host?: string;
  token?: string;
  /** How often live streams look at the store (ms). */
  pollMs?: number;
  /** Where 5xx answers are logged (with their request ids). */
  logger?: WorkerLogger;
}

/** A running dashboard. */
export interface RunningDashboard {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Adds the web app's files and elkjs to `app`. */
export function addWebApp(app: Hono, root: string = WEB_ROOT): void {
  const files = new Map<string, { body: Buffer; type: string }>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
      else if (TYPES[extname(entry.name)]) {
        files.set(`/${prefix}${entry.name}`, {
          body: readFileSync(path),
          type: TYPES[extname(entry.name)] as string,
        });
      }
    }
  };
  walk(root, '');
  const require = createRequire(import.meta.url);
  files.set('/vendor/elk.bundled.js', {
    body: readFileSync(require.resolve('elkjs/lib/elk.bundled.js')),
    type: TYPES['.js'] as string,
  });
  const index = files.get('/index.html');
  app.get('*', async (c, next) => {
    const file = c.req.path === '/' ? index : files.get(c.req.path);
    if (!file) return next();
    return c.body(new Uint8Array(file.body), 200, {
      'content-type': file.type,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
  });
}

/** Starts the dashboard; rejects a non-loopback host without a token (ValidationError). */
export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token === '' ? undefined : options.token;
  checkListenHost(host, token, 'WEFT_DASHBOARD_TOKEN');
  const app = createHttpApi(
    {
      store: options.store,
      ...(options.client && { client: options.client }),
      ...(token !== undefined && { token }),
      ...(options.pollMs !== undefined && { pollMs: options.pollMs }),
      ...(options.logger && { logger: options.logger }),
    },
    (a) => addWebApp(a),
  );
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve, reject) => {
    const s = serveNode(
      {
        // A body the API left unread (refused, or past the limit) is not read to its end.
        fetch: async (request, env) => {
          const response = await app.fetch(request, env);
          if (env.incoming instanceof IncomingMessage) letGoOfBody(env.incoming);
          return response;
        },
        port: options.port ?? 7070,
        hostname: host,
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
