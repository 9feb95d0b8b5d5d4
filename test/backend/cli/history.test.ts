/**
 * `weft history <job>`, each command its own process (`node bin/weft.js …`, built once
 * per run): after `weft run` of a small graph workflow it lists the job's start, each step
 * in commit order with the digits it moved and the key after it, and its end — as a
 * table and as JSON; `--after` pages; an unknown job exits 1 naming it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobHistoryEntry } from '../../../src/client/job-history.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { runWeft, type WeftRun } from '../../support/weft-cli.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let location: TestStoreLocation;
let dir: string;
beforeEach(async () => {
  location = await freshStoreUrl();
  dir = mkdtempSync(join(tmpdir(), 'weft-history-'));
});
afterEach(async () => {
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `node bin/weft.js …args` from the repository (WEFT_STORE: the store under test). */
function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A trigger, then a task whose first attempt fails, then a second task. */
const FLAKY = `
workflow: flaky
activities:
  start: { kind: trigger }
  call:  { kind: task, retry: { attempts: 2, backoff: 10ms } }
  done:  { kind: task }
transitions:
  start: [call]
  call: [done]
`;
const FLAKY_HANDLERS = `
let calls = 0;
export default {
  call: async () => {
    if (++calls === 1) throw new Error('flaky');
    return { ok: true };
  },
  done: async () => 'done',
};
`;

describe.skipIf(skipBackend)('weft history', () => {
  it('lists the start, each step in order and the end, as a table and as JSON', async () => {
    const run = await weft([
      'run',
      file('flaky.yaml', FLAKY),
      '--handlers',
      file('flaky.mjs', FLAKY_HANDLERS),
    ]);
    expect(run.code, run.err).toBe(0);
    const id = (run.out.match(/^job (\S+)/) as RegExpMatchArray)[1] as string;

    const table = await weft(['history', id]);
    expect(table.code, table.err).toBe(0);
    const rows = table.out.split('\n').map((line) => line.split(/ {2,}/));
    expect(rows[0]).toEqual(['SEQ', 'TIME', 'KIND', 'ACTIVITY', 'CHANGE', 'WORKER']);
    expect(rows.slice(1).map((r) => [r[0], r[2], r[3]])).toEqual([
      ['1', 'start', '-'],
      ['2', 'enter', 'start'],
      ['3', 'enter', 'call'],
      ['4', 'attempt', 'call'],
      ['5', 'task', 'call'],
      ['6', 'attempt', 'call'],
      ['7', 'task', 'call'],
      ['8', 'enter', 'done'],
      ['9', 'attempt', 'done'],
      ['10', 'task', 'done'],
      ['11', 'end', '-'],
    ]);
    for (const row of rows.slice(1)) expect(row[1]).toMatch(ISO);
    // The change column: digits moved, status and attempt, errors, the key after.
    expect(table.out).toMatch(/ start +- +RUNNING flaky@1 {2}key 999000000000000 +\(client\)/);
    expect(table.out).toContain('call 9→8  RUNNING attempt 1  key 896000000000000');
    expect(table.out).toContain(
      'attempt 2  error Error: flaky  retry in 10 ms  key 896000000000000',
    );
    // Each attempt's start, when a worker claimed it.
    expect(table.out).toContain('call  started attempt 1');
    expect(table.out).toContain('call  started attempt 2');
    expect(table.out).toContain('call 8→6  SUCCESS  key 696000000000000');
    expect(table.out).toContain('done 8→6  SUCCESS  key 666000000000000');
    // The steps name the worker `weft run` ran (its consumer id), the start the client.
    const workers = new Set(rows.slice(2).map((r) => r.at(-1)));
    expect(workers.size).toBe(1);
    expect([...workers][0]).not.toBe('(client)');
    expect(rows.at(-1)?.[4]).toBe('SUCCESS');

    const json = await weft(['history', id, '--json']);
    expect(json.code, json.err).toBe(0);
    const entries = JSON.parse(json.out) as JobHistoryEntry[];
    expect(entries).toHaveLength(11);
    expect(Object.keys(entries[0] as object).sort()).toEqual(
      ['activity', 'at', 'change', 'dimension', 'kind', 'seq', 'worker'].sort(),
    );
    expect(entries[2]).toMatchObject({
      seq: 3,
      kind: 'enter',
      activity: 'call',
      dimension: '',
      change: { digits: { call: [9, 8] }, collation: '896000000000000', attempt: 1 },
    });
    expect(entries.at(-1)).toMatchObject({ kind: 'end', change: { state: 'SUCCESS' } });
    const status = JSON.parse((await weft(['status', id, '--json'])).out) as {
      collation: string;
    };
    expect(entries[9]?.change.collation).toBe(status.collation);

    const page = await weft(['history', id, '--after', '9', '--json']);
    expect((JSON.parse(page.out) as JobHistoryEntry[]).map((e) => e.seq)).toEqual([10, 11]);
  });

  it('exits 1 naming a job that does not exist', async () => {
    const r = await weft(['history', 'no-such-job']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('no-such-job');
  });
});
