/**
 * Every byte a command prints reaches the pipe it prints to: `weft list --json` of a few
 * hundred kilobytes, read through another process that starts reading late (as `jq` on a
 * busy machine does), parses whole. Before, the CLI exited as soon as its command settled
 * and the reader got the first 64 KiB, or less. A reader that stops early (`| head`) ends
 * the command quietly.
 */
import { execFile } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { openStore } from '../../../src/store/open-store.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { REPO_ROOT, WEFT_BIN, weftEnv } from '../../support/weft-cli.js';

let location: TestStoreLocation;
beforeEach(async () => {
  location = await freshStoreUrl();
});
afterEach(async () => {
  await location.cleanup();
});

/** Runs a shell pipeline from the repository; `weft` in it is `node bin/weft.js`. */
function pipeline(line: string): Promise<{ code: number; out: string; err: string }> {
  const weft = `"${process.execPath}" "${WEFT_BIN}"`;
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', line.replaceAll('weft ', `${weft} `)],
      { cwd: REPO_ROOT, env: weftEnv(location.url), maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (error, out, err) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, out, err });
      },
    );
  });
}

describe.skipIf(skipBackend)('output through a pipe', () => {
  it('`weft list --json | reader` gets the whole list, several hundred kilobytes', async () => {
    // 100 code-first jobs no worker runs yet (the list's default limit), each with a 4 KB input.
    const store = await openStore(location.url);
    try {
      const client = new Client(store);
      for (let i = 0; i < 100; i++) {
        await client.start('piped', [{ n: i, note: 'x'.repeat(4000) }]);
      }
    } finally {
      await store.close();
    }
    // The reader starts a second late: by then the pipe's buffer (64 KiB) is long full.
    const piped = await pipeline('weft list --json | (sleep 1; cat)');
    expect(piped.code, piped.err).toBe(0);
    expect(piped.out.length).toBeGreaterThan(400_000);
    const jobs = JSON.parse(piped.out) as { input: [{ n: number }] }[];
    expect(jobs).toHaveLength(100);
    expect(jobs.map((j) => j.input[0].n).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );

    // A reader that takes only the start: the command ends, with no error of its own.
    const head = await pipeline('weft list --json | head -c 100; echo " exit=$?"');
    expect(head.code).toBe(0);
    expect(head.out).toMatch(/^\[\{.{98} exit=0\n$/s);
    expect(head.err).toBe('');
  });
});
