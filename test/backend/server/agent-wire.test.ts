/**
 * The wire works of `POST /decisions/{uuid}/execute` map onto the same work requests the
 * TypeScript executer makes (so both kinds of agent hash a work alike), and malformed
 * ones are refused naming the field. Pure: no store.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import {
  parseEndBranchBody,
  parseExecuteBody,
  parseTaskResult,
} from '../../../src/server/agent-wire.js';

function refused(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('agent wire', () => {
  it('maps the seed fields onto work requests like the TypeScript executer', () => {
    expect(
      parseExecuteBody([
        { name: 'charge', input: { amount: 1 }, position: 0, timeout: 500 },
        { type: 'wait', event: 'approved', timeout: 60_000, position: '1' },
        { type: 'wait', until: 1_800_000_000_000, position: '2' },
        { type: 'event', name: 'ping', input: { n: 1 }, to: 'other', position: '3' },
        { type: 'value', name: 'uuid', position: '4' },
        { type: 'workflow', name: 'child', input: [1, 2], position: '5', sync: false },
      ]),
    ).toEqual([
      // execute(charge, {amount: 1}) with a timeout
      {
        type: 'task',
        name: 'charge',
        input: { amount: 1 },
        position: '0',
        sync: true,
        timeoutMs: 500,
      },
      // waitForEvent('approved', { timeoutMs: 60000 })
      {
        type: 'wait',
        name: 'wait',
        input: { event: 'approved', durationMs: 60_000 },
        position: '1',
        sync: true,
      },
      // waitUntil(date)
      {
        type: 'wait',
        name: 'wait',
        input: { until: 1_800_000_000_000 },
        position: '2',
        sync: true,
      },
      // sendTo('other', 'ping', {n: 1})
      {
        type: 'event',
        name: 'ping',
        input: { to: 'other', data: { n: 1 } },
        position: '3',
        sync: false,
      },
      // uuid()
      { type: 'value', name: 'uuid', input: null, position: '4', sync: false },
      // dispatch(child, 1, 2)
      { type: 'workflow', name: 'child', input: [1, 2], position: '5', sync: false },
    ]);
  });

  it('refuses malformed works, naming where', () => {
    const cases: [unknown, string, RegExp][] = [
      [[{ position: '0' }], 'body/0', /needs a name/],
      [[{ name: 'a', position: '' }], 'body/0/position', /./],
      [[{ name: 'a', position: -1 }], 'body/0/position', /./],
      [[{ type: 'wait', position: '0' }], 'body/0', /event, a timeout or an until/],
      [[{ type: 'wait', position: '0', event: 'e', input: 1 }], 'body/0', /takes no input/],
      [[{ name: 'a', position: '0', event: 'e' }], 'body/0', /takes no event/],
      [[{ type: 'value', name: 'now', position: '0' }], 'body/0', /date, random, uuid/],
      [[{ type: 'event', name: 'e', position: '0', timeout: 1 }], 'body/0', /takes no timeout/],
      [[{ type: 'job', name: 'a', position: '0' }], 'body/0/type', /./],
      [[], 'body', /./],
    ];
    for (const [body, where, message] of cases) {
      const error = refused(() => parseExecuteBody(body));
      expect(error.where, JSON.stringify(body)).toBe(where);
      expect(error.message).toMatch(message);
    }
  });

  it('reads branch ends and task results', () => {
    expect(parseEndBranchBody({ properties: { a: 1 }, output: null })).toEqual({
      properties: { a: 1 },
      output: null,
    });
    expect(parseEndBranchBody({ properties: {} })).toEqual({ properties: {} });
    expect(
      parseEndBranchBody({ properties: {}, error: { name: 'E', message: 'm', code: 7 } }),
    ).toEqual({ properties: {}, error: { name: 'E', message: 'm', code: '7' } });
    expect(refused(() => parseEndBranchBody({ properties: [] })).where).toBe('body/properties');
    expect(parseTaskResult({ status: 'completed' })).toEqual({ status: 'completed', output: null });
    expect(
      parseTaskResult({
        status: 'failed',
        error: { name: 'E', message: 'm', stacktrace: 's', code: 'X' },
      }),
    ).toEqual({ status: 'failed', error: { name: 'E', message: 'm', stack: 's', code: 'X' } });
    expect(refused(() => parseTaskResult({ status: 'failed' })).where).toBe('body/error');
  });
});
