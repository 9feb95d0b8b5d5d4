/**
 * `weft history`'s table in words: a code-first decision names the works it added, a
 * work's result its name and status, a cycle's activity its dimension, a client's row
 * `(client)`; keys it has no words for still print.
 */
import { describe, expect, it } from 'vitest';
import { describeChange, formatHistory } from '../../src/cli/history-table.js';
import type { JobHistoryEntry } from '../../src/client/job-history.js';

const entry = (e: Partial<JobHistoryEntry>): JobHistoryEntry => ({
  seq: 1,
  kind: 'enter',
  activity: null,
  dimension: '',
  change: {},
  at: '2026-11-23T09:00:00.000Z',
  worker: null,
  ...e,
});

describe('history table', () => {
  it('says what a code-first decision added and what a work did', () => {
    expect(
      describeChange({
        added: [
          { type: 'task', name: 'reserve', work: 'u1' },
          { type: 'wait', work: 'u2', until: Date.parse('2026-11-24T00:00:00Z') },
          { type: 'event', name: 'ping', to: 'other' },
        ],
      }),
    ).toBe('+task reserve +wait 2026-11-24T00:00:00.000Z +event ping');
    expect(describeChange({ name: 'charge', status: 'failed', error: 'Error: declined' })).toBe(
      'charge  failed  error Error: declined',
    );
    expect(describeChange({ state: 'SUCCESS' })).toBe('SUCCESS');
    // A retried attempt says how long the next one waits; an attempt's start, which it is.
    expect(
      describeChange({
        name: 'charge',
        status: 'retrying',
        attempt: 2,
        error: 'Error: x',
        retryInMs: 1000,
      }),
    ).toBe('charge  retrying attempt 2  error Error: x  retry in 1000 ms');
    expect(describeChange({ name: 'charge', status: 'started', attempt: 3 })).toBe(
      'charge  started attempt 3',
    );
    expect(describeChange({ extra: [1] })).toBe('extra=[1]');
  });

  it('prints one row per entry, the dimension beside the activity, (client) for no worker', () => {
    const text = formatHistory([
      entry({ kind: 'start', change: { state: 'RUNNING', workflow: 'w', version: 2 } }),
      entry({
        seq: 2,
        activity: 'retry',
        dimension: 'loop#2',
        change: { digits: { retry: [9, 8] }, collation: '98' },
        worker: 'host:1:ab',
      }),
    ]).split('\n');
    expect(text).toHaveLength(3);
    expect(text[1]).toMatch(/^1 +\S+ +start +- +RUNNING w@2 +\(client\)$/);
    expect(text[2]).toMatch(/^2 +\S+ +enter +retry\[loop#2\] +retry 9→8 {2}key 98 +host:1:ab$/);
    expect(formatHistory([])).toBe('no history');
  });

  it('names a code-first work by its name, not its id, and leaves the name out of the change', () => {
    const text = formatHistory([
      entry({
        kind: 'task',
        activity: 'J1.0.1',
        name: 'charge',
        change: { name: 'charge', status: 'failed', attempt: 1, error: 'Error: declined' },
        worker: 'host:1:ab',
      }),
      entry({
        seq: 2,
        kind: 'attempt',
        activity: 'J1.0.0',
        name: 'reserve',
        change: { name: 'release', status: 'started', attempt: 1, revert: true },
        worker: 'host:1:ab',
      }),
    ]).split('\n');
    expect(text[1]).toMatch(
      /^1 +\S+ +task +charge +failed attempt 1 {2}error Error: declined +host:1:ab$/,
    );
    expect(text[2]).toMatch(
      /^2 +\S+ +attempt +reserve +release {2}revert {2}started attempt 1 +host:1:ab$/,
    );
  });
});
