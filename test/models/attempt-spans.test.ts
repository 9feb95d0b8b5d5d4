/**
 * A task's attempts read off its history lines: each `attempt` line opens one, a retried
 * failure closes it with the time the next is due, a result closes the last; a timed-out
 * attempt keeps its outcome when the retry's line follows; a revert's attempts are apart.
 */
import { describe, expect, it } from 'vitest';
import { attemptSpans, linesByTask, taskKey } from '../../src/models/attempt-spans.js';
import type { HistoryEntry, Json } from '../../src/store/records.js';

let seq = 0;
const line = (at: number, kind: string, change: Record<string, Json>): HistoryEntry =>
  ({
    seq: ++seq,
    job: 'j',
    kind,
    activity: 'w',
    dimension: '',
    change,
    at,
    worker: null,
  }) as HistoryEntry;
const t = (ms: number) => new Date(ms).toISOString();

describe('attemptSpans', () => {
  it('reads two failed attempts with their backoffs and a third that completed', () => {
    const spans = attemptSpans([
      line(100, 'attempt', { status: 'started', attempt: 1 }),
      line(110, 'task', { status: 'started' }),
      line(150, 'task', { status: 'retrying', attempt: 2, error: 'Error: busy', retryInMs: 30 }),
      line(200, 'attempt', { status: 'started', attempt: 2 }),
      line(240, 'task', { status: 'retrying', attempt: 3, error: 'Error: busy', retryInMs: 60 }),
      line(320, 'attempt', { status: 'started', attempt: 3 }),
      line(330, 'task', { status: 'completed' }),
    ]);
    expect(spans).toEqual([
      {
        attempt: 1,
        startedAt: t(100),
        finishedAt: t(150),
        outcome: 'failed',
        error: 'Error: busy',
        retryAt: t(180),
      },
      {
        attempt: 2,
        startedAt: t(200),
        finishedAt: t(240),
        outcome: 'failed',
        error: 'Error: busy',
        retryAt: t(300),
      },
      {
        attempt: 3,
        startedAt: t(320),
        finishedAt: t(330),
        outcome: 'completed',
        error: null,
        retryAt: null,
      },
    ]);
  });

  it('keeps a timed-out attempt timed out when the line of its retry follows', () => {
    const spans = attemptSpans([
      line(0, 'attempt', { attempt: 1 }),
      line(50, 'timeout', {}),
      line(51, 'task', { attempt: 2, error: 'TimeoutError: slow', retryInMs: 10 }),
      line(70, 'attempt', { attempt: 2 }),
    ]);
    expect(spans.map((s) => [s.attempt, s.outcome, s.retryAt])).toEqual([
      [1, 'timed out', t(61)],
      [2, 'running', null],
    ]);
    expect(spans[0]?.error).toBe('TimeoutError: slow');
  });

  it("reads a revert's attempts apart from the task's, and a result without a start line", () => {
    const lines = [
      line(10, 'task', { status: 'completed' }),
      line(90, 'attempt', { attempt: 1, revert: true }),
      line(95, 'revert', { status: 'REVERTED' }),
    ];
    expect(attemptSpans(lines)).toMatchObject([
      { attempt: 1, startedAt: null, finishedAt: t(10), outcome: 'completed' },
    ]);
    expect(attemptSpans(lines, true)).toMatchObject([
      { attempt: 1, startedAt: t(90), finishedAt: t(95), outcome: 'completed' },
    ]);
  });

  it('groups a job history by task and thread', () => {
    const a = line(1, 'attempt', { attempt: 1 });
    const b = { ...line(2, 'attempt', { attempt: 1 }), dimension: '1' };
    const job = { ...line(3, 'end', {}), activity: null };
    const grouped = linesByTask([a, b, job]);
    expect(grouped.get(taskKey('w', ''))).toEqual([a]);
    expect(grouped.get(taskKey('w', '1'))).toEqual([b]);
    expect(grouped.size).toBe(2);
  });
});
