/**
 * A page on another origin, in a real browser (Debian's chromium through playwright-core),
 * tries everything a hostile page can against both servers on this machine — `weft
 * serve` and the dashboard, both open (loopback, no token), aimed at a live task, a live
 * decision and a job waiting at its hook: CORS reads, no-cors fetches with text bodies,
 * form posts, image and script tags, framing the dashboard, and DNS rebinding (a name
 * of its own resolved to 127.0.0.1). It reads nothing, and the store is byte-for-byte
 * what it was (a dump of every table and sequence). Chromium's own Private Network Access
 * checks are off, so the servers' rules are what is tested, not the browser's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, haveChromium } from '../../support/chromium.js';
import { dumpStore } from '../../support/store-dump.js';
import { skipBackend } from '../../support/store-under-test.js';
import { type PortsFixture, portsFixture } from './ports-fixture.js';

/** A name of the attacker's that the browser resolves to 127.0.0.1 (DNS rebinding). */
const REBIND = 'rebind.weft.test';

/** What a hostile page's attempt came to. */
interface Outcome {
  name: string;
  /** `read`: the page saw the answer; `opaque`: sent, answer hidden; `blocked`: not sent or refused by the browser. */
  seen: 'read' | 'opaque' | 'blocked';
  status?: number;
  body?: string;
}

/** The hostile page: it runs every attempt and leaves the outcomes in `window.outcomes`. */
function attackPage(targets: Record<string, string>): string {
  const script = `
const t = ${JSON.stringify(targets)};
const outcomes = [];
const forged = JSON.stringify({ status: 'completed', output: { forged: true } });
async function attempt(name, url, init) {
  try {
    const r = await fetch(url, init);
    if (r.type === 'opaque') outcomes.push({ name, seen: 'opaque' });
    else outcomes.push({ name, seen: 'read', status: r.status, body: (await r.text()).slice(0, 300) });
  } catch (e) {
    outcomes.push({ name, seen: 'blocked' });
  }
}
function tag(name, kind, url) {
  return new Promise((done) => {
    const el = document.createElement(kind);
    el.onload = el.onerror = () => { outcomes.push({ name, seen: 'opaque' }); done(); };
    el.src = url;
    document.body.append(el);
  });
}
function form(name, url, body) {
  return new Promise((done) => {
    const frame = document.createElement('iframe');
    frame.name = 'f' + Math.random().toString(36).slice(2);
    document.body.append(frame);
    const f = document.createElement('form');
    f.method = 'POST'; f.action = url; f.enctype = 'text/plain'; f.target = frame.name;
    const input = document.createElement('input');
    // text/plain sends name=value: a name that closes into JSON.
    input.name = body.slice(0, -1) + ',"x":"'; input.value = '"}';
    f.append(input);
    document.body.append(f);
    frame.onload = () => { outcomes.push({ name, seen: 'opaque' }); done(); };
    f.submit();
  });
}
const plain = { 'content-type': 'text/plain' };
(async () => {
  // weft serve
  await attempt('agent: read a job (CORS)', t.agent + '/job?wait=0');
  await attempt('agent: read a job as JSON (preflight)', t.agent + '/job?wait=0', { headers: { 'content-type': 'application/json' } });
  await attempt('agent: take a job (no-cors)', t.agent + '/job?wait=0', { mode: 'no-cors' });
  await attempt('agent: read a branch (CORS)', t.agent + '/decisions/' + encodeURIComponent(t.decision) + '/branch');
  await attempt('agent: forge a task result (no-cors text)', t.agent + '/tasks/' + encodeURIComponent(t.task), { method: 'POST', mode: 'no-cors', headers: plain, body: forged });
  await attempt('agent: forge a task result (CORS JSON)', t.agent + '/tasks/' + encodeURIComponent(t.task), { method: 'POST', headers: { 'content-type': 'application/json' }, body: forged });
  await attempt('agent: register a workflow (no-cors text)', t.agent + '/agents', { method: 'POST', mode: 'no-cors', headers: plain, body: '{"workflows":["evil"]}' });
  await attempt('agent: heartbeat (no-cors)', t.agent + '/tasks/' + encodeURIComponent(t.task) + '/heartbeat', { method: 'POST', mode: 'no-cors' });
  await tag('agent: take a job (img)', 'img', t.agent + '/job?wait=0&tasks=charge');
  await tag('agent: read a job (script)', 'script', t.agent + '/job?wait=0');
  await form('agent: forge a task result (form)', t.agent + '/tasks/' + encodeURIComponent(t.task), forged);
  await form('agent: register a workflow (form)', t.agent + '/agents', '{"workflows":["evil"]}');
  // the dashboard
  await attempt('dashboard: read the jobs (CORS)', t.dashboard + '/api/jobs');
  await attempt('dashboard: read a job (CORS)', t.dashboard + '/api/jobs/' + t.job);
  await attempt('dashboard: read metrics (CORS)', t.dashboard + '/metrics');
  await attempt('dashboard: signal (no-cors text)', t.dashboard + '/api/jobs/' + t.job + '/signal', { method: 'POST', mode: 'no-cors', headers: plain, body: '{"name":"approve"}' });
  await attempt('dashboard: signal (CORS JSON)', t.dashboard + '/api/jobs/' + t.job + '/signal', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"approve"}' });
  await attempt('dashboard: cancel (no-cors)', t.dashboard + '/api/jobs/' + t.job + '/cancel', { method: 'POST', mode: 'no-cors' });
  await tag('dashboard: read the jobs (script)', 'script', t.dashboard + '/api/jobs');
  await form('dashboard: signal (form)', t.dashboard + '/api/jobs/' + t.job + '/signal', '{"name":"approve"}');
  await form('dashboard: cancel (form)', t.dashboard + '/api/jobs/' + t.job + '/cancel', '{"a":"b"}');
  window.outcomes = outcomes;
})();
`;
  return `<!doctype html><html><body><h1>not the dashboard</h1>
<iframe id="framed" src="${targets.dashboard}/"></iframe>
<script>${script}</script></body></html>`;
}

describe.skipIf(skipBackend || !haveChromium)('a page on another origin, in chromium', () => {
  let f: PortsFixture;
  let before: string;
  let browser: Browser;
  let attacker: Server;
  let attackerUrl: string;

  beforeAll(async () => {
    f = await portsFixture();
    before = await dumpStore(f.url);
    const page = attackPage({
      agent: f.agent.open,
      dashboard: f.dashboard.open,
      task: f.ids.task,
      decision: f.ids.decision,
      job: f.ids.job,
    });
    attacker = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        `--host-resolver-rules=MAP ${REBIND} 127.0.0.1`,
        // Chromium's own guard (Private / Local Network Access) would stop some of these
        // requests before they leave the browser; other browsers have none. Off, so what
        // stops the page here is the servers.
        '--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessChecks,BlockInsecurePrivateNetworkRequests',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await f?.close();
  });

  it('reads nothing and changes nothing through either server, and cannot frame the dashboard', async () => {
    const page = await browser.newPage();
    await page.goto(attackerUrl);
    await page.waitForFunction(() => 'outcomes' in globalThis, undefined, { timeout: 30_000 });
    const outcomes = (await page.evaluate(
      () => (globalThis as unknown as { outcomes: Outcome[] }).outcomes,
    )) as Outcome[];
    expect(outcomes.length).toBe(21);
    expect(outcomes.filter((o) => o.seen === 'read')).toEqual([]);

    // The dashboard in the page's frame: refused (frame-ancestors 'none'), no app in it.
    const framed = page.frames().find((fr) => fr !== page.mainFrame());
    expect(framed).toBeDefined();
    expect(framed?.url()).toMatch(/^chrome-error:/);
    await page.close();

    // Nothing registered, recorded, claimed, signalled or cancelled.
    expect(await dumpStore(f.url)).toBe(before);
    expect(f.failures).toEqual([]);
  });

  it('DNS rebinding: its own name resolved to 127.0.0.1 reaches neither server', async () => {
    const page = await browser.newPage();
    const results: Outcome[] = [];
    for (const [name, base] of [
      ['agent', f.agent.open],
      ['dashboard', f.dashboard.open],
    ] as const) {
      const port = new URL(base).port;
      const origin = `http://${REBIND}:${port}`;
      // The attacker's page comes from the attacker (the name still pointed at its host);
      // then the name points at 127.0.0.1, and the page's requests reach the server.
      await page.route(`${origin}/rebound.html`, (route) =>
        route.fulfill({ contentType: 'text/html', body: '<!doctype html><p>rebound</p>' }),
      );
      await page.goto(`${origin}/rebound.html`);
      const landing = await page.evaluate(async () => (await fetch('/')).status);
      results.push({ name: `${name}: /`, seen: 'read', status: landing });
      // Now same-origin with the server: it may send JSON and read the answer.
      const paths =
        name === 'agent'
          ? [
              ['GET', '/job?wait=0'],
              ['POST', `/tasks/${encodeURIComponent(f.ids.task)}`],
              ['POST', '/agents'],
            ]
          : [
              ['GET', '/api/jobs'],
              ['POST', `/api/jobs/${f.ids.job}/signal`],
            ];
      for (const [method, path] of paths) {
        const answer = await page.evaluate(
          async ({ method, path }) => {
            const r = await fetch(path as string, {
              method,
              headers: { 'content-type': 'application/json' },
              ...(method === 'POST'
                ? {
                    body: '{"status":"completed","output":1,"name":"approve","workflows":["evil"]}',
                  }
                : {}),
            });
            return { status: r.status, body: await r.text() };
          },
          { method, path },
        );
        results.push({ name: `${name}: ${method} ${path}`, seen: 'read', ...answer });
      }
    }
    await page.close();
    for (const r of results) {
      expect(r.status, r.name).toBe(403);
      if (r.body !== undefined) expect(JSON.parse(r.body).error.code, r.name).toBe('FORBIDDEN');
    }
    expect(await dumpStore(f.url)).toBe(before);
  });
});
