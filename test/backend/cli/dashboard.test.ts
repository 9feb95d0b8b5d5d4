/**
 * `weft dashboard` as a user runs it, in its own process on the store under test: it
 * starts, serves /healthz, the web app and the API (the README's example job, deployed
 * and started with the CLI, is in its jobs list), and stops on SIGTERM with exit 0. Bound
 * beyond loopback it refuses to start without a token, and with one the API wants it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import {
  launchWeft,
  listeningUrl as listening,
  type RunningWeft,
  runWeft,
} from '../../support/weft-cli.js';

let location: TestStoreLocation;
let running: RunningWeft | undefined;
beforeEach(async () => {
  location = await freshStoreUrl();
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await location.cleanup();
});

describe.skipIf(skipBackend)('weft dashboard', () => {
  it("starts, serves /healthz, the web app and the README example's job, and stops on SIGTERM", async () => {
    const store = location.url;
    expect((await runWeft(['deploy', 'examples/quick-brown-fox.yaml'], { store })).code).toBe(0);
    const started = await runWeft(
      ['start', 'quick-brown-fox', '--input', '{"path":"slept","feed":"by-hand"}'],
      { store },
    );
    expect(started.code).toBe(0);
    const jobId = started.out.trim().split(/\s+/)[0] as string;

    running = launchWeft(['dashboard', '--port', '0'], { store });
    const url = await listening(running);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });
    const html = await (await fetch(`${url}/`)).text();
    expect(html).toContain('<script type="module" src="/js/app.js">');
    expect((await fetch(`${url}/vendor/elk.bundled.js`)).status).toBe(200);
    const jobs = (await (await fetch(`${url}/api/jobs`)).json()) as { jobs: { id: string }[] };
    expect(jobs.jobs.map((j) => j.id)).toContain(jobId);
    expect((await fetch(`${url}/../package.json`)).status).toBe(404);

    expect(await running.stop('SIGTERM')).toBe(0);
  });

  it('refuses a non-loopback host without a token, and wants the token when given one', async () => {
    const store = location.url;
    const refused = await runWeft(['dashboard', '--host', '0.0.0.0', '--port', '0'], {
      store,
      env: { WEFT_DASHBOARD_TOKEN: undefined },
    });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/refusing to listen on 0\.0\.0\.0 without a token/);

    running = launchWeft(['dashboard', '--host', '0.0.0.0', '--port', '0'], {
      store,
      env: { WEFT_DASHBOARD_TOKEN: 'correct-horse' },
    });
    const url = (await listening(running)).replace('0.0.0.0', '127.0.0.1');
    expect((await fetch(`${url}/api/jobs`)).status).toBe(401);
    const ok = await fetch(`${url}/api/jobs`, {
      headers: { authorization: 'Bearer correct-horse' },
    });
    expect(ok.status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
