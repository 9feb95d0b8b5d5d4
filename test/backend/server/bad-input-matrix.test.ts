/**
 * One bad-input matrix for every endpoint of both servers (`weft serve` and the
 * dashboard's API), over real HTTP, aimed at live things (a job waiting at its hook, its
 * task handed out, a decision handed out): wrong ids, bad and too deep JSON, huge bodies
 * (declared, chunked, endless), wrong content types, a foreign Origin or Host, missing,
 * wrong and partial tokens, unknown methods. Each answers a typed 4xx — and the store is
 * byte-for-byte what it was before (a dump of every table and sequence), with no 5xx
 * logged. Then the same targets, asked right, answer: the ids were live all along.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../src/server/http-api/request-input.js';
import { type RawAnswer, type RawRequest, rawRequest, streamBody } from '../../support/raw-http.js';
import { dumpStore } from '../../support/store-dump.js';
import { skipBackend } from '../../support/store-under-test.js';
import { AGENT_MAX_BODY, type PortsFixture, portsFixture, TOKEN } from './ports-fixture.js';

/** One endpoint: how to ask it right, and which of its parts are ids. */
interface Endpoint {
  method: 'GET' | 'POST';
  /** The path with `{id}` where an id goes. */
  path: string;
  /** The id that makes it live (absent: the path has none). */
  id?: string;
  /** A body it takes (POST). */
  body?: string;
  /** Whether it must be declared JSON (it acts). */
  acts: boolean;
}

interface Case {
  name: string;
  request: RawRequest;
  status: number | 'any4xx';
  code?: string;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

/** The bad requests for one endpoint of an open (loopback, no token) server. */
function openCases(e: Endpoint, hostPort: string): Case[] {
  const path = e.path.replace('{id}', encodeURIComponent(e.id ?? ''));
  const good: RawRequest = {
    method: e.method,
    path,
    headers: { ...JSON_TYPE },
    ...(e.body !== undefined ? { body: e.body } : {}),
  };
  const label = `${e.method} ${e.path}`;
  const cases: Case[] = [
    {
      name: `${label}: foreign Origin`,
      request: { ...good, headers: { ...JSON_TYPE, origin: 'http://evil.example' } },
      status: 403,
      code: 'FORBIDDEN',
    },
    {
      name: `${label}: opaque Origin`,
      request: { ...good, headers: { ...JSON_TYPE, origin: 'null' } },
      status: 403,
      code: 'FORBIDDEN',
    },
    {
      name: `${label}: another port's origin`,
      request: { ...good, headers: { ...JSON_TYPE, origin: 'http://127.0.0.1:1' } },
      status: 403,
      code: 'FORBIDDEN',
    },
    {
      name: `${label}: foreign Host (DNS rebinding)`,
      request: {
        ...good,
        headers: { ...JSON_TYPE, host: `evil.example:${hostPort.split(':')[1]}` },
      },
      status: 403,
      code: 'FORBIDDEN',
    },
    {
      name: `${label}: a Host that only starts like loopback`,
      request: { ...good, headers: { ...JSON_TYPE, host: '127.0.0.1.evil.example' } },
      status: 403,
      code: 'FORBIDDEN',
    },
  ];
  for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    cases.push({ name: `${label}: ${method}`, request: { ...good, method }, status: 'any4xx' });
  }
  if (e.acts) {
    for (const type of [
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
    ]) {
      cases.push({
        name: `${label}: Content-Type ${type ?? 'missing'}`,
        request: { ...good, headers: type ? { 'content-type': type } : {} },
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
    }
  }
  if (e.id !== undefined) {
    for (const id of ['no-such-id', 'x'.repeat(300), '%00', '%E0%A4%A', '..%2F..%2Fetc']) {
      cases.push({
        name: `${label}: id ${id.slice(0, 12)}`,
        request: { ...good, path: e.path.replace('{id}', id) },
        status: 'any4xx',
      });
    }
  }
  if (e.method === 'POST') {
    const bad: [string, string, string][] = [
      ['bad JSON', '{"name":', 'BAD_JSON'],
      ['deep JSON', `{"name":"approve","data":${deep(20_000)}}`, 'JSON_TOO_DEEP'],
      ['deep JSON', deep(9_000), 'JSON_TOO_DEEP'],
    ];
    for (const [what, body, code] of bad) {
      cases.push({ name: `${label}: ${what}`, request: { ...good, body }, status: 400, code });
      cases.push({
        name: `${label}: ${what}, chunked`,
        request: { ...good, body, chunked: true },
        status: 400,
        code,
      });
    }
    cases.push({
      name: `${label}: a declared length over the limit, never sent`,
      request: { ...good, headers: { ...JSON_TYPE, 'content-length': '1000000000' } },
      status: 413,
      code: 'BODY_TOO_LARGE',
    });
  }
  return cases;
}

/** The bad requests for one endpoint of a locked (token) server. */
function lockedCases(e: Endpoint, needsToken: boolean): Case[] {
  const path = e.path.replace('{id}', encodeURIComponent(e.id ?? ''));
  const good: RawRequest = {
    method: e.method,
    path,
    ...(e.body !== undefined ? { body: e.body } : {}),
  };
  const label = `${e.method} ${e.path} (locked)`;
  const cases: Case[] = [
    {
      name: `${label}: the right token from a foreign Origin`,
      request: {
        ...good,
        headers: { ...JSON_TYPE, authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' },
      },
      status: 403,
      code: 'FORBIDDEN',
    },
  ];
  if (!needsToken) return cases;
  const tokens: [string, string | undefined][] = [
    ['missing', undefined],
    ['scheme only', 'Bearer'],
    ['empty', 'Bearer '],
    ['wrong', 'Bearer K7f2-s3cret-token_0123456788'],
    ['partial', `Bearer ${TOKEN.slice(0, 10)}`],
    ['longer', `Bearer ${TOKEN}0`],
    ['no scheme', TOKEN],
    ['Basic', `Basic ${Buffer.from(`weft:${TOKEN}`).toString('base64')}`],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
  ];
  for (const [what, authorization] of tokens) {
    cases.push({
      name: `${label}: token ${what}`,
      request: {
        ...good,
        headers: { ...JSON_TYPE, ...(authorization !== undefined ? { authorization } : {}) },
      },
      status: 401,
      code: 'UNAUTHORIZED',
    });
  }
  return cases;
}

describe.skipIf(skipBackend)('bad input to every endpoint of both servers', () => {
  let f: PortsFixture;
  let before: string;

  beforeAll(async () => {
    f = await portsFixture();
    before = await dumpStore(f.url);
  });
  afterAll(async () => {
    await f?.close();
  });

  const agentEndpoints = (): Endpoint[] => [
    { method: 'GET', path: '/job?wait=0', acts: true },
    { method: 'GET', path: '/env/prod/lang/python/job?tasks=charge', acts: true },
    { method: 'GET', path: '/agents', acts: false },
    { method: 'POST', path: '/agents', body: '{"workflows":["evil"]}', acts: true },
    { method: 'GET', path: '/decisions/{id}/branch', id: f.ids.decision, acts: true },
    {
      method: 'POST',
      path: '/decisions/{id}/branch',
      id: f.ids.decision,
      body: '{"properties":{}}',
      acts: true,
    },
    {
      method: 'POST',
      path: '/decisions/{id}/execute',
      id: f.ids.decision,
      body: '[{"type":"task","name":"double","input":3,"position":"0"}]',
      acts: true,
    },
    {
      method: 'POST',
      path: '/tasks/{id}',
      id: f.ids.task,
      body: '{"status":"completed","output":{"forged":true}}',
      acts: true,
    },
    { method: 'POST', path: '/tasks/{id}/heartbeat', id: f.ids.task, acts: true },
  ];

  const dashboardEndpoints = (): Endpoint[] => {
    const job = f.ids.job;
    const post = (path: string, body: string, id = job): Endpoint => ({
      method: 'POST',
      path,
      id,
      body,
      acts: true,
    });
    return [
      { method: 'GET', path: '/api/jobs', acts: false },
      { method: 'GET', path: '/api/jobs/{id}', id: job, acts: false },
      { method: 'GET', path: '/api/jobs/{id}/history', id: job, acts: false },
      { method: 'GET', path: '/api/jobs/{id}/events', id: job, acts: false },
      { method: 'GET', path: '/api/events', acts: false },
      { method: 'GET', path: '/api/workflows', acts: false },
      { method: 'GET', path: '/api/dead-letters', acts: false },
      { method: 'GET', path: '/metrics', acts: false },
      { method: 'GET', path: '/healthz', acts: false },
      post('/api/jobs/{id}/signal', '{"name":"approve","data":{"forged":true}}'),
      post('/api/jobs/{id}/event', '{"name":"go"}', f.ids.instance),
      post('/api/jobs/{id}/cancel', '{}'),
      post('/api/jobs/{id}/pause', '{}'),
      post('/api/jobs/{id}/resume', '{}'),
      post('/api/jobs/{id}/rerun', '{"activity":"charge"}'),
      post('/api/dead-letters/{id}/requeue', '{}', '1'),
    ];
  };

  /** Sends every case; returns the ones answered otherwise than expected. */
  async function run(base: string, cases: Case[]) {
    const wrong: string[] = [];
    for (const c of cases) {
      let answer: RawAnswer;
      try {
        answer = await rawRequest(base, c.request);
      } catch (error) {
        wrong.push(`${c.name}: ${(error as Error).message}`);
        continue;
      }
      const typed =
        typeof answer.json?.error?.code === 'string' &&
        typeof answer.json?.error?.message === 'string';
      const statusOk =
        c.status === 'any4xx'
          ? answer.status >= 400 && answer.status < 500
          : answer.status === c.status;
      const codeOk = c.code === undefined || answer.json?.error?.code === c.code;
      if (!typed || !statusOk || !codeOk || !answer.headers['x-request-id']) {
        wrong.push(`${c.name}: ${answer.status} ${answer.text.slice(0, 160)}`);
      }
    }
    return wrong;
  }

  it('weft serve: every endpoint answers every bad request with a typed 4xx', async () => {
    const host = new URL(f.agent.open).host;
    const open = agentEndpoints().flatMap((e) => openCases(e, host));
    const locked = agentEndpoints().flatMap((e) => lockedCases(e, true));
    expect(open.length + locked.length).toBeGreaterThan(150);
    expect(await run(f.agent.open, open)).toEqual([]);
    expect(await run(f.agent.locked, locked)).toEqual([]);
    expect(f.failures).toEqual([]);
    expect(await dumpStore(f.url)).toBe(before);
  });

  it('the dashboard: every endpoint answers every bad request with a typed 4xx', async () => {
    const host = new URL(f.dashboard.open).host;
    const open = dashboardEndpoints().flatMap((e) => openCases(e, host));
    const locked = dashboardEndpoints().flatMap((e) =>
      lockedCases(e, e.path.startsWith('/api') || e.path === '/metrics'),
    );
    expect(open.length + locked.length).toBeGreaterThan(250);
    expect(await run(f.dashboard.open, open)).toEqual([]);
    expect(await run(f.dashboard.locked, locked)).toEqual([]);
    expect(f.failures).toEqual([]);
    expect(await dumpStore(f.url)).toBe(before);
  });

  it('an endless body is refused as soon as it passes the limit, not read to its end', async () => {
    const endless = 256 * 1024 * 1024;
    const targets: [string, string, number][] = [
      [f.agent.open, `/tasks/${encodeURIComponent(f.ids.task)}`, AGENT_MAX_BODY],
      [f.agent.open, '/agents', AGENT_MAX_BODY],
      [f.dashboard.open, `/api/jobs/${f.ids.job}/signal`, MAX_BODY_BYTES],
      [f.dashboard.open, '/api/dead-letters/1/requeue', MAX_BODY_BYTES],
    ];
    for (const [base, path, limit] of targets) {
      const answer = await streamBody(base, { method: 'POST', path, headers: JSON_TYPE }, endless);
      expect(answer, path).toMatchObject({
        status: 413,
        json: { error: { code: 'BODY_TOO_LARGE' } },
      });
      // The limit, the bounded read after the answer, and what the sockets buffer: far
      // from the 256 MiB the client had to send.
      expect(answer.written, path).toBeLessThan(limit + 48 * 1024 * 1024);
    }
    expect(f.failures).toEqual([]);
    expect(await dumpStore(f.url)).toBe(before);
  });

  it('the same targets, asked right, answer: they were live all along', async () => {
    const ask = (base: string, method: string, path: string, body?: string, token?: string) =>
      rawRequest(base, {
        method,
        path,
        headers: { ...JSON_TYPE, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body !== undefined ? { body } : {}),
      });
    const branch = await ask(
      f.agent.open,
      'GET',
      `/decisions/${encodeURIComponent(f.ids.decision)}/branch`,
    );
    expect(branch.json.branch).toMatchObject({ type: 'handle' });
    const recorded = await ask(
      f.agent.open,
      'POST',
      `/tasks/${encodeURIComponent(f.ids.task)}`,
      '{"status":"completed","output":{"paid":true}}',
    );
    expect(recorded.json).toEqual({ status: 'recorded' });
    const listed = await ask(f.dashboard.locked, 'GET', `/api/jobs/${f.ids.job}`, undefined, TOKEN);
    expect(listed.json.job.state).toBe('RUNNING');
    expect((await ask(f.agent.locked, 'GET', '/agents', undefined, TOKEN)).status).toBe(200);
    expect(await dumpStore(f.url)).not.toBe(before);
  });
});
