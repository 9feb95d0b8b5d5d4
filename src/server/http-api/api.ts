/**
 * The HTTP API on Hono: every route group mounted, the same-origin checks
 * (same-origin.ts) and the token rule on `/api/*` and `/metrics`, typed errors as JSON (api-errors.ts), unknown routes as a typed 404.
 * `weft dashboard` serves it with the web app (../dashboard.ts); tests call `app.fetch`
 * or serve it on a port.
 */
import { Hono } from 'hono';
import { Client } from '../../client/client.js';
import { NotFoundError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import { deadLetterRoutes, jobActionRoutes } from './action-routes.js';
import { errorResponse } from './api-errors.js';
import { healthRoutes } from './health-routes.js';
import { jobsRoutes } from './jobs-routes.js';
import { type LiveOptions, liveRoutes } from './live-events.js';
import { sameOrigin } from './same-origin.js';
import { requireToken } from './token.js';
import { workflowsRoutes } from './workflows-routes.js';

/** What the API serves and how. */
export interface HttpApiOptions extends LiveOptions {
  store: Store;
  /** The client the actions go through (default: a new one on `store`). */
  client?: Client;
  /** When set, `/api/*` and `/metrics` need `Authorization: Bearer <token>`. */
  token?: string;
}

/** Builds the API app; `extend` adds more routes (the web app) before the 404. */
export function createHttpApi(options: HttpApiOptions, extend?: (app: Hono) => void): Hono {
  const { store } = options;
  const client = options.client ?? new Client(store);
  const app = new Hono();
  app.onError((error, c) => errorResponse(error, c));
  app.notFound((c) =>
    errorResponse(new NotFoundError('route', `${c.req.method} ${c.req.path}`), c),
  );

  const health = healthRoutes(store, () => client.clock.now(), options.token !== undefined);
  app.route('/', health.open);
  // The token first: a caller without it learns nothing else about the request.
  app.use('/api/*', requireToken(options.token));
  app.use('/metrics', requireToken(options.token));
  app.use('/api/*', sameOrigin(options.token !== undefined));
  app.use('/metrics', sameOrigin(options.token !== undefined));
  app.route('/', health.guarded);

  const api = new Hono();
  api.route('/', liveRoutes(store, client, options));
  api.route('/jobs', jobsRoutes(store, client));
  api.route('/jobs', jobActionRoutes(client));
  api.route('/workflows', workflowsRoutes(store));
  api.route('/dead-letters', deadLetterRoutes(client));
  app.route('/api', api);
  extend?.(app);
  return app;
}
