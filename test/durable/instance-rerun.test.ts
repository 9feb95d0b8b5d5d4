/**
 * The cut a code-first rerun starts from (pure): steps named as the timeline names them
 * (`name`, `name#n`, a wait's `wait for <event>`, a work id); the kept statuses are the
 * main code's, before the step, ended, renamed under the new job (a child keeps its job
 * id) and visible to the first decision; a handler's step is refused.
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../src/core/errors.js';
import { startInstance } from '../../src/durable/engine-start.js';
import type { Instance, Status } from '../../src/durable/instance.js';
import { cutInstance, findStep, stepLabels } from '../../src/durable/instance-rerun.js';

const status = (over: Partial<Status> & Pick<Status, 'name' | 'position'>): Status => ({
  branch_key: 0,
  hash: `h-${over.position}`,
  status: 'completed',
  completion_index: 1,
  output: null,
  uuid: `old.0.${over.position}`,
  type: 'task',
  input: null,
  sync: true,
  ...over,
});

function oldInstance(): Instance {
  const base = startInstance({
    id: 'old',
    workflowName: 'shop',
    input: ['A1'],
    properties: { stage: 'new' },
    now: 1,
  });
  return {
    ...base,
    state: 'failed',
    properties: [...base.properties, { key: 3, values: { stage: 'late' } }],
    statuses: [
      status({ name: 'charge', position: '0', output: 1, revert_state: 'REVERTED' }),
      status({ name: 'kid', position: '1', type: 'workflow', uuid: 'old.0.1' }),
      status({ name: 'notify', position: '2', sync: false, status: 'scheduled' }),
      status({ name: 'wait', position: '3', type: 'wait', input: { event: 'paid' } }),
      status({ name: 'side', position: '0', branch_key: 2, uuid: 'old.2.0' }),
      status({ name: 'charge', position: '4', status: 'failed' }),
    ],
  };
}

describe('a code-first rerun cut', () => {
  it('labels steps as the timeline names them, and finds them by label or work id', () => {
    const old = oldInstance();
    expect(stepLabels(old.statuses)).toEqual([
      'charge',
      'kid',
      'notify',
      'wait for paid',
      'side',
      'charge#2',
    ]);
    expect(findStep(old, 'charge', 'old')).toBe(0);
    expect(findStep(old, 'charge#1', 'old')).toBe(0);
    expect(findStep(old, 'charge#2', 'old')).toBe(5);
    expect(findStep(old, 'old.0.3', 'old')).toBe(3);
    expect(() => findStep(old, 'charge#3', 'old')).toThrow(NotFoundError);
    expect(() => findStep(old, 'refund', 'old')).toThrow(/its steps: charge, kid, notify/);
  });

  it("keeps the main code's ended statuses before the step, visible to the first decision", () => {
    const old = oldInstance();
    const cut = cutInstance(old, 5, ['A1'], 'new', 50);
    expect(cut.kept).toEqual(['charge', 'kid', 'wait for paid']);
    expect(cut.again).toEqual(['charge#2']);
    const { instance } = cut;
    expect(instance).toMatchObject({ id: 'new', workflow_name: 'shop', state: 'running' });
    expect(instance.properties).toEqual([{ key: 0, values: { stage: 'new' } }]);
    expect(instance.buffer).toMatchObject([{ type: 'handle', data: { input: ['A1'] } }]);
    expect(instance.statuses.map((s) => [s.uuid, s.completion_index, s.kept_from])).toEqual([
      ['new.0.0', 0, 'old'],
      ['old.0.1', 0, 'old'],
      ['new.0.3', 0, 'old'],
    ]);
    expect(instance.statuses[0]?.revert_state).toBeUndefined();
    expect(instance.statuses[0]?.hash).toBe('h-0');
  });

  it('refuses a step a handler ran', () => {
    const err = (() => {
      try {
        cutInstance(oldInstance(), 4, [], 'new', 50);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe('RERUN_REFUSED');
  });
});
