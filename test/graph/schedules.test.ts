/**
 * A workflow file's `schedules:`: compiled with every default filled in and the workflow
 * named; each wrong field reported at its line; not part of the definition's content.
 */
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../src/engine/compiler.js';
import { lines, problemsOf } from './helpers.js';

const head = ['workflow: report', 'activities:', '  start: { kind: trigger }', 'schedules:'];

describe('schedules in a workflow file', () => {
  it('compiles each entry with its defaults and this workflow', () => {
    const compiled = compileWorkflow(
      lines(
        ...head,
        '  - name: nightly',
        '    cron: "0 3 * * *"',
        '    timezone: Europe/Berlin',
        '    input: { region: eu }',
        '  - name: often',
        '    cron: "*/5 * * * *"',
        '    overlap: allow_all',
        '    catchup: 10m',
      ),
    );
    expect(compiled.schedules).toEqual([
      {
        name: 'nightly',
        workflow: 'report',
        cron: '0 3 * * *',
        timezone: 'Europe/Berlin',
        input: { region: 'eu' },
        overlap: 'skip',
        catchupWindowMs: 60_000,
      },
      {
        name: 'often',
        workflow: 'report',
        cron: '*/5 * * * *',
        timezone: 'UTC',
        input: null,
        overlap: 'allow_all',
        catchupWindowMs: 600_000,
      },
    ]);
    expect(compileWorkflow(lines(...head.slice(0, 3))).schedules).toBeUndefined();
  });

  it('reports each wrong field at its line', () => {
    const problems = problemsOf(
      lines(
        ...head,
        '  - name: a',
        '    cron: "0 3 * *"',
        '  - name: b',
        '    cron: "0 3 * * *"',
        '    timezone: Mars',
        '  - name: c@d',
        '    cron: "* * * * *"',
        '  - name: e',
        '    cron: "* * * * *"',
        '  - name: e',
        '    cron: "0 * * * *"',
      ),
    );
    expect(problems.map((p) => [p.line, p.path, p.message])).toEqual([
      [
        6,
        'schedules.0.cron',
        `cron expression "0 3 * *" is not valid: invalid configuration format ('0 3 * *'), exactly five, six, or seven space separated parts are required.`,
      ],
      [
        9,
        'schedules.1.timezone',
        'time zone "Mars" is not an IANA time zone (for example UTC, Europe/Berlin, America/New_York)',
      ],
      [
        10,
        'schedules.2.name',
        'name "c@d" is not a schedule name: letters, digits and . _ : - (not first), up to 128',
      ],
      [14, 'schedules.4.name', 'schedule "e" is named twice'],
    ]);
  });

  it('refuses a shape that is not a schedule', () => {
    const problems = problemsOf(
      lines(...head, '  - name: a', '    cron: "0 3 * * *"', '    overlap: never', '    every: 5m'),
    );
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [7, expect.stringMatching(/expected one of skip, buffer_one, allow_all, cancel_other/)],
      [8, expect.stringMatching(/unknown key "every"/)],
    ]);
  });
});
