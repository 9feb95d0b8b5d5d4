/**
 * The published JSON Schema: the committed schema/workflow.schema.json is exactly what
 * the zod schema generates (run `npx tsx scripts/write-schema.ts` after changing the
 * format), and an editor validating with it accepts the example and flags mistakes.
 */
import { readFileSync } from 'node:fs';
import { type Schema, Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { workflowJsonSchema } from '../../src/engine/compiler.js';

const committed = JSON.parse(
  readFileSync(new URL('../../schema/workflow.schema.json', import.meta.url), 'utf8'),
);
const example = parse(readFileSync(new URL('../../examples/order.yaml', import.meta.url), 'utf8'));

describe('schema/workflow.schema.json', () => {
  it('is what the zod schema generates (regenerate with scripts/write-schema.ts)', () => {
    expect(committed).toEqual(workflowJsonSchema());
  });

  const validator = new Validator(committed as Schema, '2020-12', false);
  const validate = (doc: unknown) => validator.validate(doc).valid;

  it('accepts the example file', () => {
    expect(validator.validate(example).errors).toEqual([]);
  });

  it.each([
    ['an unknown key', { ...example, colour: 'red' }],
    ['an unknown kind', { ...example, activities: { ...example.activities, x: { kind: 'job' } } }],
    [
      'a bad duration',
      {
        ...example,
        activities: { ...example.activities, nap: { kind: 'sleep', duration: '5 sec' } },
      },
    ],
    [
      'a task key on a hook',
      { ...example, activities: { ...example.activities, approve: { kind: 'hook', task: 'x' } } },
    ],
    [
      'a reserved activity id',
      { ...example, activities: { ...example.activities, input: { kind: 'task' } } },
    ],
    ['a missing workflow id', { activities: example.activities }],
  ])('flags %s', (_name, doc) => {
    expect(validate(doc)).toBe(false);
  });
});
