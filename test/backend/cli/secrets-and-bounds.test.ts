/**
 * What the CLI prints when given too much or something secret, as a user runs it:
 * `--input` nested past the depth limit or not JSON is a one-line error that quotes none
 * of it (and starts nothing); a store URL with credentials — a password in its user-info
 * or in `password=`-like parameters — is printed masked in errors and in the start-up
 * lines of `weft worker`, `weft dashboard` and `weft serve`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  backend,
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { launchWeft, type RunningWeft, runWeft } from '../../support/weft-cli.js';

const SECRETS = ['pa55word', 'hunter2', 's3cr3t'];

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

describe.skipIf(skipBackend)('the CLI with too much input, or secrets', () => {
  it('refuses --input nested too deep, or not JSON, in one line that quotes none of it', async () => {
    const store = location.url;
    expect((await runWeft(['deploy', 'examples/quick-brown-fox.yaml'], { store })).code).toBe(0);
    const deep = `{"path":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const tooDeep = await runWeft(['start', 'quick-brown-fox', '--input', deep], { store });
    expect(tooDeep).toMatchObject({
      code: 1,
      err: 'error: --input: nests arrays and objects deeper than 128 levels',
    });
    const bad = await runWeft(
      ['start', 'quick-brown-fox', '--input', '{"card":"4111-1111-1111-1111" "cvc":123}'],
      { store },
    );
    expect(bad.code).toBe(1);
    expect(bad.err.split('\n')).toHaveLength(1);
    expect(bad.err).toMatch(/^error: --input: is not valid JSON \(.*position \d+/);
    expect(bad.err).not.toContain('4111');
    const data = await runWeft(['signal', 'no-such-job', 'go', '--data', deep], { store });
    expect(data).toMatchObject({ code: 1, err: expect.stringMatching(/^error: --data: nests/) });
    const listed = await runWeft(['list', '--json'], { store });
    expect(JSON.parse(listed.out)).toEqual([]);
  });

  it('masks the credentials of a store URL in errors', async () => {
    const url =
      'postgres://weft:pa55word@127.0.0.1:1/app?password=hunter2&sslpassword=s3cr3t&connect_timeout=2';
    for (const args of [
      ['list'],
      ['worker', '--give-up-ms', '1000'],
      ['dashboard', '--port', '0'],
      ['serve', '--port', '0'],
    ]) {
      const run = await runWeft([...args, '--store', url], {
        store: location.url,
        timeoutMs: 30_000,
      });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.err, args.join(' ')).toContain('password=***');
      for (const secret of SECRETS)
        expect(`${run.out}\n${run.err}`, args.join(' ')).not.toContain(secret);
    }
  });

  it.skipIf(backend !== 'postgres')(
    'masks them in the start-up lines of weft worker, weft dashboard and weft serve',
    async () => {
      // The test server trusts local connections: the password is carried, not needed.
      const url = `${location.url}${location.url.includes('?') ? '&' : '?'}password=hunter2`;
      for (const [args, line] of [
        [['worker'], /running on (\S+)/],
        [['dashboard', '--port', '0'], /\(store (\S+)\)/],
        [['serve', '--port', '0'], /\(store (\S+)\)/],
      ] as const) {
        running = launchWeft([...args], { store: url });
        const weft = running;
        await waitFor(
          () => {
            if (!weft.alive()) throw new Error(`weft ${args[0]} exited: ${weft.err()}`);
            return line.test(weft.out() + weft.err());
          },
          `weft ${args[0]} to start`,
          { timeoutMs: 30_000, intervalMs: 50 },
        );
        expect(line.exec(weft.out() + weft.err())?.[1]).toMatch(/password=\*\*\*/);
        expect(`${weft.out()}${weft.err()}`).not.toContain('hunter2');
        await weft.stop();
        running = undefined;
      }
    },
  );
});
