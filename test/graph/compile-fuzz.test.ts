/**
 * Fuzzing the compiler: random text, random values, random graphs and mutations of valid
 * documents always end in a valid compiled workflow or a ValidationError (normally a
 * WorkflowDefinitionError) — never another exception, never a hang.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ValidationError, WorkflowDefinitionError } from '../../src/core/errors.js';
import { compileWorkflow } from '../../src/engine/compiler.js';
import type { CompiledWorkflow } from '../../src/engine/kinds/index.js';
import { reachableFrom } from '../../src/graph/index.js';

const exampleText = readFileSync(new URL('../../examples/order.yaml', import.meta.url), 'utf8');
const example = parse(exampleText) as Record<string, unknown>;

/** What every compiled workflow satisfies. */
function checkInvariants(wf: CompiledWorkflow): void {
  expect([...wf.order].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(wf.order);
  for (const [position, id] of wf.order.entries()) {
    expect(wf.activities[id]?.position).toBe(position);
  }
  expect(Object.keys(wf.activities).sort()).toEqual([...wf.order].sort());
  expect(wf.order.filter((id) => wf.activities[id]?.kind === 'trigger')).toEqual([wf.trigger]);
  for (const t of wf.transitions) {
    expect(wf.activities[t.from]).toBeDefined();
    expect(wf.activities[t.to]).toBeDefined();
    expect(t.to).not.toBe(wf.trigger);
  }
  expect(reachableFrom(wf, wf.trigger).size).toBe(wf.order.length);
  expect(JSON.parse(JSON.stringify(wf))).toEqual(wf);
}

/** Compiles and checks: a valid workflow, or a ValidationError with located problems. */
function outcome(definition: unknown): 'valid' | 'rejected' {
  let wf: CompiledWorkflow;
  try {
    wf = compileWorkflow(definition, { source: 'fuzz.yaml' });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    if (error instanceof WorkflowDefinitionError) {
      expect(error.problems.length).toBeGreaterThan(0);
      for (const p of error.problems) expect(typeof p.message).toBe('string');
    }
    return 'rejected';
  }
  checkInvariants(wf);
  return 'valid';
}

const ids = fc.constantFrom(
  'start',
  'a',
  'b',
  'c',
  'd',
  'e',
  'input',
  'Z',
  'x-y',
  '1x',
  '__proto__',
  'constructor',
);
const kinds = fc.constantFrom('trigger', 'task', 'hook', 'sleep', 'await', 'cycle', 'job', 7);
const durations = fc.oneof(
  fc.constantFrom('1s', '200ms', '5m', '1h', '1d', '2000d', '5x', '-1s', ''),
  fc.integer({ min: -5, max: 1e12 }),
  fc.double(),
);
const expressions = fc.oneof(
  fc.constantFrom('input.x', 'a.output.ok', "{ 'x': ", '$not(', '', 'a +'),
  fc.string({ maxLength: 12 }),
);

const activity = fc.record(
  {
    kind: kinds,
    task: fc.string({ maxLength: 5 }),
    input: expressions,
    retry: fc.record(
      {
        attempts: fc.integer({ min: -1, max: 5 }),
        backoff: durations,
        factor: fc.double(),
        maxDelay: durations,
      },
      { requiredKeys: [] },
    ),
    timeout: durations,
    signal: fc.string({ maxLength: 5 }),
    duration: durations,
    workflow: fc.constantFrom('fuzz', 'other', 'w'),
    await: fc.boolean(),
    ancestor: ids,
    max: fc.integer({ min: -1, max: 200 }),
    join: fc.constantFrom('all', 'any', 'some'),
    description: fc.string({ maxLength: 5 }),
    extra: fc.anything(),
  },
  { requiredKeys: ['kind'] },
);

const transitionItem = fc.oneof(
  ids,
  fc.record(
    { to: ids, when: expressions, on: fc.constantFrom('success', 'error', 'timeout', 'nope') },
    { requiredKeys: ['to'] },
  ),
  fc.anything(),
);

const randomDocument = fc.record(
  {
    workflow: fc.oneof(fc.constantFrom('fuzz', 'w'), fc.anything()),
    version: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.anything()),
    input: fc.oneof(fc.constant({ type: 'object' }), fc.constant({ type: 'nope' }), fc.object()),
    activities: fc.dictionary(ids, activity, { maxKeys: 7 }),
    transitions: fc.dictionary(ids, fc.array(transitionItem, { maxLength: 4 }), { maxKeys: 7 }),
    output: expressions,
  },
  { requiredKeys: ['workflow', 'activities'] },
);

/** A random valid-ish DAG: mostly valid workflows, so the success path is fuzzed too. */
const randomGraph = fc.integer({ min: 1, max: 30 }).chain((n) =>
  fc.tuple(
    fc.constant(n),
    fc.array(
      fc.tuple(fc.nat(n - 1), fc.nat(n - 1), fc.constantFrom('success', 'error', 'timeout')),
      { maxLength: n * 2 },
    ),
    fc.array(fc.constantFrom('task', 'hook', 'sleep', 'await', 'cycle'), {
      minLength: n,
      maxLength: n,
    }),
  ),
);

function graphDocument([n, edges, kindsOf]: [
  number,
  [number, number, string][],
  string[],
]): unknown {
  const name = (i: number) => (i === 0 ? 'start' : `n${i}`);
  const activities: Record<string, unknown> = { start: { kind: 'trigger' } };
  for (let i = 1; i < n; i++) {
    const kind = kindsOf[i];
    activities[name(i)] =
      kind === 'sleep'
        ? { kind, duration: '1s' }
        : kind === 'await'
          ? { kind, workflow: 'child' }
          : kind === 'cycle'
            ? { kind, ancestor: name(Math.max(1, i - 1)) }
            : kind === 'hook'
              ? { kind, timeout: '1m' }
              : { kind: 'task', timeout: '1s' };
  }
  const transitions: Record<string, unknown[]> = {};
  // A spine keeps most nodes reachable; random edges go forward (mostly) or back (a loop).
  const add = (from: string, item: unknown) => {
    transitions[from] = [...(transitions[from] ?? []), item];
  };
  for (let i = 1; i < n; i++) add(name(i - 1), name(i));
  for (const [a, b, on] of edges) add(name(a), on === 'success' ? name(b) : { to: name(b), on });
  return { workflow: 'graph', activities, transitions };
}

function mutateText(text: string, at: number, insert: string, cut: number): string {
  const i = at % (text.length + 1);
  return text.slice(0, i) + insert + text.slice(i + cut);
}

function setAt(root: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(root) as Record<string, unknown>;
  let node: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') return copy;
    node = next as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

const examplePaths: string[][] = [];
(function collect(value: unknown, path: string[]) {
  if (path.length) examplePaths.push(path);
  if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) collect(v, [...path, k]);
})(example, []);

describe('the compiler under fuzzing', () => {
  it('handles arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => void outcome(text)),
      { numRuns: 500 },
    );
  });

  it('handles arbitrary values', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withNullPrototype: true,
          withMap: true,
          withSet: true,
          withBigInt: true,
          withDate: true,
          withTypedArray: true,
          withSparseArray: true,
          withBoxedValues: true,
        }),
        (value) => void outcome(value),
      ),
      { numRuns: 500 },
    );
  });

  it('handles random documents, as objects and as JSON and YAML text', () => {
    fc.assert(
      fc.property(randomDocument, (doc) => {
        outcome(doc);
        const json = JSON.stringify(doc);
        if (json !== undefined) outcome(json);
      }),
      { numRuns: 400 },
    );
  });

  it('handles random graphs, compiling the valid ones', () => {
    let valid = 0;
    fc.assert(
      fc.property(randomGraph, (graph) => {
        if (outcome(graphDocument(graph)) === 'valid') valid++;
      }),
      { numRuns: 400 },
    );
    expect(valid).toBeGreaterThan(0);
  });

  it('handles the example file with random edits to its text', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.string({ maxLength: 8 }),
        fc.nat(20),
        (at, insert, cut) => void outcome(mutateText(exampleText, at, insert, cut)),
      ),
      { numRuns: 500 },
    );
  });

  it('handles the example document with a field replaced or removed', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...examplePaths),
        fc.oneof(fc.constant(undefined), fc.jsonValue(), fc.anything()),
        (path, value) => {
          const mutated = setAt(example, path, value);
          outcome(mutated);
          const json = JSON.stringify(mutated);
          if (json !== undefined) outcome(json);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('survives YAML that tries to exhaust memory with aliases', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'workflow: [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
    ].join('\n');
    expect(outcome(bomb)).toBe('rejected');
  });
});
