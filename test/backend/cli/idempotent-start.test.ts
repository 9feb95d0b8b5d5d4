/**
 * `weft start --idempotency-key` as a user runs it, each command its own process: a
 * second start with the key prints the first job's id; `--on-duplicate refuse` exits 1
 * naming that job; a policy that is not one is refused naming the option.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { freshStoreUrl, type TestStoreLocation } from '../../support/store-under-test.js';
import { runWeft, type WeftRun } from '../../support/weft-cli.js';

let location: TestStoreLocation;
let dir: string;

beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-idem-'));
  writeFileSync(
    join(dir, 'charge.yaml'),
    'workflow: charge\nactivities:\n  start: { kind: trigger }\n  wait: { kind: hook }\ntransitions:\n  start: [wait]\n',
  );
});
afterEach(async () => {
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function weft(...args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url, cwd: dir });
}

it('starts once per key, and refuses or returns the holder as asked', async () => {
  expect((await weft('deploy', 'charge.yaml')).code).toBe(0);
  const first = await weft(
    'start',
    'charge',
    '--idempotency-key',
    'order-42',
    '--input',
    '{"n":1}',
  );
  expect(first.code, first.err).toBe(0);
  const again = await weft(
    'start',
    'charge',
    '--idempotency-key',
    'order-42',
    '--input',
    '{"n":2}',
  );
  expect([again.code, again.out]).toEqual([0, first.out]);
  const refused = await weft(
    'start',
    'charge',
    '--idempotency-key',
    'order-42',
    '--on-duplicate',
    'refuse',
  );
  expect([refused.code, refused.err]).toEqual([
    1,
    `error: idempotency key "order-42" of workflow charge is held by job ${first.out} (RUNNING) until it expires`,
  ]);
  const bad = await weft('start', 'charge', '--idempotency-key', 'k', '--on-duplicate', 'twice');
  expect([bad.code, bad.err]).toEqual([
    1,
    'error: --on-duplicate: must be one of return, refuse, after_end, got "twice"',
  ]);
  const listed = await weft('list', '--workflow', 'charge', '--json');
  expect((JSON.parse(listed.out) as unknown[]).length).toBe(1);
});
