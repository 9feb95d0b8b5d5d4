/**
 * The live streams (server-sent events). `GET /api/jobs/:id/events` sends the job's
 * detail (`event: job`) at once and again after every step it takes, with the history
 * lines that step wrote (`event: history`), and `event: end` once it has ended.
 * `GET /api/events` sends `event: change` with the store's step high-water mark whenever
 * any job moved, so a list re-reads its page. Both watch the store: the history's
 * high-water mark (one indexed read) every `pollMs`, woken early by the job's notice.
 */
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Client } from '../../client/client.js';
import { NotFoundError } from '../../core/errors.js';
import { isFinalFlowState } from '../../core/states.js';
import type { Store } from '../../store/store.js';
import { jobDetail } from './job-detail.js';
import { pathId } from './request-input.js';

/** How often a stream looks at the store, and how often it sends a keep-alive comment. */
export interface LiveOptions {
  pollMs?: number;
  keepAliveMs?: number;
}

/** Resolves after `ms`, or at once when `signal` aborts (leaving no listener behind). */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

/** `/api/events` and `/api/jobs/:id/events`. */
export function liveRoutes(store: Store, client: Client, options: LiveOptions = {}): Hono {
  const pollMs = options.pollMs ?? 500;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const app = new Hono();

  app.get('/events', (c) =>
    streamSSE(c, async (stream) => {
      const aborted = new AbortController();
      stream.onAbort(() => aborted.abort());
      let last = -1;
      let quiet = 0;
      while (!aborted.signal.aborted) {
        const step = await store.lastStep();
        if (step !== last) {
          last = step;
          quiet = 0;
          await stream.writeSSE({ event: 'change', data: JSON.stringify({ step }) });
        } else {
          quiet += pollMs;
          if (quiet >= keepAliveMs) {
            quiet = 0;
            await stream.write(': keep-alive\n\n');
          }
        }
        await sleep(pollMs, aborted.signal);
      }
    }),
  );

  app.get('/jobs/:id/events', async (c) => {
    const id = pathId(c);
    // A job that does not exist is a 404 before the stream starts.
    if (!(await store.getJob(id))) throw new NotFoundError('job', id);
    return streamSSE(c, async (stream) => {
      const aborted = new AbortController();
      stream.onAbort(() => aborted.abort());
      let wake: () => void = () => {};
      const unsubscribe = await store.subscribe({ kind: 'job', id }, () => wake());
      try {
        let seq = 0;
        let sent = false;
        let lastStep = -1;
        let quiet = 0;
        while (!aborted.signal.aborted) {
          const step = await store.lastStep();
          if (step !== lastStep) {
            lastStep = step;
            const lines = await client.history(id, { afterSeq: seq, limit: 1000 });
            if (lines.length > 0 || !sent) {
              sent = true;
              quiet = 0;
              seq = lines.at(-1)?.seq ?? seq;
              const detail = await jobDetail(store, client, id);
              await stream.writeSSE({ event: 'job', data: JSON.stringify(detail) });
              if (lines.length > 0) {
                await stream.writeSSE({ event: 'history', data: JSON.stringify(lines) });
              }
              if (isFinalFlowState(detail.job.state)) {
                await stream.writeSSE({
                  event: 'end',
                  data: JSON.stringify({ state: detail.job.state }),
                });
                return;
              }
            }
          }
          quiet += pollMs;
          if (quiet >= keepAliveMs) {
            quiet = 0;
            await stream.write(': keep-alive\n\n');
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
            void sleep(pollMs, aborted.signal).then(resolve);
          });
        }
      } finally {
        await unsubscribe();
      }
    });
  });

  return app;
}
