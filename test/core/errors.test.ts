import { describe, expect, it } from 'vitest';
import {
  CounterOverflowError,
  InvalidStateError,
  LeaseLostError,
  ModifiedDeciderError,
  NotFoundError,
  StoreError,
  TimeoutError,
  toErrorRecord,
  UnreachableError,
  ValidationError,
  WeftError,
} from '../../src/core/errors.js';

const cases: [WeftError, string, string, Record<string, unknown>][] = [
  [
    new InvalidStateError('flow', 'PENDING', 'SUCCESS'),
    'InvalidStateError',
    'INVALID_STATE',
    { machine: 'flow', from: 'PENDING', to: 'SUCCESS' },
  ],
  [
    new CounterOverflowError('semaphore leg2 entries', 999_999),
    'CounterOverflowError',
    'COUNTER_OVERFLOW',
    { counter: 'semaphore leg2 entries', limit: 999_999 },
  ],
  [
    new ValidationError('bad input', 'flow.yaml:3'),
    'ValidationError',
    'VALIDATION',
    { where: 'flow.yaml:3' },
  ],
  [new NotFoundError('job', 'J1'), 'NotFoundError', 'NOT_FOUND', { kind: 'job', id: 'J1' }],
  [new StoreError('down'), 'StoreError', 'STORE', {}],
  [
    new ModifiedDeciderError(2, '1.3', 'aa', 'bb'),
    'ModifiedDeciderError',
    'MODIFIED_DECIDER',
    { branchKey: 2, position: '1.3', expectedHash: 'aa', actualHash: 'bb' },
  ],
  [new UnreachableError('stuck', 'fox'), 'UnreachableError', 'UNREACHABLE', { activity: 'fox' }],
  [new TimeoutError('too slow'), 'TimeoutError', 'TIMEOUT', {}],
  [
    new LeaseLostError('engine', 'M1', 'w1'),
    'LeaseLostError',
    'LEASE_LOST',
    { stream: 'engine', messageId: 'M1', consumer: 'w1' },
  ],
];

describe('errors', () => {
  it.each(cases)('%s has a stable name, code and fields', (error, name, code, fields) => {
    expect(error).toBeInstanceOf(WeftError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error).toMatchObject(fields);
    expect(error.toJSON()).toEqual({ name, code, message: error.message, ...fields });
    expect(JSON.parse(JSON.stringify(error))).toEqual(error.toJSON());
  });

  it('say what went wrong in the message', () => {
    expect(
      new InvalidStateError('collation:fox', '9', '6', 'move complete starts from 8').message,
    ).toBe('invalid collation:fox transition 9 -> 6: move complete starts from 8');
    expect(new ValidationError('not a number', 'input.amount').message).toBe(
      'input.amount: not a number',
    );
    expect(new ValidationError('bad url', undefined, { code: 'BAD_URL' }).code).toBe('BAD_URL');
  });

  it('leave the cause and stack out of JSON', () => {
    const error = new StoreError('down', { cause: new Error('ECONNREFUSED') });
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.toJSON()).not.toHaveProperty('cause');
    expect(error.toJSON()).not.toHaveProperty('stack');
  });

  it('toErrorRecord turns anything thrown into a plain record', () => {
    expect(toErrorRecord(new NotFoundError('job', 'J1'))).toEqual({
      name: 'NotFoundError',
      message: 'job "J1" not found',
      code: 'NOT_FOUND',
    });
    const plain = toErrorRecord(new TypeError('nope'));
    expect(plain).toMatchObject({ name: 'TypeError', message: 'nope' });
    expect(typeof plain.stack).toBe('string');
    expect(toErrorRecord('a string')).toEqual({ name: 'Error', message: 'a string' });
  });
});
