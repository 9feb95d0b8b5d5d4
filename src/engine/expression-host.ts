/**
 * The expression sandbox's child process (started by expression-sandbox.ts with a capped
 * heap): evaluates one JSONata expression, or checks one job input against its schema,
 * per request from its parent, and sends back the result or the error. Its parent kills
 * it when a request runs past the time limit; V8 aborts it when it runs out of heap.
 *
 * A watchdog thread stops the process by itself when a request runs a second past its
 * deadline or the parent is gone, so no orphan keeps burning a CPU after its parent was
 * killed in the middle of a catastrophic regular expression.
 */
import { Worker } from 'node:worker_threads';
import { ExpressionError, ExpressionHostError, ValidationError } from '../core/errors.js';
import type { CompiledWorkflow } from '../graph/compiled-workflow.js';
import { evaluateExpression, type Json } from '../graph/expressions.js';
import { JobInputValidator } from '../graph/job-input.js';
import type { HostReply, HostRequest } from './expression-sandbox.js';

/** The deadline of the running request (epoch ms; 0: none), shared with the watchdog. */
const deadline = new Float64Array(new SharedArrayBuffer(8));

const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const deadline = new Float64Array(workerData.buffer);
setInterval(() => {
  const at = deadline[0];
  if (process.ppid !== workerData.parent || (at > 0 && Date.now() > at + 1000)) {
    process.kill(process.pid, 'SIGKILL');
  }
}, 250);
`;

/** How large a JSON value is, in UTF-16 code units of its JSON text; stops counting past `limit`. */
function jsonSize(value: Json, limit: number): number {
  let size = 0;
  const stack: Json[] = [value];
  while (stack.length > 0 && size <= limit) {
    const item = stack.pop() as Json;
    if (typeof item === 'string') size += item.length + 2;
    else if (item === null || typeof item !== 'object') size += 8;
    else if (Array.isArray(item)) {
      size += 2 + item.length;
      for (const child of item) stack.push(child);
    } else {
      for (const [key, child] of Object.entries(item)) {
        size += key.length + 4;
        stack.push(child);
      }
    }
  }
  return size;
}

const validator = new JobInputValidator();

async function answer(request: HostRequest): Promise<HostReply> {
  if (request.kind === 'input') {
    try {
      validator.validate(
        {
          workflow: request.workflow,
          version: request.version,
          inputSchema: request.schema,
        } as CompiledWorkflow,
        request.input,
      );
      return { id: request.id, ok: true, value: null };
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return {
        id: request.id,
        ok: false,
        failure: { kind: 'input', message: error.message, code: error.code },
      };
    }
  }
  try {
    const value = await evaluateExpression(request.source, request.data, undefined, {
      now: request.now,
    });
    if (jsonSize(value, request.resultLimit) > request.resultLimit) {
      return { id: request.id, ok: false, failure: { kind: 'expression', limit: 'size' } };
    }
    return { id: request.id, ok: true, value };
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    // JSONata's own guard (D1012) can see the time limit before the parent does.
    const timedOut = error.jsonataCode === 'D1012';
    return {
      id: request.id,
      ok: false,
      failure: timedOut
        ? { kind: 'expression', limit: 'time' }
        : {
            kind: 'expression',
            detail: error.detail,
            ...(error.jsonataCode !== undefined && { code: error.jsonataCode }),
            ...(error.position !== undefined && { position: error.position }),
          },
    };
  }
}

function main(): void {
  const send = process.send?.bind(process);
  if (!send)
    throw new ExpressionHostError('the expression host runs only as a child process with IPC');
  const parent = process.ppid;
  new Worker(WATCHDOG, { eval: true, workerData: { buffer: deadline.buffer, parent } }).unref();
  process.on('disconnect', () => process.exit(0));
  process.on('message', (request: HostRequest) => {
    deadline[0] = Date.now() + request.timeMs;
    answer(request)
      .catch(
        (error: unknown): HostReply => ({
          id: request.id,
          ok: false,
          failure: {
            kind: 'crash',
            message: error instanceof Error ? error.message : String(error),
          },
        }),
      )
      .then((reply) => {
        deadline[0] = 0;
        send(reply);
      });
  });
  send({ ready: true });
}

main();
