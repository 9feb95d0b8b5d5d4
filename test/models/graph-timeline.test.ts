/**
 * A graph job's timeline orders its steps by when they started. Activity records come by
 * name, so when a trigger ends and the task it leads to starts in the same millisecond,
 * the trigger must still come first (it sorted after `call` once a fast step made the two
 * times equal).
 */
import { describe, expect, it } from 'vitest';
import { graphTimeline } from '../../src/models/step-timeline.js';
import type { ActivityRecord, JobRecord } from '../../src/store/records.js';

const T = Date.UTC(2026, 0, 1);

const record = (activity: string, startedAt: number | null, finishedAt: number | null) =>
  ({
    job: 'j',
    activity,
    dimension: '',
    status: finishedAt === null ? 'RUNNING' : 'SUCCESS',
    input: null,
    output: null,
    error: null,
    attempt: 1,
    startedAt,
    finishedAt,
    updatedAt: finishedAt ?? startedAt ?? T,
  }) as ActivityRecord;

const job = { id: 'j', createdAt: T, finishedAt: null } as JobRecord;
const kinds = { start: 'trigger', call: 'task', later: 'task' };

describe('graphTimeline', () => {
  it('puts a trigger before the task it started in the same millisecond', () => {
    const records = [
      record('call', T, T + 5),
      record('later', T + 9, null),
      record('start', null, T),
    ];
    const { steps } = graphTimeline(job, records, kinds, [], false);
    expect(steps.map((s) => s.name)).toEqual(['start', 'call', 'later']);
  });

  it('keeps the order of records for steps that started together and ran on', () => {
    const records = [
      record('call', T, T + 5),
      record('later', T, T + 3),
      record('start', null, T - 1),
    ];
    const { steps } = graphTimeline(job, records, kinds, [], false);
    expect(steps.map((s) => s.name)).toEqual(['start', 'call', 'later']);
  });
});
