/**
 * How the CLI prints a job: the activity table by digit position (or, for code-first, in
 * the order the works were scheduled; its steps in the order they ran when the view has them), what it waits for, each error's stack, the engine
 * internals only when asked, `weft list`'s table and `weft run`'s key lines.
 */
import { describe, expect, it } from 'vitest';
import {
  formatJobList,
  formatJobView,
  formatKeyChanges,
  keyViewOfLine,
} from '../../src/cli/print.js';
import type { JobHistoryEntry } from '../../src/client/job-history.js';
import { type ActivityView, humanDuration, type JobView } from '../../src/client/job-view.js';
import type { TimelineStep } from '../../src/models/step-timeline.js';

const T0 = '2026-11-23T09:00:00.000Z';
const T1 = '2026-11-23T09:00:01.250Z';

function activity(over: Partial<ActivityView> & Pick<ActivityView, 'id'>): ActivityView {
  return {
    kind: 'task',
    state: 'Pending',
    position: null,
    digit: null,
    status: null,
    attempts: 0,
    error: null,
    startedAt: null,
    finishedAt: null,
    ...over,
  };
}

function job(over: Partial<JobView> = {}): JobView {
  return {
    id: 'J1',
    workflow: 'shop',
    version: 2,
    model: 'graph',
    state: 'RUNNING',
    collation: null,
    compositional: null,
    activities: [],
    waitingFor: [],
    resumptions: 0,
    deadline: null,
    timeoutMs: null,
    queue: null,
    input: {},
    output: null,
    error: null,
    children: [],
    parent: null,
    createdAt: T0,
    startAt: null,
    updatedAt: T1,
    finishedAt: null,
    ...over,
  };
}

const STACK = [
  'Error: card declined',
  '    at charge (file:///app/handlers.js:12:11)',
  '    at TaskRunner.run (file:///app/node_modules/weft/dist/worker/task-runner.js:1:1)',
].join('\n');

describe('formatJobView', () => {
  it('lays a graph job out by digit position, whatever the order of its activities', () => {
    const text = formatJobView(
      job({
        collation: '786000000000000',
        waitingFor: ['waits for task charge (activity pay, attempt 2)'],
        // In the graph's order, as the JSON keeps them.
        activities: [
          activity({
            id: 'start',
            kind: 'trigger',
            position: 3,
            digit: 6,
            state: 'Completed',
            finishedAt: T0,
          }),
          activity({
            id: 'pay',
            position: 2,
            digit: 8,
            state: 'Started',
            attempts: 2,
            startedAt: T0,
            error: { name: 'Error', message: 'card declined', stack: STACK },
          }),
          activity({ id: 'email', position: 1, digit: 7, state: 'Errored', attempts: 1 }),
        ],
      }),
    );
    expect(text.split('\n')).toEqual([
      'job J1  shop@2  RUNNING',
      `created ${T0}`,
      'waits for task charge (activity pay, attempt 2)',
      'collation 786000000000000',
      '| # | Activity | State     | Digit | Attempts | Started      | Finished     | Error                |',
      '| - | -------- | --------- | ----- | -------- | ------------ | ------------ | -------------------- |',
      '| 1 | email    | Errored   | 7     | 1        |              |              |                      |',
      '| 2 | pay      | Started   | 8     | 2        | 09:00:00.000 |              | Error: card declined |',
      '| 3 | start    | Completed | 6     |          |              | 09:00:00.000 |                      |',
    ]);
  });

  it('prints the stack of the failure that ended a job, your frames only; every stack with verbose', () => {
    // A frame of weft's own modules (here its sources; `…/dist/` once built).
    const weftFrame = `    at TaskRunner.run (${new URL('../../src/worker/task-runner.ts', import.meta.url).href}:1:1)`;
    const stack = [
      'Error: card declined',
      '    at charge (file:///app/handlers.js:12:11)',
      weftFrame,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    ].join('\n');
    const failed = (state: JobView['state']) =>
      job({
        state,
        collation: '76',
        activities: [
          activity({
            id: 'pay',
            position: 1,
            digit: 7,
            state: 'Errored',
            attempts: 3,
            error: { name: 'Error', message: 'card declined', stack },
          }),
          // An error its `on: error` path handled: in the table, never with a stack here.
          activity({
            id: 'email',
            position: 2,
            digit: 6,
            state: 'Completed',
            attempts: 1,
            error: {
              name: 'Error',
              message: 'smtp down',
              stack: 'Error: smtp down\n    at send (file:///app/handlers.js:3:9)',
            },
          }),
        ],
        error: { name: 'Error', message: 'activity pay failed: card declined', activity: 'pay' },
      });
    const lines = formatJobView(failed('FAILURE')).split('\n');
    expect(lines.filter((l) => l.startsWith('error in ') || l.startsWith('    at '))).toEqual([
      'error in pay (attempt 3): Error: card declined',
      '    at charge (file:///app/handlers.js:12:11)',
    ]);
    expect(lines.at(-1)).toBe('error Error: activity pay failed: card declined');
    // A job that succeeded after an error path, or still runs: the table says it, no stack.
    expect(formatJobView(failed('SUCCESS'))).not.toMatch(/^error in |^ {4}at /m);
    expect(formatJobView(failed('RUNNING'))).not.toMatch(/^error in |^ {4}at /m);
    const verbose = formatJobView(failed('SUCCESS'), { verbose: true }).split('\n');
    expect(verbose.filter((l) => l.startsWith('error in ') || l.startsWith('    at '))).toEqual([
      'error in pay (attempt 3): Error: card declined',
      '    at charge (file:///app/handlers.js:12:11)',
      weftFrame,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      'error in email (attempt 1): Error: smtp down',
      '    at send (file:///app/handlers.js:3:9)',
    ]);
  });

  it("shows a code-first job's works in order, and its engine internals only when verbose", () => {
    const view = job({
      workflow: 'order',
      version: 1,
      model: 'durable',
      waitingFor: ['waits for event approved'],
      activities: [
        activity({ id: 'reserve', state: 'completed', status: 'SUCCESS', attempts: 1 }),
        activity({ id: 'wait', kind: 'wait', state: 'scheduled', status: 'PENDING' }),
      ],
      instance: {
        id: 'J1',
        workflow_name: 'order',
        state: 'running',
        decision_mode: 'run',
        executions: [0, 1],
        branches: [{ type: 'handle' }, { type: 'onStart', task_name: 'reserve', ended: true }],
        statuses: [],
      },
    });
    const plain = formatJobView(view).split('\n');
    expect(plain).toEqual([
      'job J1  order@1  RUNNING  (code-first)',
      `created ${T0}`,
      'waits for event approved',
      '| Activity | Kind | State     | Attempts | Started | Finished |',
      '| -------- | ---- | --------- | -------- | ------- | -------- |',
      '| reserve  | task | completed | 1        |         |          |',
      '| wait     | wait | scheduled |          |         |          |',
    ]);
    const verbose = formatJobView(view, { verbose: true }).split('\n');
    expect(verbose.slice(0, plain.length)).toEqual(plain);
    expect(verbose.slice(plain.length)).toEqual([
      'instance J1  order  running (decisions: run)',
      'executions [0,1]',
      '  branch 0  handle',
      '  branch 1  onStart(reserve)  ended',
    ]);
  });

  it("shows a code-first job's steps in the order they ran: times, duration, attempts, retries, reverts", () => {
    const step = (over: Partial<TimelineStep> & Pick<TimelineStep, 'name'>): TimelineStep => ({
      kind: 'task',
      work: null,
      dimension: '',
      status: 'SUCCESS',
      dispatched: false,
      scheduledAt: null,
      startedAt: null,
      finishedAt: null,
      durationMs: null,
      attempts: [],
      error: null,
      ...over,
    });
    const attempt = (n: number, retried: string | null) => ({
      attempt: n,
      startedAt: T0,
      finishedAt: T1,
      outcome: retried ? ('failed' as const) : ('completed' as const),
      error: retried,
      retryAt: retried ? T1 : null,
    });
    const view = job({
      workflow: 'order',
      version: 1,
      model: 'durable',
      state: 'RUNNING',
      activities: [activity({ id: 'reserve', state: 'completed', attempts: 1 })],
      steps: [
        step({
          name: 'reserve',
          work: 'J1.0.0',
          startedAt: T0,
          finishedAt: T1,
          durationMs: 1250,
          attempts: [attempt(1, 'Error: busy'), attempt(2, null)],
        }),
        step({
          name: 'notify',
          work: 'J1.0.1',
          dispatched: true,
          startedAt: T1,
          finishedAt: '2026-11-24T00:00:00.040Z',
          durationMs: 40,
          attempts: [attempt(1, null)],
        }),
        step({
          kind: 'wait',
          name: 'wait for go',
          work: 'J1.0.2',
          status: 'RUNNING',
          startedAt: T1,
          until: '2026-11-23T10:00:00.000Z',
        }),
        step({
          kind: 'revert',
          name: 'release',
          work: 'J1.0.0',
          status: 'REVERTING',
          startedAt: T1,
          attempts: [{ ...attempt(1, null), outcome: 'running', finishedAt: null }],
        }),
        step({ kind: 'task', name: 'ship', work: 'J1.0.3', status: 'PENDING' }),
      ],
    });
    expect(formatJobView(view).split('\n')).toEqual([
      'job J1  order@1  RUNNING  (code-first)',
      `created ${T0}`,
      '| Step                      | Kind              | State     | Attempts | Started      | Finished                 | Duration | Detail                          |',
      '| ------------------------- | ----------------- | --------- | -------- | ------------ | ------------------------ | -------- | ------------------------------- |',
      '| reserve                   | task              | completed | 2        | 09:00:00.000 | 09:00:01.250             | 1.25s    | attempt 1 Error: busy (retried) |',
      '| notify                    | task (dispatched) | completed | 1        | 09:00:01.250 | 2026-11-24T00:00:00.040Z | 40ms     |                                 |',
      '| wait for go               | wait              | running   |          | 09:00:01.250 | running                  |          | until 2026-11-23T10:00:00.000Z  |',
      '| release (reverts reserve) | revert            | reverting | 1        | 09:00:01.250 | running                  |          |                                 |',
      '| ship                      | task              | scheduled |          |              |                          |          |                                 |',
    ]);
    // Steps read off only the first lines of a longer history say so, and where the rest is.
    expect(
      formatJobView({ ...view, stepsTruncated: true })
        .split('\n')
        .at(-1),
    ).toBe(
      "(steps read off the first 20,000 lines of the job's history; later steps are not shown: weft history J1 lists every line)",
    );
  });

  it('prints the end, then each child job indented', () => {
    const child = job({
      id: 'J2',
      workflow: 'ship',
      version: 1,
      state: 'SUCCESS',
      output: { ok: true },
    });
    const text = formatJobView(
      job({
        state: 'FAILURE',
        finishedAt: T1,
        error: { name: 'Cancelled', message: 'job J1 was cancelled' },
        children: [child],
      }),
    );
    expect(text.split('\n')).toEqual([
      'job J1  shop@2  FAILURE',
      `created ${T0}  finished ${T1}`,
      'error Cancelled: job J1 was cancelled',
      '',
      '  job J2  ship@1  SUCCESS',
      `  created ${T0}`,
      '  output {"ok":true}',
    ]);
  });
});

describe('formatJobList', () => {
  it('has a header and keeps the order given (newest first)', () => {
    expect(
      formatJobList([
        job({ id: 'J2', createdAt: T1 }),
        job({ id: 'J1', workflow: 'order', version: 1, state: 'SUCCESS' }),
      ]).split('\n'),
    ).toEqual([
      'JOB  WORKFLOW  STATE    CREATED',
      `J2   shop@2    RUNNING  ${T1}`,
      `J1   order@1   SUCCESS  ${T0}`,
    ]);
    expect(formatJobList([])).toBe('no jobs');
  });
});

describe('formatKeyChanges', () => {
  it('names each activity that moved, its new state and the key, aligned', () => {
    const before = new Map<string, number | null>();
    const at = (digits: Record<string, number>, state = 'RUNNING') =>
      job({
        state: state as JobView['state'],
        activities: Object.entries(digits).map(([id, digit]) =>
          activity({
            id,
            digit,
            state: { 9: 'Pending', 8: 'Started', 6: 'Completed' }[digit] as string,
          }),
        ),
      });
    expect(formatKeyChanges(at({ quick: 9, fox: 9 }), '99', before)).toEqual([
      'job    RUNNING    99',
    ]);
    expect(formatKeyChanges(at({ quick: 6, fox: 8 }), '86', before)).toEqual([
      'quick  Completed  86',
      'fox    Started    86',
    ]);
    // A key no activity of this job explains (a child's moved): the job's line.
    expect(formatKeyChanges(at({ quick: 6, fox: 8 }), '86-9', before)).toEqual([
      'job    RUNNING    86-9',
    ]);
  });
});

describe('keyViewOfLine', () => {
  it('reads each key of a history read at once, so a read behind the commits prints every key', () => {
    // The seed's order example's first keys, as weft run reads them from the history
    // when one status read covers three commits.
    const layout = [
      { id: 'start', position: 1 },
      { id: 'order', position: 2 },
      { id: 'ship', position: 3 },
    ];
    const lines = [
      { activity: null, change: { state: 'RUNNING', collation: '999000000000000' } },
      { activity: 'start', change: { digits: { start: [9, 6] }, collation: '699000000000000' } },
      { activity: 'order', change: { digits: { order: [9, 8] }, collation: '689000000000000' } },
      {
        activity: 'order',
        change: { digits: { order: [8, 6] }, collation: '669000000000000', status: 'SUCCESS' },
      },
      {
        activity: 'order',
        change: { digits: { order: [6, 8] }, collation: '689000000000000', status: 'REVERTING' },
      },
    ] as Pick<JobHistoryEntry, 'activity' | 'change'>[];
    const before = new Map<string, number | null>();
    let state = 'RUNNING';
    const printed: string[] = [];
    for (const line of lines) {
      const view = keyViewOfLine(layout, line, state);
      state = view.state;
      printed.push(...formatKeyChanges(view, line.change.collation as string, before));
    }
    expect(printed).toEqual([
      'job    RUNNING    999000000000000',
      'start  Completed  699000000000000',
      'order  Started    689000000000000',
      'order  Completed  669000000000000',
      'order  Reverting  689000000000000',
    ]);
  });
});

describe('humanDuration', () => {
  it('says how long until a wait ends in at most two units', () => {
    expect(humanDuration(45_000)).toBe('45s');
    expect(humanDuration(200_000)).toBe('3m 20s');
    expect(humanDuration(3_600_000)).toBe('1h');
    expect(humanDuration(7_500_000)).toBe('2h 5m');
    expect(humanDuration(90_000_000)).toBe('1d 1h');
    expect(humanDuration(-5)).toBe('0s');
  });
});
