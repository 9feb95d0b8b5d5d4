/**
 * `weft serve` as a user runs it, in its own process, under the trust rules of
 * docs/security.md: beyond loopback it refuses to start without a token; a token comes
 * from WEFT_SERVE_TOKEN or a token file (one on the command line works, with a warning
 * about `ps`); every request then needs it. And an agent in another language — a Python
 * script with nothing but the standard library (examples/sum-agent.py) — runs a
 * code-first workflow to its end through it, with the token, and is refused without.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processEnd } from '../../support/process-end.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import {
  launchWeft,
  listeningUrl as listening,
  REPO_ROOT,
  type RunningWeft,
  runWeft,
} from '../../support/weft-cli.js';

const TOKEN = 'Zq8-agent-token-3141592653';

const havePython = spawnSync('python3', ['--version']).status === 0;
if (!havePython && process.env.CI === 'true') {
  throw new Error('CI: python3 is missing; .ci/run installs it');
}

let location: TestStoreLocation;
let running: RunningWeft | undefined;
let dir: string;
beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-serve-trust-'));
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the Python agent until it has been idle five polls in a row. */
function pythonAgent(url: string, token: string | undefined) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, WEFT_SERVE_URL: url };
    if (token === undefined) delete env.WEFT_SERVE_TOKEN;
    else env.WEFT_SERVE_TOKEN = token;
    const child = spawn(
      'python3',
      [join(REPO_ROOT, 'examples', 'sum-agent.py'), '--until-idle', '5'],
      {
        env,
      },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      err += s;
    });
    const timer = setTimeout(() => child.kill(), 60_000);
    // Once its output is all read: the last lines can come after the 'exit' event.
    void processEnd(child).then((code) => {
      clearTimeout(timer);
      resolve({ code: typeof code === 'number' ? code : null, out, err });
    });
  });
}

describe.skipIf(skipBackend)('weft serve: who it answers', () => {
  it('refuses to listen beyond loopback without a token, and then wants the token from every request', async () => {
    const store = location.url;
    const refused = await runWeft(['serve', '--host', '0.0.0.0', '--port', '0'], {
      store,
      env: { WEFT_SERVE_TOKEN: undefined },
    });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/refusing to listen on 0\.0\.0\.0 without a token/);
    expect(refused.err.split('\n')).toHaveLength(1);

    running = launchWeft(['serve', '--host', '0.0.0.0', '--port', '0', '--tasks', 'charge'], {
      store,
      env: { WEFT_SERVE_TOKEN: TOKEN },
    });
    const url = (await listening(running)).replace('0.0.0.0', '127.0.0.1');
    const json = { 'content-type': 'application/json' };
    expect((await fetch(`${url}/agents`)).status).toBe(401);
    expect((await fetch(`${url}/job`, { headers: json })).status).toBe(401);
    const wrong = { ...json, authorization: `Bearer ${TOKEN.slice(0, -1)}` };
    expect((await fetch(`${url}/job`, { headers: wrong })).status).toBe(401);
    const right = { ...json, authorization: `Bearer ${TOKEN}` };
    const job = await fetch(`${url}/job`, { headers: right });
    expect(await job.json()).toEqual({ action: 'None' });
    // A foreign Host is fine with the token (a proxy's name); a foreign Origin never is.
    const proxied = await fetch(`${url}/agents`, {
      headers: { ...right, origin: 'http://evil.example' },
    });
    expect(proxied.status).toBe(403);
    expect(running.err()).not.toContain('warning');
  });

  it('takes the token from a file, or from --token with a warning about ps', async () => {
    const store = location.url;
    const file = join(dir, 'token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    running = launchWeft(['serve', '--port', '0', '--token-file', file], {
      store,
      env: { WEFT_SERVE_TOKEN: undefined },
    });
    let url = await listening(running);
    const right = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${url}/agents`, { headers: right })).status).toBe(200);
    expect((await fetch(`${url}/agents`)).status).toBe(401);
    await running.stop();

    running = launchWeft(['serve', '--port', '0', '--token', TOKEN], {
      store,
      env: { WEFT_SERVE_TOKEN: undefined },
    });
    url = await listening(running);
    expect((await fetch(`${url}/agents`, { headers: right })).status).toBe(200);
    expect(running.err()).toMatch(/warning: a token given with --token is visible .*\(ps\)/);

    const missing = await runWeft(['serve', '--port', '0', '--token-file', join(dir, 'none')], {
      store,
    });
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.err).toMatch(/--token-file: cannot read .*none \(ENOENT\)/);
    writeFileSync(file, 'two words\n');
    const spaced = await runWeft(['serve', '--port', '0', '--token-file', file], { store });
    expect(spaced.code).toBe(1);
    expect(spaced.err).toMatch(/a token is 1 to 1024 printable ASCII characters/);
    expect(spaced.err).not.toContain('two words');
  });

  it.skipIf(!havePython)(
    'a Python agent with only the standard library runs a code-first workflow to its end, with the token',
    async () => {
      const store = location.url;
      running = launchWeft(
        ['serve', '--port', '0', '--workflows', 'sum', '--tasks', 'double,square,add'],
        { store, env: { WEFT_SERVE_TOKEN: TOKEN } },
      );
      const url = await listening(running);
      const started = await runWeft(['start', 'sum', '--input', '[3, 4]'], { store });
      expect(started.code, started.err).toBe(0);
      const jobId = started.out.split(/\s+/).at(-1) as string;

      const without = await pythonAgent(url, undefined);
      expect(without.code).toBe(1);
      expect(without.err).toMatch(
        /refused: GET \/env\/prod\/lang\/python\/job\S*: 401 UNAUTHORIZED/,
      );

      const agent = await pythonAgent(url, TOKEN);
      expect(agent.code, agent.err).toBe(0);
      expect(agent.out).toContain('task add');
      const result = await runWeft(['result', jobId], { store });
      expect(result).toMatchObject({ code: 0, out: '22' });
    },
  );
});
