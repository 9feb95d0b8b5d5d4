/**
 * `GET /healthz` (200 `{ ok: true, store, token }` when the store answers — `token`: whether
 * the API wants one — 503 `{ ok: false, store, error: <code> }` otherwise) and
 * `GET /metrics` in the Prometheus text format: the store-wide series
 * (worker/metrics/store-series.ts: unfinished jobs by state, steps, streams, dead letters,
 * queues, schedules), read with a fixed set of indexed reads whatever the store's history
 * holds, then the series of the process's own `WeftMetrics` when it has one.
 */
import { Hono } from 'hono';
import { WeftError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import { StoreSeries } from '../../worker/metrics/store-series.js';
import type { WeftMetrics } from '../../worker/metrics/weft-metrics.js';
import { RETRY_AFTER_SECONDS } from './api-errors.js';

/**
 * `/healthz` and `/metrics`; `now` reads the clock; `metrics`, when given, are the
 * process's own series, served after the store's.
 */
export function healthRoutes(
  store: Store,
  now: () => number = Date.now,
  tokenRequired = false,
  metrics?: WeftMetrics,
): {
  open: Hono;
  guarded: Hono;
} {
  const open = new Hono();
  open.get('/healthz', async (c) => {
    try {
      await store.lastStep();
      return c.json({ ok: true, store: store.dialect, token: tokenRequired });
    } catch (error) {
      // Open to anyone: the code only, not the store's message (hosts, paths).
      const code = error instanceof WeftError ? error.code : 'STORE';
      return c.json({ ok: false, store: store.dialect, error: code }, 503, {
        'retry-after': String(RETRY_AFTER_SECONDS),
      });
    }
  });
  const guarded = new Hono();
  const series = new StoreSeries(store);
  guarded.get('/metrics', async (c) => {
    const text = await series.text(now());
    const own = metrics ? await metrics.text() : '';
    return c.text(text + own, 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    });
  });
  return { open, guarded };
}
