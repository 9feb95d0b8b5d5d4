/**
 * The one place that picks a model's runtime: a job by its `model`, a workflow by its
 * stored definition (none: code-first), a task by its `model` (none: graph), a dead letter
 * by its stream and payload; and the engine streams each model serves.
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/core/errors.js';
import { DurableEngine } from '../../src/durable/durable-engine.js';
import { defineWorkflow } from '../../src/durable/index.js';
import { GraphEngine } from '../../src/engine/graph-engine.js';
import { Models } from '../../src/models/models.js';
import type { DeadLetter, JobModel } from '../../src/store/records.js';

const trip = defineWorkflow('trip', {
  async handle() {
    return 'done';
  },
});

function models(): Models {
  return new Models({
    graph: new GraphEngine(),
    durable: new DurableEngine({ workflows: [trip as never] }),
  });
}

function dead(stream: string, payload: DeadLetter['payload']): DeadLetter {
  return {
    id: '1',
    stream,
    payload,
    job: 'j1',
    deliveries: 10,
    reason: 'delivered 10 times',
    lastError: null,
    createdAt: 0,
    deadAt: 0,
  };
}

describe('Models', () => {
  it('serves the engine stream for graph jobs, and the durable and decision streams of its workflows', () => {
    const m = models();
    expect(m.all.map((r) => r.model)).toEqual(['graph', 'durable']);
    expect(m.of('graph').routes.map((r) => r.stream)).toEqual(['engine']);
    expect(m.of('durable').routes.map((r) => r.stream)).toEqual(['durable', 'decide:trip']);
  });

  it('picks a job by its model, and refuses a model it does not know', () => {
    const m = models();
    expect(m.ofJob({ model: 'graph' }).model).toBe('graph');
    expect(m.ofJob({ model: 'durable' }).model).toBe('durable');
    expect(() => m.ofJob({ model: 'bpmn' as JobModel })).toThrow(NotFoundError);
    expect(() => m.ofJob({ model: 'toString' as JobModel })).toThrow(NotFoundError);
  });

  it('starts a workflow with no stored definition as code-first', () => {
    const m = models();
    expect(m.ofDefinition(undefined).model).toBe('durable');
    expect(m.ofDefinition({ model: 'graph' }).model).toBe('graph');
    expect(m.ofDefinition({ model: 'durable' }).model).toBe('durable');
  });

  it('takes a task without a model for a graph task', () => {
    const m = models();
    expect(m.ofTask({}).model).toBe('graph');
    expect(m.ofTask({ model: 'durable' }).model).toBe('durable');
    const graphTask = { job: 'j', a: 'charge', d: '', task: 'charge', input: null, attempt: 1 };
    expect(m.toldOfStart([graphTask, { ...graphTask, model: 'durable' }])).toEqual([
      { ...graphTask, model: 'durable' },
    ]);
  });

  it('gives a dead letter to the model whose message it was', () => {
    const m = models();
    expect(m.ofDeadLetter(dead('engine', { k: 'enter', job: 'j1', a: 'x', d: '' })).model).toBe(
      'graph',
    );
    expect(m.ofDeadLetter(dead('task:charge', { job: 'j1', a: 'x', d: '' })).model).toBe('graph');
    expect(m.ofDeadLetter(dead('task:charge', { model: 'durable', job: 'j1' })).model).toBe(
      'durable',
    );
    expect(m.ofDeadLetter(dead('durable', { k: 'action', job: 'j1' })).model).toBe('durable');
    expect(m.ofDeadLetter(dead('decide:trip', { k: 'decide', job: 'j1' })).model).toBe('durable');
  });
});
