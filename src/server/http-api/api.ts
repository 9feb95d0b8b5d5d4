/**
 * The HTTP API on Hono: every route group mounted, the token rule (token.ts) on `/api/*`
 * and `/metrics`, the same-origin checks (same-origin.ts) on every path, typed errors
 * as JSON (api-errors.ts; every 5xx logged under the request id it answers with),
 * unknown routes as a typed 404, and the headers every answer carries (no caching of API
 * data, no framing, no sniffing, a Content-Security-Policy).
 * `weft dashboard` serves it with the web app (../dashboard.ts); tests call `app.fetch`
 * or serve it on a port.
 */
import { Hono } from 'hono';
import { Client } from '../../client/client.js';
import { NotFoundError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import type { WeftMetrics } from '../../worker/metrics/weft-metrics.js';
import type { WorkerLogger } from '../../worker/worker-options.js';
import { COMMON_HEADERS } from '../http-json.js';
import { deadLetterRoutes, jobActionRoutes } from './action-routes.js';
import { type ApiEnv, errorResponse, newRequestId } from './api-errors.js';
import { healthRoutes } from './health-routes.js';
import { jobsRoutes } from './jobs-routes.js';
import { type LiveOptions, liveRoutes } from './live-events.js';
import { queuesRoutes } from './queues-routes.js';
import { sameOrigin } from './same-origin.js';
import { schedulesRoutes } from './schedules-routes.js';
import { checkTokenText, requireToken } from './token.js';
import { workflowsRoutes } from './workflows-routes.js';

/**
 * The dashboard's `Content-Security-Policy`: its own scripts, styles and API only, no
 * plugins, no base or form targets elsewhere, and no page may frame it.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** What the API serves and how. */
export interface HttpApiOptions extends LiveOptions {
  store: Store;
  /** The client the actions go through (default: a new one on `store`). */
  client?: Client;
  /** When set, `/api/*` and `/metrics` need `Authorization: Bearer <token>`. */
  token?: string;
  /** Where 5xx answers are logged (with their request ids). */
  logger?: WorkerLogger;
  /** The process's own counters and histograms, served on `/metrics` after the store's. */
  metrics?: WeftMetrics;
}

/** Builds the API app; `extend` adds more routes (the web app) before the 404. */
export function createHttpApi(options: HttpApiOptions, extend?: (app: Hono) => void): Hono {
  const { store, logger } = options;
  if (options.token !== undefined) checkTokenText(options.token, 'token');
  const client = options.client ?? new Client(store);
  const app = new Hono<ApiEnv>();
  app.onError((error, c) => errorResponse(error, c, logger));
  app.notFound((c) =>
    errorResponse(new NotFoundError('route', `${c.req.method} ${c.req.path}`), c, logger),
  );
  app.use('*', async (c, next) => {
    const requestId = newRequestId();
    c.set('requestId', requestId);
    await next();
    c.header('x-request-id', requestId);
    for (const [name, value] of Object.entries(COMMON_HEADERS)) {
      // The web app's files set their own caching.
      if (name !== 'cache-control' || !c.res.headers.has(name)) c.header(name, value);
    }
    c.header('content-security-policy', DASHBOARD_CSP);
  });

  // The token first: a caller without it learns nothing else about the request. Then
  // the same-origin checks on every path: the web app's files and /healthz too.
  app.use('/api/*', requireToken(options.token));
  app.use('/metrics', requireToken(options.token));
  app.use('*', sameOrigin(options.token !== undefined));
  const health = healthRoutes(
    store,
    () => client.clock.now(),
    options.token !== undefined,
    options.metrics,
  );
  app.route('/', health.open);
  app.route('/', health.guarded);

  const api = new Hono();
  api.route('/', liveRoutes(store, client, options));
  api.route('/jobs', jobsRoutes(store, client));
  api.route('/jobs', jobActionRoutes(client));
  api.route('/workflows', workflowsRoutes(store));
  api.route('/dead-letters', deadLetterRoutes(client));
  api.route('/schedules', schedulesRoutes(client));
  api.route('/queues', queuesRoutes(client));
  app.route('/api', api);
  extend?.(app as unknown as Hono);
  return app as unknown as Hono;
}
