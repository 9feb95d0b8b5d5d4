/**
 * `GET /api/queues`: every queue as `weft queues --json` shows it — its limits, the jobs
 * running and waiting in it, and per key.
 */
import { Hono } from 'hono';
import type { Client } from '../../client/client.js';

/** The queue routes, under `/api/queues`. */
export function queuesRoutes(client: Client): Hono {
  const app = new Hono();
  app.get('/', async (c) => c.json({ queues: await client.queues.list() }));
  return app;
}
