/**
 * Both servers say what went wrong on their side honestly. A store that cannot take the
 * request now — SQLite locked by another writer past its busy timeout, PostgreSQL gone —
 * is a 503 with `Retry-After` (not a 409 that blames the job, not a 500), and the same
 * request succeeds once the store is back. A fault of the server is a 500 that names no
 * internals, logged with a request id that the answer carries in its body and header.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { AgentServer } from '../../../src/server/agent-server.js';
import { type RunningDashboard, startDashboard } from '../../../src/server/dashboard.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { parseStoreUrl } from '../../../src/store/url.js';
import type { LogFields } from '../../../src/worker/worker-options.js';
import { rawRequest } from '../../support/raw-http.js';
import { backend, openTestStore, skipBackend } from '../../support/store-under-test.js';

const hook = compileWorkflow(`
workflow: held
activities:
  start: { kind: trigger }
  wait:  { kind: hook, signal: go }
transitions:
  start: [wait]
`);

interface Line {
  level: string;
  message: string;
  fields: LogFields | undefined;
}

function recordingLogger(lines: Line[]) {
  return {
    error: (message: string, _e?: unknown, fields?: LogFields) =>
      lines.push({ level: 'error', message, fields }),
    warn: (message: string, _e?: unknown, fields?: LogFields) =>
      lines.push({ level: 'warn', message, fields }),
    info() {},
  };
}

const JSON_TYPE = { 'content-type': 'application/json' };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Both servers over `store`, logging to `lines`. */
async function servers(store: Store, lines: Line[]) {
  const logger = recordingLogger(lines);
  const agent = new AgentServer({ store, tasks: ['charge'], logger });
  const agentUrl = (await agent.listen(0)).url;
  const dashboard: RunningDashboard = await startDashboard({ store, port: 0, logger });
  cleanups.push(async () => {
    await dashboard.close();
    await agent.close();
  });
  return { agentUrl, dashboardUrl: dashboard.url };
}

describe.skipIf(skipBackend)('honest statuses from both servers', () => {
  it('a store that cannot take the request now is a 503 with Retry-After; later the same request succeeds', async () => {
    let store: Store;
    let hold: () => Promise<void>;
    let release: () => Promise<void>;
    if (backend === 'sqlite') {
      const opened = await openTestStore();
      cleanups.push(opened.close);
      store = opened.store;
      const path = (parseStoreUrl(opened.url) as { path: string }).path;
      const other = new Database(path);
      cleanups.push(async () => void other.close());
      hold = async () => void other.exec('BEGIN IMMEDIATE');
      release = async () => void other.exec('ROLLBACK');
    } else {
      const { restartablePostgres } = await import('../../support/postgres-server.js');
      const server = await restartablePostgres();
      cleanups.push(() => server.dispose());
      store = await openStore(server.url);
      cleanups.push(() => store.close());
      hold = () => server.stop();
      release = () => server.start();
    }
    const client = new Client(store);
    await client.deploy(hook);
    const job = await client.start('held', null);
    const lines: Line[] = [];
    const { agentUrl, dashboardUrl } = await servers(store, lines);

    await hold();
    const [cancel, claim] = await Promise.all([
      rawRequest(dashboardUrl, {
        method: 'POST',
        path: `/api/jobs/${job.id}/cancel`,
        headers: JSON_TYPE,
        body: '{}',
      }),
      rawRequest(agentUrl, { method: 'GET', path: '/job?tasks=charge', headers: JSON_TYPE }),
    ]);
    for (const answer of [cancel, claim]) {
      expect(answer.status, answer.text).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.json.error).toMatchObject({
        name: 'StoreError',
        code: expect.stringMatching(/^STORE_(BUSY|UNREACHABLE)$/),
        requestId: answer.headers['x-request-id'],
      });
      const logged = lines.find((l) => l.fields?.requestId === answer.json.error.requestId);
      expect(logged).toMatchObject({ level: 'warn', fields: { status: 503 } });
    }
    await release();

    const again = await rawRequest(dashboardUrl, {
      method: 'POST',
      path: `/api/jobs/${job.id}/cancel`,
      headers: JSON_TYPE,
      body: '{}',
    });
    expect(again.status, again.text).toBe(200);
    expect((await client.status(job.id)).state).toBe('FAILURE');
  });

  it('a fault of the server is a 500 naming no internals, logged under the request id it answers with', async () => {
    const opened = await openTestStore();
    cleanups.push(opened.close);
    // A store whose reads of the jobs list and claims break the way a bug would.
    const broken = new Proxy(opened.store, {
      get(target, key, receiver) {
        if (key === 'countJobs' || key === 'transaction') {
          return () =>
            Promise.reject(new TypeError('cannot read properties of undefined (secret)'));
        }
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const lines: Line[] = [];
    const { agentUrl, dashboardUrl } = await servers(broken, lines);
    const answers = [
      await rawRequest(dashboardUrl, { method: 'GET', path: '/api/jobs', headers: JSON_TYPE }),
      await rawRequest(agentUrl, { method: 'GET', path: '/job?tasks=charge', headers: JSON_TYPE }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(500);
      const requestId = answer.headers['x-request-id'];
      expect(requestId).toMatch(/^[0-9a-f]{16}$/);
      expect(answer.json.error).toMatchObject({
        name: 'InternalError',
        code: 'INTERNAL',
        requestId,
      });
      expect(answer.json.error.message).toContain(requestId);
      expect(answer.text).not.toContain('secret');
      const logged = lines.find((l) => l.fields?.requestId === requestId);
      expect(logged).toMatchObject({ level: 'error', fields: { status: 500 } });
    }
  });
});
