/**
 * Every rule the compiler enforces, each broken once: the error lists the problem with the
 * file, the line it is written on and the activity it belongs to.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError, WorkflowDefinitionError } from '../../src/core/errors.js';
import { compileWorkflow } from '../../src/engine/compiler.js';
import { lines, problemMatching, problemsOf } from './helpers.js';

/** A valid file with the given activity lines and transition lines. */
function file(
  activities: string[],
  transitions: string[] = ['  start: [a]'],
  extra: string[] = [],
): string {
  return lines(
    'workflow: w',
    'activities:',
    '  start: { kind: trigger }',
    ...activities,
    'transitions:',
    ...transitions,
    ...extra,
  );
}

type Case = [
  name: string,
  text: string,
  message: RegExp,
  line: number | undefined,
  activity: string | undefined,
];

const cases: Case[] = [
  [
    'an unknown top-level key',
    lines('workflow: w', 'colour: red', 'activities:', '  start: { kind: trigger }'),
    /unknown key "colour"/,
    2,
    undefined,
  ],
  [
    'an unknown activity key',
    file(['  a: { kind: task, retries: 3 }']),
    /unknown key "retries" for a task activity/,
    4,
    'a',
  ],
  [
    'a key of another kind',
    file(['  a: { kind: sleep, duration: 1s, signal: go }']),
    /unknown key "signal" for a sleep activity/,
    4,
    'a',
  ],
  [
    'an unknown key in a transition',
    file(['  a: { kind: task }'], ['  start:', '    - { to: a, if: "x" }']),
    /unknown key "if"/,
    7,
    'start',
  ],
  [
    'an unknown kind',
    file(['  a: { kind: job }']),
    /unknown kind "job": expected one of trigger, task, hook, sleep, await, cycle/,
    4,
    'a',
  ],
  ['a missing kind', file(['  a: { task: x }']), /missing required field "kind"/, 4, 'a'],
  [
    'a sleep without duration',
    file(['  a: { kind: sleep }']),
    /missing required field "duration"/,
    4,
    'a',
  ],
  [
    'an await without workflow',
    file(['  a: { kind: await }']),
    /missing required field "workflow"/,
    4,
    'a',
  ],
  [
    'a cycle without ancestor',
    file(['  a: { kind: task }', '  b: { kind: cycle }'], ['  start: [a]', '  a: [b]']),
    /missing required field "ancestor"/,
    5,
    'b',
  ],
  [
    'a retry jitter above 1',
    file(['  a:', '    kind: task', '    retry: { attempts: 3, jitter: 2 }']),
    /Too big: expected number to be <=1/,
    6,
    'a',
  ],
  [
    'transitions from an unknown activity',
    file(['  a: { kind: task }'], ['  start: [a]', '  ghost: [a]']),
    /transitions from unknown activity "ghost"/,
    7,
    'ghost',
  ],
  [
    'a transition to an unknown activity',
    file(['  a: { kind: task }'], ['  start: [a, ghost]']),
    /transition to unknown activity "ghost"/,
    6,
    'start',
  ],
  [
    'a detailed transition to an unknown activity',
    file(['  a: { kind: task }'], ['  start:', '    - a', '    - { to: ghost, on: success }']),
    /transition to unknown activity "ghost"/,
    8,
    'start',
  ],
  [
    'no trigger',
    lines('workflow: w', 'activities:', '  a: { kind: task }'),
    /no trigger/,
    2,
    undefined,
  ],
  [
    'two triggers',
    lines('workflow: w', 'activities:', '  start: { kind: trigger }', '  again: { kind: trigger }'),
    /more than one trigger \(start, again\)/,
    4,
    'again',
  ],
  [
    'a transition into the trigger',
    file(['  a: { kind: task }'], ['  start: [a]', '  a: [start]']),
    /transition into the trigger "start"/,
    7,
    'a',
  ],
  [
    'a loop without a cycle activity',
    file(
      ['  a: { kind: task }', '  b: { kind: task }', '  c: { kind: task }'],
      ['  start: [a]', '  a: [b]', '  b: [c]', '  c: [a]'],
    ),
    /loop a -> b -> c -> a does not go through a cycle activity/,
    11,
    'c',
  ],
  [
    'a self-loop',
    file(['  a: { kind: task }'], ['  start: [a]', '  a: [a]']),
    /loop a -> a/,
    7,
    'a',
  ],
  [
    'an unreachable activity',
    file(['  a: { kind: task }', '  island: { kind: task }']),
    /unreachable: no path from the trigger "start"/,
    5,
    'island',
  ],
  [
    'a duplicate activity id',
    file(['  a: { kind: task }', '  a: { kind: hook }']),
    /duplicate activity id "a"/,
    5,
    'a',
  ],
  [
    'bad JSONata in an input',
    file(['  a: { kind: task, input: "{ \'x\': " }']),
    /bad JSONata in input at position 7 \(S0203\): Expected "}" before end of expression/,
    4,
    'a',
  ],
  [
    'bad JSONata in a condition',
    file(['  a: { kind: task }'], ['  start:', '    - { to: a, when: "input.x >" }']),
    /bad JSONata in when at position 9 \(S0207\): Unexpected end of expression/,
    7,
    'start',
  ],
  [
    'bad JSONata in the output',
    file(['  a: { kind: task }'], ['  start: [a]'], ['output: "a.output.("']),
    /bad JSONata in output/,
    7,
    undefined,
  ],
  [
    'an input reading a misspelt activity',
    file(
      ['  charge: { kind: task }', '  ship: { kind: task, input: "chrage.output.id" }'],
      ['  start: [charge]', '  charge: [ship]'],
    ),
    /input at position 0 reads "chrage", which is neither `input` nor an activity id \(charge, ship, start\)/,
    5,
    'ship',
  ],
  [
    'a condition reading an unknown name inside a function call',
    file(['  a: { kind: task }'], ['  start:', '    - { to: a, when: "$not(inptu.go)" }']),
    /when at position 5 reads "inptu", which is neither `input` nor an activity id/,
    7,
    'start',
  ],
  [
    'an output reading an unknown name in an object',
    file(
      ['  a: { kind: task }'],
      ['  start: [a]'],
      ["output: \"{ 'id': a.output.id, 'n': count }\""],
    ),
    /output at position 26 reads "count", which is neither `input` nor an activity id/,
    7,
    undefined,
  ],
  [
    'an output reading an unknown name through $$',
    file(['  a: { kind: task }'], ['  start: [a]'], ['output: "a.output.items[$$.limt > 0]"']),
    /output at position 18 reads "limt"/,
    7,
    undefined,
  ],
  [
    'an empty expression',
    file(['  a: { kind: task, input: "" }']),
    /an expression must not be empty/,
    4,
    'a',
  ],
  [
    'a cycle whose ancestor is downstream',
    file(
      ['  a: { kind: task }', '  b: { kind: cycle, ancestor: c }', '  c: { kind: task }'],
      ['  start: [a]', '  a: [b, c]'],
    ),
    /ancestor "c" is not upstream of "b"/,
    5,
    'b',
  ],
  [
    'a cycle whose ancestor is unknown',
    file(
      ['  a: { kind: task }', '  b: { kind: cycle, ancestor: ghost }'],
      ['  start: [a]', '  a: [b]'],
    ),
    /ancestor "ghost" is not an activity/,
    5,
    'b',
  ],
  [
    'a cycle re-entering itself',
    file(
      ['  a: { kind: task }', '  b: { kind: cycle, ancestor: b }'],
      ['  start: [a]', '  a: [b]'],
    ),
    /cannot re-enter itself/,
    5,
    'b',
  ],
  [
    'a cycle re-entering the trigger',
    file(['  b: { kind: cycle, ancestor: start }'], ['  start: [b]']),
    /cannot re-enter the trigger "start"/,
    4,
    'b',
  ],
  [
    'a success transition from a cycle',
    file(
      ['  a: { kind: task }', '  b: { kind: cycle, ancestor: a }', '  c: { kind: task }'],
      ['  start: [a]', '  a: [b]', '  b: [c]'],
    ),
    /cycle activity re-enters its ancestor and has no success outcome/,
    10,
    'b',
  ],
  [
    'a waiting self-await',
    file(['  a: { kind: await, workflow: w }']),
    /awaits its own workflow "w"/,
    4,
    'a',
  ],
  [
    'on: timeout from a sleep',
    file(
      ['  a: { kind: sleep, duration: 1s }', '  b: { kind: task }'],
      ['  start: [a]', '  a:', '    - { to: b, on: timeout }'],
    ),
    /on: timeout from a sleep activity, which has no timeout/,
    9,
    'a',
  ],
  [
    'on: timeout from an await',
    file(
      ['  a: { kind: await, workflow: other }', '  b: { kind: task }'],
      ['  start: [a]', '  a:', '    - { to: b, on: timeout }'],
    ),
    /on: timeout from a await activity/,
    9,
    'a',
  ],
  [
    'on: timeout from a task without a timeout',
    file(
      ['  a: { kind: task }', '  b: { kind: task }'],
      ['  start: [a]', '  a:', '    - { to: b, on: timeout }'],
    ),
    /on: timeout from "a", which sets no timeout/,
    9,
    'a',
  ],
  [
    'on: error from the trigger',
    file(['  a: { kind: task }'], ['  start:', '    - { to: a, on: error }']),
    /on: error from a trigger activity, which never fails/,
    7,
    'start',
  ],
  [
    'an unknown outcome',
    file(['  a: { kind: task }'], ['  start:', '    - { to: a, on: failure }']),
    /expected one of success, error, timeout; got the string "failure"/,
    7,
    'start',
  ],
  [
    'a bad duration string',
    file(['  a: { kind: task, timeout: 5x }']),
    /bad duration "5x" in timeout/,
    4,
    'a',
  ],
  [
    'a negative duration',
    file(['  a: { kind: sleep, duration: -1 }']),
    /bad duration -1 in duration/,
    4,
    'a',
  ],
  [
    'a fractional duration',
    file(['  a:', '    kind: task', '    retry: { attempts: 2, backoff: 1.5s }']),
    /bad duration "1.5s" in backoff/,
    6,
    'a',
  ],
  [
    'a duration too long',
    file(['  a: { kind: sleep, duration: 2000d }']),
    /bad duration "2000d" in duration: at most 1000d/,
    4,
    'a',
  ],
  [
    'a cap below the first delay',
    file(['  a:', '    kind: task', '    retry: { attempts: 2, backoff: 1s, max_backoff: 10ms }']),
    /max_backoff \(10ms\) is less than backoff \(1000ms\)/,
    6,
    'a',
  ],
  [
    'a cap below the first delay, in the older spelling maxDelay',
    file(['  a:', '    kind: task', '    retry: { attempts: 2, backoff: 1s, maxDelay: 10ms }']),
    /max_backoff \(10ms\) is less than backoff \(1000ms\)/,
    6,
    'a',
  ],
  [
    'version 0',
    lines('workflow: w', 'version: 0', 'activities:', '  start: { kind: trigger }'),
    /Too small/,
    2,
    undefined,
  ],
  [
    'a version that is a string',
    lines('workflow: w', 'version: "2"', 'activities:', '  start: { kind: trigger }'),
    /expected number, got the string "2"/,
    2,
    undefined,
  ],
  [
    'the reserved id input',
    file(['  input: { kind: task }'], ['  start: [input]']),
    /bad activity id "input"/,
    4,
    'input',
  ],
  [
    'an id starting with a digit',
    file(['  1a: { kind: task }'], ['  start: ["1a"]']),
    /bad activity id "1a"/,
    4,
    '1a',
  ],
  [
    'a bad workflow id',
    lines('workflow: "my workflow"', 'activities:', '  start: { kind: trigger }'),
    /a workflow id is/,
    1,
    undefined,
  ],
  [
    'an input that is not a JSON Schema',
    lines('workflow: w', 'input: { type: objekt }', 'activities:', '  start: { kind: trigger }'),
    /the input schema is not a valid JSON Schema/,
    2,
    undefined,
  ],
  [
    'an input schema with a dangling $ref',
    lines(
      'workflow: w',
      'input: { $ref: "#/definitions/nope" }',
      'activities:',
      '  start: { kind: trigger }',
    ),
    /the input schema has a \$ref that does not resolve inside it/,
    2,
    undefined,
  ],
  [
    'a transition list that is a string',
    file(['  a: { kind: task }'], ['  start: a']),
    /expected array, got the string "a"/,
    6,
    'start',
  ],
  [
    'a transition item that is a number',
    file(['  a: { kind: task }'], ['  start: [a, 5]']),
    /a transition is an activity id or a map/,
    6,
    'start',
  ],
  [
    'a YAML syntax error',
    lines('workflow: w', 'activities:', '  start: { kind: trigger', '  a: b'),
    /YAML syntax error: Flow map .* must .* end with a }/,
    4,
    'a',
  ],
  [
    'an unknown YAML tag',
    lines('workflow: w', 'activities:', '  start: !include other.yaml'),
    /unsupported YAML: Unresolved tag: !include/,
    3,
    'start',
  ],
  [
    'a map used as a key',
    lines('workflow: w', 'activities:', '  ? { a: 1 }', '  : { kind: trigger }'),
    /keys must be plain strings/,
    3,
    undefined,
  ],
];

describe('compileWorkflow rejects', () => {
  it.each(cases)('%s', (_name, text, message, line, activity) => {
    const problem = problemMatching(text, message, 'w.yaml');
    expect(problem.file).toBe('w.yaml');
    expect(problem.line).toBe(line);
    expect(problem.activity).toBe(activity);
    if (line !== undefined) expect(problem.column).toBeGreaterThan(0);
  });
});

describe('the definition error', () => {
  const text = file(
    ['  a: { kind: task, timeout: 5x }', '  b: { kind: nope }', '  c: { kind: task }'],
    ['  start: [a, b, ghost]'],
  );

  it('is one typed error listing every problem, sorted by line', () => {
    let caught: unknown;
    try {
      compileWorkflow(text, { source: 'orders/w.yaml' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WorkflowDefinitionError);
    expect(caught).toBeInstanceOf(ValidationError);
    const error = caught as WorkflowDefinitionError;
    expect(error.code).toBe('WORKFLOW_DEFINITION');
    expect(error.source).toBe('orders/w.yaml');
    expect(error.problems.map((p) => [p.line, p.activity])).toEqual([
      [4, 'a'],
      [5, 'b'],
      [6, 'c'],
      [8, 'start'],
    ]);
    expect(error.message).toContain('orders/w.yaml: 4 problems in the workflow definition');
    expect(error.message).toContain(
      'orders/w.yaml:4:20: activity "a": activities.a.timeout: bad duration "5x"',
    );
    expect(error.message).toContain(
      'orders/w.yaml:8:17: activity "start": transitions.start.2: transition to unknown activity "ghost"',
    );
    expect(error.toJSON()).toMatchObject({
      name: 'WorkflowDefinitionError',
      code: 'WORKFLOW_DEFINITION',
      problems: error.problems,
    });
  });

  it('locates problems in JSON text too', () => {
    const json = JSON.stringify(
      {
        workflow: 'w',
        activities: { start: { kind: 'trigger' }, a: { kind: 'sleep', duration: '1y' } },
        transitions: { start: ['a'] },
      },
      null,
      2,
    );
    const problem = problemMatching(json, /bad duration "1y"/, 'w.json');
    expect(problem).toMatchObject({
      file: 'w.json',
      line: 9,
      activity: 'a',
      path: 'activities.a.duration',
    });
  });

  it('finds duplicate ids in JSON text', () => {
    const json =
      '{\n  "workflow": "w",\n  "activities": {\n    "start": { "kind": "trigger" },\n    "start": { "kind": "task" }\n  }\n}\n';
    expect(problemMatching(json, /duplicate activity id "start"/)).toMatchObject({
      line: 5,
      activity: 'start',
    });
  });

  it('names the activity but no line for a document object', () => {
    const problem = problemMatching(
      {
        workflow: 'w',
        activities: { start: { kind: 'trigger' }, a: { kind: 'task', timeout: 'soon' } },
        transitions: { start: ['a'] },
      },
      /bad duration "soon" in timeout/,
    );
    expect(problem).toMatchObject({ activity: 'a', path: 'activities.a.timeout' });
    expect(problem.line).toBeUndefined();
  });

  it.each([
    ['an empty file', ''],
    ['a list', '- a\n- b\n'],
    ['a string', 'hello\n'],
    ['two documents', 'workflow: a\n---\nworkflow: b\n'],
  ])('rejects %s', (_name, text) => {
    expect(problemsOf(text).length).toBeGreaterThan(0);
  });

  it('allows names relative to a path step, a filter, a sort, a group or a function', () => {
    const wf = compileWorkflow(
      file(
        [
          '  a: { kind: task }',
          "  b: { kind: task, input: \"{ 'big': input.items[qty > 1].name, 'n': $count(a.output) }\" }",
          "  c: { kind: task, input: \"input.items^(>qty).{ 'q': qty, 'p': $$.input.p }\" }",
          '  d: { kind: task, input: "$map(input.xs, function($v) { $v.q + w })" }',
          '  e: { kind: task, input: "input.items{ kind: $sum(qty) }" }',
          '  f: { kind: task, input: "$.input.x & $string(`a`.output) & \'input\'" }',
        ],
        ['  start: [a]', '  a: [b, c, d, e, f]'],
        ['output: "a.output ? b.output : $$.c.output"'],
      ),
    );
    expect(wf.order).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'start']);
  });

  it('allows await of its own workflow when it does not wait', () => {
    const wf = compileWorkflow(file(['  a: { kind: await, workflow: w, await: false }']));
    expect(wf.activities.a).toMatchObject({ kind: 'await', workflow: 'w', await: false });
  });

  it('allows on: error from a cycle (taken when max is exceeded)', () => {
    const wf = compileWorkflow(
      file(
        [
          '  a: { kind: task }',
          '  b: { kind: cycle, ancestor: a, max: 3 }',
          '  giveUp: { kind: task }',
        ],
        ['  start: [a]', '  a: [b]', '  b:', '    - { to: giveUp, on: error }'],
      ),
    );
    expect(wf.transitions).toContainEqual({ from: 'b', to: 'giveUp', on: 'error' });
    expect(wf.transitions.some((t) => t.to === 'a' && t.from === 'b')).toBe(false);
  });
});
