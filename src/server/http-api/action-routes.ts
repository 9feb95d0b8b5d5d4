/**
 * The actions, each through the client API (so each is what `weft signal`, `weft cancel`,
 * `weft pause`… do, and recorded the same way): `POST /api/jobs/:id/signal` (`{ name,
 * data }`; a graph job's hook), `/event` (the same, to a code-first job), `/cancel`,
 * `/pause`, `/resume` (only of a SUSPENDED job), `/rerun` (`{ from }`, or `{ activity }`:
 * a new job that keeps the results before that step — a graph activity or a code-first
 * step), and `POST /api/dead-letters/:id/requeue`, plus `GET /api/dead-letters`. A request
 * the job cannot take in its state (a signal to an ended job, pausing a job whose kind
 * cannot pause, rerunning a job still running) is a 409 and changes nothing.
 */
import { Hono } from 'hono';
import type { Client } from '../../client/client.js';
import { ConflictError, NotFoundError, StoreError, WeftError } from '../../core/errors.js';
import type { Json } from '../../store/records.js';
import { bodyString, jsonBody, pathId, queryNumber } from './request-input.js';

/**
 * Runs a client call; its refusals other than "not found" become conflicts (a store that
 * failed stays a store error: 503 when busy, not the job's fault).
 */
async function act<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (
      error instanceof WeftError &&
      !(error instanceof NotFoundError) &&
      !(error instanceof StoreError) &&
      error.code !== 'NO_SUCH_HOOK'
    ) {
      throw new ConflictError(error.message, { cause: error });
    }
    throw error;
  }
}

/**
 * Only a suspended job can be resumed: resuming a running, pending or ended job is a 409
 * that says so (the client takes it as a no-op, or refuses an ended job; the page offers
 * Resume only on a SUSPENDED job). SUSPENDING passes through to the client, which refuses
 * it with its own reason.
 */
async function refuseUnlessSuspended(client: Client, id: string): Promise<void> {
  const { state } = await client.result(id);
  if (state === 'SUSPENDED' || state === 'SUSPENDING') return;
  throw new ConflictError(
    `job ${id} is ${state}, not SUSPENDED: only a suspended (paused) job can be resumed`,
    { code: 'NOT_SUSPENDED' },
  );
}

/** The job actions, under `/api/jobs`. */
export function jobActionRoutes(client: Client): Hono {
  const app = new Hono();
  app.post('/:id/signal', async (c) => {
    const id = pathId(c);
    const body = await jsonBody(c);
    const name = bodyString(body, 'name');
    const data: Json = body.data === undefined ? null : body.data;
    const outcome = await act(() => client.signal(id, name, data));
    return c.json({ job: id, signal: name, outcome });
  });
  app.post('/:id/event', async (c) => {
    const id = pathId(c);
    const body = await jsonBody(c);
    const name = bodyString(body, 'name');
    const data: Json = body.data === undefined ? null : body.data;
    await act(() => client.sendEvent(id, name, data));
    return c.json({ job: id, event: name });
  });
  app.post('/:id/cancel', async (c) => {
    const id = pathId(c);
    await jsonBody(c);
    const job = await act(() => client.cancel(id));
    return c.json({ job: id, state: job.state });
  });
  app.post('/:id/rerun', async (c) => {
    const id = pathId(c);
    const body = await jsonBody(c);
    // `{ from }` (a graph activity or a code-first step), or `{ activity }` as before.
    const from = bodyString(body, body.activity !== undefined ? 'activity' : 'from');
    const rerun = await act(() => client.rerun(id, { from }));
    return c.json({
      job: rerun.job.id,
      rerunOf: id,
      from,
      kept: rerun.kept,
      again: rerun.again,
    });
  });
  for (const op of ['pause', 'resume'] as const) {
    app.post(`/:id/${op}`, async (c) => {
      const id = pathId(c);
      await jsonBody(c);
      if (op === 'resume') await refuseUnlessSuspended(client, id);
      const job = await act(() => client[op](id));
      return c.json({ job: id, state: job.state });
    });
  }
  return app;
}

/** `GET /api/dead-letters` and `POST /api/dead-letters/:id/requeue`. */
export function deadLetterRoutes(client: Client): Hono {
  const app = new Hono();
  app.get('/', async (c) => {
    const limit = queryNumber(c, 'limit', 100, 1, 1000);
    const stream = c.req.query('stream') || undefined;
    const letters = await client.deadLetters({ limit, ...(stream && { stream }) });
    return c.json({ deadLetters: letters });
  });
  app.post('/:id/requeue', async (c) => {
    const id = pathId(c);
    await jsonBody(c);
    const requeued = await act(() => client.requeueDeadLetter(id));
    return c.json(requeued);
  });
  return app;
}
