/**
 * `GET /api/schedules`: every cron schedule as `weft schedules --json` shows it (next
 * runs included), and `POST /api/schedules/:name/pause` and `/resume`, through the
 * client as `weft schedule pause|resume` do.
 */
import { Hono } from 'hono';
import type { Client } from '../../client/client.js';
import { scheduleJson } from '../../client/schedule-json.js';
import { jsonBody, pathId } from './request-input.js';

/** The schedule routes, under `/api/schedules`. */
export function schedulesRoutes(client: Client): Hono {
  const app = new Hono();
  app.get('/', async (c) => {
    const schedules = await client.schedules.list();
    return c.json({ schedules: schedules.map(scheduleJson) });
  });
  for (const op of ['pause', 'resume'] as const) {
    app.post(`/:id/${op}`, async (c) => {
      const name = pathId(c);
      await jsonBody(c);
      return c.json(scheduleJson(await client.schedules[op](name)));
    });
  }
  return app;
}
