/**
 * The HTTP API's parts that need no store: the token comparison, which hosts count as
 * loopback, the error-to-status table, and the Prometheus text.
 */
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  ForbiddenOriginError,
  NotFoundError,
  StoreError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
  WeftError,
} from '../../src/core/errors.js';
import { errorAnswer, statusOf } from '../../src/server/http-api/api-errors.js';
import { isLoopback } from '../../src/server/http-api/same-origin.js';
import { sameToken } from '../../src/server/http-api/token.js';
import { metricsText } from '../../src/worker/metrics/store-series.js';

describe('the HTTP API parts', () => {
  it('compares tokens whole, whatever their lengths', () => {
    expect(sameToken('sesame', 'sesame')).toBe(true);
    expect(sameToken('sesam', 'sesame')).toBe(false);
    expect(sameToken('sesame!', 'sesame')).toBe(false);
    expect(sameToken('', 'sesame')).toBe(false);
  });

  it('takes only this machine for loopback', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) {
      expect(isLoopback(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.4', 'example.com', '127.0.0.1.example.com']) {
      expect(isLoopback(host), host).toBe(false);
    }
  });

  it('maps typed errors to statuses: 4xx for the client, 503 for a busy store or an unconfirmed change, 500 else', () => {
    expect(statusOf(new NotFoundError('job', 'x'))).toBe(404);
    expect(statusOf(new UnauthorizedError())).toBe(401);
    expect(statusOf(new ForbiddenOriginError('no'))).toBe(403);
    expect(statusOf(new ValidationError('big', 'body', { code: 'BODY_TOO_LARGE' }))).toBe(413);
    expect(statusOf(new UnsupportedMediaTypeError())).toBe(415);
    expect(statusOf(new ConflictError('no'))).toBe(409);
    expect(statusOf(new WeftError('NO_SUCH_HOOK', 'no'))).toBe(422);
    expect(statusOf(new ValidationError('bad', 'body', { code: 'BAD_JSON' }))).toBe(400);
    expect(statusOf(new ValidationError('deep', 'body', { code: 'JSON_TOO_DEEP' }))).toBe(400);
    expect(statusOf(new StoreError('locked', { code: 'STORE_BUSY' }))).toBe(503);
    expect(statusOf(new StoreError('broken SQL', { code: 'STORE_SQL' }))).toBe(500);
    expect(statusOf(new StoreError('1 of 2', { code: 'STORE_NOT_REPLICATED' }))).toBe(503);
    expect(statusOf(new RangeError('Maximum call stack size exceeded'))).toBe(500);
  });

  it('logs every 5xx under a request id the answer carries, and names no internals', () => {
    const logged: unknown[][] = [];
    const logger = {
      error: (...line: unknown[]) => logged.push(['error', ...line]),
      warn: (...line: unknown[]) => logged.push(['warn', ...line]),
      info: () => {},
    };
    const request = { requestId: 'abc123', method: 'GET', path: '/api/jobs', logger };
    const failed = errorAnswer(new TypeError('secret internals'), request);
    expect(failed.status).toBe(500);
    expect(failed.headers['x-request-id']).toBe('abc123');
    expect(failed.body.error).toMatchObject({ code: 'INTERNAL', requestId: 'abc123' });
    expect(JSON.stringify(failed.body)).not.toContain('secret internals');
    expect(logged[0]?.[0]).toBe('error');
    expect(logged[0]?.[3]).toMatchObject({ requestId: 'abc123', path: '/api/jobs', status: 500 });

    const busy = errorAnswer(new StoreError('locked', { code: 'STORE_BUSY' }), request);
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.body.error).toMatchObject({ code: 'STORE_BUSY', requestId: 'abc123' });
    expect(logged[1]?.[0]).toBe('warn');

    // Applied but not confirmed by enough replicas: a 503 that does not invite a retry.
    const unconfirmed = errorAnswer(
      new StoreError('0 of 1 replicas at 10.0.0.5:6379', { code: 'STORE_NOT_REPLICATED' }),
      request,
    );
    expect(unconfirmed.status).toBe(503);
    expect(unconfirmed.headers['retry-after']).toBeUndefined();
    expect(unconfirmed.body.error).toMatchObject({ code: 'STORE_NOT_REPLICATED' });
    expect(unconfirmed.body.error.message).toContain('a retry may make it twice');
    expect(JSON.stringify(unconfirmed.body)).not.toContain('10.0.0.5');
    expect(logged[2]?.[0]).toBe('warn');

    const mistake = errorAnswer(new NotFoundError('job', 'x'), request);
    expect(mistake).toMatchObject({ status: 404, headers: {} });
    expect(logged).toHaveLength(3);
  });

  it('writes Prometheus text: HELP and TYPE per metric, labels escaped, the engine streams always', () => {
    const text = metricsText(
      {
        jobs: { RUNNING: 3, SUSPENDED: 1 },
        streams: [
          { stream: 'task:"odd"\\name', messages: 2, claimed: 1, expiredLeases: 1, deadLetters: 4 },
        ],
        steps: 120,
      },
      { steps: 12.5 },
      0,
    );
    expect(text).toContain('# TYPE weft_jobs gauge\n');
    expect(text).toContain('weft_jobs{state="RUNNING"} 3\n');
    expect(text).toContain('weft_jobs{state="PENDING"} 0\n');
    expect(text).toContain('weft_jobs{state="SUSPENDED"} 1\n');
    // Finished jobs are counted as they end, by the workers (weft_jobs_ended_total).
    expect(text).not.toMatch(/state="(SUCCESS|FAILURE|REVERTED)"/);
    expect(text).toContain('# TYPE weft_steps_total counter\nweft_steps_total 120\n');
    expect(text).toContain('weft_steps_per_second 12.5\n');
    expect(text).toContain('weft_stream_depth{stream="task:\\"odd\\"\\\\name"} 2\n');
    expect(text).toContain('weft_lease_expiries{stream="task:\\"odd\\"\\\\name"} 1\n');
    expect(text).toContain('weft_dead_letters{stream="task:\\"odd\\"\\\\name"} 4\n');
    expect(text).toContain('weft_stream_depth{stream="engine"} 0\n');
    expect(text).toContain('weft_stream_depth{stream="durable"} 0\n');
    for (const line of text.trimEnd().split('\n')) {
      expect(line).toMatch(/^(# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? [\d.]+)$/);
    }
    expect(text).not.toContain('weft_schedule');
  });

  it("writes each schedule's runs, skipped ticks, pause and next tick", () => {
    const schedule = {
      name: 'nightly',
      workflow: 'report',
      cron: '0 3 * * *',
      timezone: 'UTC',
      input: null,
      overlap: 'skip' as const,
      catchupWindowMs: 60_000,
      paused: false,
      nextAt: 1_795_000_000_000,
      bufferedAt: null,
      lastTickAt: null,
      lastJob: null,
      lastError: null,
      runs: 7,
      skipped: 2,
      source: 'cli',
      createdAt: 0,
      updatedAt: 0,
    };
    const text = metricsText({ jobs: {}, streams: [], steps: 0 }, { steps: 0 }, 0, [
      schedule,
      { ...schedule, name: 'paused', paused: true, runs: 0 },
    ]);
    expect(text).toContain(
      '# TYPE weft_schedule_runs_total counter\nweft_schedule_runs_total{schedule="nightly"} 7\n',
    );
    expect(text).toContain('weft_schedule_skipped_total{schedule="nightly"} 2\n');
    expect(text).toContain('weft_schedule_paused{schedule="paused"} 1\n');
    expect(text).toContain(
      'weft_schedule_next_run_timestamp_seconds{schedule="nightly"} 1795000000\n',
    );
    expect(text).toContain('weft_schedule_next_run_timestamp_seconds{schedule="paused"} 0\n');
  });

  it("writes each queue's running and waiting jobs and its longest wait", () => {
    const text = metricsText(
      { jobs: {}, streams: [], steps: 0 },
      { steps: 0 },
      10_000,
      [],
      [
        { queue: 'charges', key: 'a', running: 1, waiting: 2, oldestWaiting: 4_000 },
        { queue: 'charges', key: 'b', running: 2, waiting: 0, oldestWaiting: null, attempts: 3 },
        { queue: 'idle', key: '', running: 1, waiting: 0, oldestWaiting: null },
      ],
    );
    expect(text).toContain('weft_queue_task_attempts_running{queue="charges"} 3\n');
    expect(text).toContain('weft_queue_task_attempts_running{queue="idle"} 0\n');
    expect(text).toContain(
      '# TYPE weft_queue_running gauge\nweft_queue_running{queue="charges"} 3\n',
    );
    expect(text).toContain('weft_queue_depth{queue="charges"} 2\n');
    expect(text).toContain('weft_queue_oldest_wait_seconds{queue="charges"} 6\n');
    expect(text).toContain('weft_queue_oldest_wait_seconds{queue="idle"} 0\n');
  });

  it("writes each queue's wait histogram, rate-limited delay and keys held by their rate", () => {
    const record = {
      name: 'charges',
      concurrency: null,
      keyConcurrency: null,
      rateLimit: 20,
      ratePeriodMs: 2000,
      keyRateLimit: 1,
      keyRatePeriodMs: 1000,
      throttle: 'wait' as const,
      agingMs: 60_000,
      // 20 per 2 s: the limiter 2.5 s ahead holds the next start back 0.6 s.
      rateTat: 12_500,
      keyTats: { a: 11_000, b: 10_000, c: 9_000 },
      lastKey: null,
      waits: { count: 3, sumMs: 2_040, buckets: [1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3] },
      source: 'cli',
      createdAt: 0,
      updatedAt: 0,
    };
    const text = metricsText(
      { jobs: {}, streams: [], steps: 0 },
      { steps: 0 },
      10_000,
      [],
      [],
      [record],
    );
    // A queue with nothing in it now is listed all the same.
    expect(text).toContain('weft_queue_depth{queue="charges"} 0\n');
    expect(text).toContain('weft_queue_rate_limited_delay_seconds{queue="charges"} 0.6\n');
    // At 1 per second a key is held until its limiter: a (1 s ahead) is; b and c are not.
    expect(text).toContain('weft_queue_rate_limited_keys{queue="charges"} 1\n');
    expect(text).toContain(
      [
        '# TYPE weft_queue_wait_seconds histogram',
        'weft_queue_wait_seconds_bucket{queue="charges",le="0.01"} 1',
        'weft_queue_wait_seconds_bucket{queue="charges",le="0.05"} 2',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        'weft_queue_wait_seconds_bucket{queue="charges",le="3600"} 3',
        'weft_queue_wait_seconds_bucket{queue="charges",le="+Inf"} 3',
        'weft_queue_wait_seconds_sum{queue="charges"} 2.04',
        'weft_queue_wait_seconds_count{queue="charges"} 3',
      ].join('\n'),
    );
  });
});
