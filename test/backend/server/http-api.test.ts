/**
 * The dashboard's HTTP API on the store under test: the jobs list (filters, search, counts,
 * keyset pages), a graph job's detail (graph, digits, records, semaphores, children), its
 * live stream, workflows with running jobs per activity, the actions through the client
 * (a hook's signal moves its digit), dead letters, /healthz and /metrics — and bad input
 * to every endpoint answered with a typed 4xx that changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { createHttpApi } from '../../../src/server/http-api/api.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';

const order = compileWorkflow(`
workflow: order
activities:
  start:  { kind: trigger }
  charge: { kind: task }
  wait:   { kind: hook, signal: approve }
  ship:   { kind: task }
transitions:
  start: [charge]
  charge: [wait]
  wait: [ship]
output: "ship.output"
`);

/** A parsed response body, read loosely as a user reads JSON. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are read as JSON, field by field
type Body = any;

const TOKEN = 'sesame-0123456789';

describe.skipIf(skipBackend)('HTTP API', () => {
  let store: Store;
  let close: () => Promise<void>;
  let client: Client;
  let worker: Worker;
  let api: ReturnType<typeof createHttpApi>;
  let locked: ReturnType<typeof createHttpApi>;

  const call = async (
    path: string,
    init: RequestInit = {},
    app = api,
  ): Promise<{ status: number; body: Body }> => {
    const response = await app.request(path, init);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, body };
  };
  const post = (path: string, body: unknown, app = api) =>
    call(
      path,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      },
      app,
    );

  beforeAll(async () => {
    ({ store, close } = await openTestStore());
    client = new Client(store);
    await client.deploy(order);
    worker = new Worker({
      store,
      concurrency: 4,
      handlers: { charge: async () => ({ paid: 42 }), ship: async () => 'shipped' },
    });
    await worker.start();
    api = createHttpApi({ store, client, pollMs: 50 });
    locked = createHttpApi({ store, client, token: TOKEN, pollMs: 50 });
  });
  afterAll(async () => {
    await worker?.stop();
    await close?.();
  });

  const waitFor = async <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > end) throw new Error(`timed out; last ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('shows a running graph job with its graph, digits, records and semaphores, and a signal from the API moves its hook digit', async () => {
    const job = await client.start('order', { n: 1 });
    const paused = await waitFor(
      () => call(`/api/jobs/${job.id}`),
      (r) => r.body.digits?.find((d: Body) => d.activity === 'wait')?.label === 'Paused',
    );
    expect(paused.status).toBe(200);
    const detail = paused.body;
    expect(detail.job.state).toBe('RUNNING');
    expect(detail.graph.order).toEqual(['charge', 'ship', 'start', 'wait']);
    expect(detail.graph.transitions).toContainEqual(
      expect.objectContaining({ from: 'charge', to: 'wait' }),
    );
    expect(detail.digits.map((d: Body) => d.activity)).toEqual(['charge', 'ship', 'start', 'wait']);
    expect(detail.job.collation.slice(0, 4)).toBe(
      detail.digits.map((d: Body) => String(d.digit)).join(''),
    );
    const charge = detail.records.find((r: Body) => r.activity === 'charge');
    expect(charge).toMatchObject({ status: 'SUCCESS', output: { paid: 42 }, attempt: 1 });
    const sem = detail.semaphores.find((s: Body) => s.activity === 'charge');
    expect(sem.value).toHaveLength(15);
    expect(sem.reading).toMatch(/Leg2 closed/);

    const signalled = await post(`/api/jobs/${job.id}/signal`, {
      name: 'approve',
      data: { by: 'ana' },
    });
    expect(signalled.status).toBe(200);
    const done = await client.result(job.id, { wait: true, timeoutMs: 20_000 });
    expect(done.state).toBe('SUCCESS');
    const after = await call(`/api/jobs/${job.id}`);
    expect(after.body.digits.find((d: Body) => d.activity === 'wait').label).toBe('Released');
    const history = await call(`/api/jobs/${job.id}/history`);
    expect(history.body.history.length).toBeGreaterThan(3);

    // Rerun from ship: a new job that keeps charge and the hook's release, and ships again.
    const rerun = await post(`/api/jobs/${job.id}/rerun`, { activity: 'ship' });
    expect(rerun).toMatchObject({ status: 200, body: { rerunOf: job.id, again: ['ship'] } });
    const again = await client.result(rerun.body.job, { wait: true, timeoutMs: 20_000 });
    expect(again).toMatchObject({ state: 'SUCCESS', output: 'shipped' });
  });

  it('lists jobs newest first with counts by state, filters, search by id and keyset pages', async () => {
    const started = [];
    for (let i = 0; i < 5; i++) started.push(await client.start('order', { i }));
    const first = await call('/api/jobs?limit=2&workflow=order');
    expect(first.status).toBe(200);
    expect(first.body.jobs.map((j: Body) => j.id)).toEqual([started[4]?.id, started[3]?.id]);
    expect(first.body.total).toBe(7);
    expect(first.body.counts.SUCCESS).toBe(2);
    const second = await call(`/api/jobs?limit=2&workflow=order&after=${first.body.next}`);
    expect(second.body.jobs.map((j: Body) => j.id)).toEqual([started[2]?.id, started[1]?.id]);
    const succeeded = await call('/api/jobs?state=SUCCESS');
    expect(succeeded.body.jobs).toHaveLength(2);
    const found = await call(`/api/jobs?id=${started[0]?.id}`);
    expect(found.body.jobs.map((j: Body) => j.id)).toEqual([started[0]?.id]);
    const none = await call('/api/jobs?workflow=nothing');
    expect(none.body).toMatchObject({ jobs: [], total: 0, next: null });
    const future = await call(`/api/jobs?from=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(future.body.jobs).toEqual([]);
  });

  it('counts running jobs per activity on the workflows page', async () => {
    const res = await waitFor(
      () => call('/api/workflows'),
      (r) => (r.body.workflows[0]?.versions[0]?.activities.wait?.Paused ?? 0) >= 5,
    );
    const wf = res.body.workflows[0];
    expect(wf).toMatchObject({ workflow: 'order', model: 'graph', newest: 1 });
    expect(wf.versions[0].graph.trigger).toBe('start');
    expect(wf.versions[0].activities.charge.Completed).toBeGreaterThanOrEqual(5);
  });

  it('streams a job live: its detail at once, again after each step, and an end', async () => {
    const job = await client.start('order', { live: true });
    const response = await api.request(`/api/jobs/${job.id}/events`);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const decoder = new TextDecoder();
    const readUntil = async (pattern: RegExp) => {
      const end = Date.now() + 20_000;
      while (!pattern.test(text)) {
        if (Date.now() > end) throw new Error(`no ${pattern} in ${text.slice(-500)}`);
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil(/"label":"Paused"/);
    await client.signal(job.id, 'approve', null);
    await readUntil(/event: end/);
    expect(text).toMatch(/event: history/);
    await reader.cancel();
  });

  it('serves /healthz and Prometheus /metrics', async () => {
    const health = await call('/healthz');
    expect(health).toMatchObject({ status: 200, body: { ok: true } });
    const metrics = await call('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^weft_jobs\{state="RUNNING"\} \d+$/m);
    expect(metrics.body).toMatch(/^weft_steps_total \d+$/m);
    expect(metrics.body).not.toContain('weft_handler_runs_total');
    expect(metrics.body).toMatch(/^weft_stream_depth\{stream="[^"]+"\} \d+$/m);
    expect(metrics.body).toMatch(/# TYPE weft_lease_expiries gauge/);
  });

  it('answers bad input with a typed 4xx and changes nothing', async () => {
    const job = await client.start('order', { bad: true });
    await waitFor(
      () => client.status(job.id),
      (v) => v.activities.find((a) => a.id === 'wait')?.state === 'Paused',
    );
    const before = await client.status(job.id);
    const steps = await store.lastStep();

    expect(await call('/api/jobs/no-such-job')).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
    expect((await call(`/api/jobs/${'x'.repeat(300)}`)).body.error.code).toBe('BAD_ID');
    expect((await call('/api/jobs/no-such-job/events')).status).toBe(404);
    expect((await post('/api/jobs/no-such-job/signal', { name: 'approve' })).status).toBe(404);
    expect((await post(`/api/jobs/${job.id}/signal`, '{"name":')).body.error.code).toBe('BAD_JSON');
    expect((await post(`/api/jobs/${job.id}/signal`, '[1,2]')).body.error.code).toBe('BAD_JSON');
    expect((await post(`/api/jobs/${job.id}/signal`, { data: 1 })).status).toBe(400);
    const huge = await post(`/api/jobs/${job.id}/signal`, {
      name: 'approve',
      data: 'x'.repeat(100_000),
    });
    expect(huge).toMatchObject({ status: 413, body: { error: { code: 'BODY_TOO_LARGE' } } });
    expect((await post(`/api/jobs/${job.id}/signal`, { name: 'nope' })).status).toBe(422);
    expect((await post('/api/jobs/no-such-job/pause', {})).status).toBe(404);
    expect((await post(`/api/jobs/${job.id}/rerun`, {})).status).toBe(400);
    expect((await post(`/api/jobs/${job.id}/rerun`, { activity: 'nope' })).status).toBe(404);
    expect((await call('/api/jobs?limit=0')).status).toBe(400);
    expect((await call('/api/jobs?state=DANCING')).status).toBe(400);
    expect((await call('/api/jobs?from=yesterday')).status).toBe(400);
    expect((await post('/api/dead-letters/12345/requeue', {})).status).toBe(404);
    expect((await call('/api/nothing-here')).status).toBe(404);

    // Other web sites: a form post (not JSON), another Origin, a foreign Host (DNS
    // rebinding) are refused before anything runs.
    const form = await call(`/api/jobs/${job.id}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(form).toMatchObject({
      status: 415,
      body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
    });
    expect((await call(`/api/jobs/${job.id}/cancel`, { method: 'POST' })).status).toBe(415);
    const foreign = await call(`/api/jobs/${job.id}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{}',
    });
    expect(foreign).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    expect((await call('/api/jobs', { headers: { host: 'evil.example:7070' } })).status).toBe(403);
    expect((await call('/api/jobs', { headers: { host: '127.0.0.1:7070' } })).status).toBe(200);
    expect(
      (
        await call('/api/jobs', {
          headers: { host: 'evil.example', origin: 'http://evil.example' },
        })
      ).status,
    ).toBe(403);

    // The token: missing or wrong is a 401 on the API and /metrics; /healthz stays open.
    expect((await call('/api/jobs', {}, locked)).body.error.code).toBe('UNAUTHORIZED');
    expect((await call('/metrics', {}, locked)).status).toBe(401);
    const wrong = { headers: { authorization: 'Bearer sesame-0123456788' } };
    expect((await call('/api/jobs', wrong, locked)).status).toBe(401);
    const cancelled = await call(
      `/api/jobs/${job.id}/cancel`,
      { method: 'POST', headers: { authorization: 'Bearer nope' } },
      locked,
    );
    expect(cancelled.status).toBe(401);
    expect((await call('/healthz', {}, locked)).status).toBe(200);
    const right = { headers: { authorization: `Bearer ${TOKEN}` } };
    expect((await call('/api/jobs', right, locked)).status).toBe(200);

    expect(await store.lastStep()).toBe(steps);
    const now = await client.status(job.id);
    expect(now.collation).toBe(before.collation);
    expect(now.state).toBe('RUNNING');
    expect(now.updatedAt).toBe(before.updatedAt);

    // And the same job cancelled through the API ends, recorded in its history.
    const ok = await post(`/api/jobs/${job.id}/cancel`, {});
    expect(ok).toMatchObject({ status: 200, body: { state: 'FAILURE' } });
    const history = await client.history(job.id);
    expect(history.at(-1)?.kind).toBe('cancel');
    expect((await post(`/api/jobs/${job.id}/signal`, { name: 'approve' })).status).toBe(409);
  });

  it('pauses and resumes a graph job: SUSPENDED while it waits at its hook, RUNNING again, then SUCCESS', async () => {
    const job = await client.start('order', { n: 2 });
    await waitFor(
      () => call(`/api/jobs/${job.id}`),
      (r) => r.body.digits?.find((d: Body) => d.activity === 'wait')?.label === 'Paused',
    );
    const paused = await post(`/api/jobs/${job.id}/pause`, {});
    expect(paused.status).toBe(200);
    // Nothing runs while a hook waits: SUSPENDING passes straight to SUSPENDED.
    expect((await call(`/api/jobs/${job.id}`)).body.job.state).toBe('SUSPENDED');
    expect((await post(`/api/jobs/${job.id}/pause`, {})).status).toBe(200);
    expect((await post(`/api/jobs/${job.id}/resume`, {})).status).toBe(200);
    expect((await call(`/api/jobs/${job.id}`)).body.job.state).toBe('RUNNING');
    await post(`/api/jobs/${job.id}/signal`, { name: 'approve', data: { by: 'ana' } });
    const done = await client.result(job.id, { wait: true, timeoutMs: 20_000 });
    expect(done.state).toBe('SUCCESS');
    const kinds = (await call(`/api/jobs/${job.id}/history`)).body.history.map((h: Body) => h.kind);
    expect(kinds).toEqual(expect.arrayContaining(['suspend', 'resume']));
  });
});
