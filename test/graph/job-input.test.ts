/** The job input check against a workflow's `input:` JSON Schema. */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { workflow } from '../../src/engine/builder.js';
import { compileWorkflow } from '../../src/engine/compiler.js';
import { JobInputValidator, validateJobInput } from '../../src/graph/index.js';

const wf = workflow('pay')
  .version(2)
  .input({
    type: 'object',
    required: ['amount', 'customer'],
    additionalProperties: false,
    properties: {
      amount: { type: 'number', exclusiveMinimum: 0 },
      customer: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
      note: { type: 'string', format: 'email' },
    },
  })
  .trigger('start')
  .compile();

function failure(input: unknown): ValidationError {
  try {
    validateJobInput(wf, input);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected the input to be refused');
}

describe('validateJobInput', () => {
  it('accepts an input that satisfies the schema', () => {
    expect(() =>
      validateJobInput(wf, { amount: 5, customer: { id: 'c1' }, items: [{ sku: 'a' }] }),
    ).not.toThrow();
  });

  it('checks formats', () => {
    expect(failure({ amount: 5, customer: { id: 'c1' }, note: 'not an email' }).where).toBe(
      'input.note',
    );
    expect(() =>
      validateJobInput(wf, { amount: 5, customer: { id: 'c1' }, note: 'ana@example.com' }),
    ).not.toThrow();
  });

  it('names the failing path', () => {
    const error = failure({ amount: 5, customer: { id: 'c1' }, items: [{ sku: 7 }] });
    expect(error.where).toBe('input.items[0].sku');
    expect(error.code).toBe('INVALID_JOB_INPUT');
    expect(error.message).toContain('workflow pay@2');
    expect(error.message).toContain('input.items[0].sku must be string');
  });

  it('names a missing property and an unknown one', () => {
    expect(failure({ amount: 5 }).message).toContain('input.customer is required');
    expect(failure({ amount: 5, customer: { id: 'c' }, colour: 'red' }).message).toContain(
      'input has unknown property "colour"',
    );
    expect(failure({ amount: 0, customer: { id: 'c' } }).where).toBe('input.amount');
  });

  it('refuses a non-object input', () => {
    expect(failure(null).message).toContain('input must be object');
  });

  it('accepts anything when the workflow has no input schema', () => {
    const open = workflow('open').trigger('start').compile();
    expect(() => validateJobInput(open, 'anything')).not.toThrow();
  });

  it('recompiles when the same version arrives with another schema', () => {
    const validator = new JobInputValidator();
    const v1 = compileWorkflow({
      workflow: 'x',
      input: { type: 'string' },
      activities: { s: { kind: 'trigger' } },
    });
    const v1changed = compileWorkflow({
      workflow: 'x',
      input: { type: 'number' },
      activities: { s: { kind: 'trigger' } },
    });
    expect(() => validator.validate(v1, 'a')).not.toThrow();
    expect(() => validator.validate(v1changed, 'a')).toThrow(ValidationError);
    expect(() => validator.validate(v1changed, 1)).not.toThrow();
  });
});
