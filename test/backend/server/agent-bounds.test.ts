/**
 * What agents may register with `weft serve`: names that look like workflow ids (letters,
 * digits, `_ . -`, at most 128), at most 100 in one request, at most 200 of each kind
 * on one server — so no agent can make every job request walk 50,000 streams. A refused
 * registration registers none of its names and stores nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_REGISTERED_NAMES } from '../../../src/server/agent-registry.js';
import { MAX_NAMES_PER_REQUEST } from '../../../src/server/agent-wire.js';
import { type Serving, serve } from '../../../src/server/serve.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { HttpAgent } from './http-agent.js';

let store: Store;
let close: () => Promise<void>;
let serving: Serving;
let agent: HttpAgent;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  serving = await serve({ store, port: 0, engine: false, workflows: ['sum'], tasks: ['double'] });
  agent = new HttpAgent(serving.url);
});
afterEach(async () => {
  await serving.close();
  await close();
});

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe.skipIf(skipBackend)('weft serve: what agents may register', () => {
  it('refuses names that are no workflow ids, in the body and the query, storing nothing', async () => {
    for (const bad of ['', 'two words', '../etc', 'a'.repeat(129), 'émoji', '-lead', 'x\u0000']) {
      const answer = await agent.call('POST', '/agents', { workflows: [bad] });
      expect(answer.status, bad).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION', where: 'body/workflows/0' });
    }
    const query = await agent.call('GET', `/job?tasks=${encodeURIComponent('ok,not ok')}`);
    expect(query.status).toBe(400);
    expect(query.body.error.where).toBe('query tasks/1');
    expect((await agent.call('GET', '/agents')).body).toEqual({
      workflows: ['sum'],
      tasks: ['double'],
    });
    expect((await store.listDefinitions()).map((d) => d.workflow)).toEqual(['sum']);
  });

  it(`takes at most ${MAX_NAMES_PER_REQUEST} names in one request: 50,000 are refused whole`, async () => {
    const many = await agent.call('POST', '/agents', { tasks: names('t', 50_000) });
    expect(many.status).toBe(400);
    expect(many.body.error.message).toMatch(/at most 100 names at once/);
    const query = await agent.call('GET', `/job?workflows=${names('w', 101).join(',')}`);
    expect(query.status).toBe(400);
    const hundred = await agent.call('POST', '/agents', { tasks: names('t', 100) });
    expect(hundred.status).toBe(200);
    expect(hundred.body.tasks).toHaveLength(101);
  });

  it(`holds at most ${MAX_REGISTERED_NAMES} names of each kind`, async () => {
    // 'double' and 100 more: 101.
    expect((await agent.call('POST', '/agents', { tasks: names('b0', 100) })).status).toBe(200);
    const last = await agent.call('POST', '/agents', { tasks: names('last', 100) });
    expect(last.status).toBe(400);
    expect(last.body.error).toMatchObject({ code: 'TOO_MANY_NAMES' });
    const fits = await agent.call('POST', '/agents', { tasks: names('last', 99) });
    expect(fits.body.tasks).toHaveLength(MAX_REGISTERED_NAMES);
    const again = await agent.call('POST', '/agents', { tasks: ['double', 'one-more'] });
    expect(again.body.error).toMatchObject({ code: 'TOO_MANY_NAMES' });
    // Names already registered are no new names.
    expect((await agent.call('POST', '/agents', { tasks: ['double', 'b0-1'] })).status).toBe(200);

    const started = performance.now();
    expect((await agent.call('GET', '/job')).body).toEqual({ action: 'None' });
    console.log(
      `GET /job over ${MAX_REGISTERED_NAMES} registered tasks (${store.dialect}): ${Math.round(performance.now() - started)} ms`,
    );
  });
});
