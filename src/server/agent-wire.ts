/**
 * The bodies of the agent protocol, checked: every request body and query is parsed here
 * before anything else happens, so a malformed request is refused with a
 * `ValidationError` naming the field (`body/0/position`) and changes nothing. The seed's
 * wire works (`{ name, input, position, timeout, sync, type, event }`) are mapped onto
 * the {@link WorkRequest}s a `DecisionSession` takes, the same way the TypeScript
 * executer describes them, so both kinds of agent hash a work alike.
 */
import { z } from 'zod';
import { ValidationError } from '../core/errors.js';
import type { WorkRequest } from '../durable/session-messages.js';
import type { JsonObject } from '../durable/stable-json.js';
import { WORKFLOW_ID_PATTERN } from '../graph/workflow-document.js';
import type { ErrorRecord, Json } from '../store/records.js';

const name = z.string().min(1).max(200);

/** Most names one registration (`POST /agents`, or a job request's query) may carry. */
export const MAX_NAMES_PER_REQUEST = 100;

/** A workflow or task name an agent registers: what a workflow id may be. */
const registeredName = z.string().regex(WORKFLOW_ID_PATTERN, {
  error:
    'a workflow or task name is 1-128 letters, digits, "_", "." or "-", starting with a letter or digit',
});

const registeredNames = z.array(registeredName).max(MAX_NAMES_PER_REQUEST, {
  error: `at most ${MAX_NAMES_PER_REQUEST} names at once`,
});

const wireError = z.strictObject({
  name: z.string().min(1),
  message: z.string(),
  code: z.union([z.string(), z.number()]).optional(),
  stacktrace: z.string().optional(),
});

const wireWork = z.strictObject({
  type: z.enum(['task', 'workflow', 'wait', 'value', 'event']).optional(),
  name: name.optional(),
  input: z.unknown().optional(),
  position: z.union([z.string().min(1).max(200), z.number().int().nonnegative()]),
  sync: z.boolean().optional(),
  timeout: z.number().nonnegative().nullable().optional(),
  event: z.string().min(1).nullable().optional(),
  until: z.number().nullable().optional(),
  to: z.string().min(1).nullable().optional(),
});

const executeBody = z.array(wireWork).min(1);

const endBranchBody = z.strictObject({
  properties: z.record(z.string(), z.unknown()),
  output: z.unknown().optional(),
  parked: z.boolean().optional(),
  error: wireError.optional(),
});

const taskResultBody = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('completed'), output: z.unknown().optional() }),
  z.strictObject({ status: z.literal('failed'), error: wireError }),
]);

const registrationBody = z.strictObject({
  workflows: registeredNames.optional(),
  tasks: registeredNames.optional(),
});

/** A work as an agent sends it in `POST /decisions/{uuid}/execute`. */
export type WireWork = z.infer<typeof wireWork>;

/** The end of a branch run, as the session takes it. */
export interface WireEndBranch {
  properties: JsonObject;
  output?: Json;
  parked?: boolean;
  error?: ErrorRecord;
}

/** A task's result. */
export type WireTaskResult =
  | { status: 'completed'; output: Json }
  | { status: 'failed'; error: ErrorRecord };

/** Workflows and tasks an agent can run. */
export interface WireRegistration {
  workflows: string[];
  tasks: string[];
}

function parse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  if (value === undefined) throw new ValidationError('is missing', where);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.length ? `/${issue.path.map(String).join('/')}` : '';
  const missing =
    issue !== undefined &&
    issue.code !== 'unrecognized_keys' &&
    valueAt(value, issue.path) === undefined;
  const message = missing ? 'is required' : (issue?.message ?? 'is not valid');
  throw new ValidationError(message, `${where}${path}`);
}

/** The value at a zod issue's path in the parsed body (undefined when absent). */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function errorRecord(error: z.infer<typeof wireError>): ErrorRecord {
  const record: ErrorRecord = { name: error.name, message: error.message };
  if (error.code !== undefined) record.code = String(error.code);
  if (error.stacktrace !== undefined) record.stack = error.stacktrace;
  return record;
}

const VALUE_KINDS = new Set(['date', 'random', 'uuid', 'version']);

/** Maps one wire work onto the session's work request (`at`: where it is, for errors). */
function toWorkRequest(work: WireWork, at: string): WorkRequest {
  const type = work.type ?? 'task';
  const position = String(work.position);
  const input = (work.input ?? null) as Json;
  const needName = () => {
    if (work.name === undefined) throw new ValidationError(`a ${type} work needs a name`, at);
    return work.name;
  };
  const refuse = (field: string) => {
    throw new ValidationError(`a ${type} work takes no ${field}`, at);
  };
  if (type !== 'wait' && (work.event != null || work.until != null)) {
    refuse(work.event != null ? 'event' : 'until');
  }
  if (type !== 'event' && work.to != null) refuse('to');
  switch (type) {
    case 'task':
    case 'workflow':
      return {
        type,
        name: needName(),
        input,
        position,
        sync: work.sync ?? true,
        ...(work.timeout != null && type === 'task' ? { timeoutMs: work.timeout } : {}),
      };
    case 'wait': {
      if (work.input != null) refuse('input (use event, timeout and until)');
      const wait: Record<string, Json> = {};
      if (work.event != null) wait.event = work.event;
      if (work.timeout != null) wait.durationMs = work.timeout;
      if (work.until != null) wait.until = work.until;
      if (Object.keys(wait).length === 0) {
        throw new ValidationError('a wait work needs an event, a timeout or an until', at);
      }
      return { type, name: work.name ?? 'wait', input: wait, position, sync: work.sync ?? true };
    }
    case 'event':
      if (work.timeout != null) refuse('timeout');
      return {
        type,
        name: needName(),
        input: { to: work.to ?? null, data: input },
        position,
        sync: work.sync ?? false,
      };
    case 'value': {
      const kind = needName();
      if (!VALUE_KINDS.has(kind)) {
        throw new ValidationError(
          `a value work is named date, random, uuid or version, not ${JSON.stringify(kind)}`,
          at,
        );
      }
      if (work.timeout != null) refuse('timeout');
      return { type, name: kind, input, position, sync: work.sync ?? false };
    }
  }
}

/** The body of `POST /decisions/{uuid}/execute`, as work requests. */
export function parseExecuteBody(body: unknown): WorkRequest[] {
  const works = parse(executeBody, body, 'body');
  const positions = new Set<string>();
  return works.map((work, i) => {
    const request = toWorkRequest(work, `body/${i}`);
    if (positions.has(request.position)) {
      throw new ValidationError(`position ${request.position} appears twice`, `body/${i}`);
    }
    positions.add(request.position);
    return request;
  });
}

/** The body of `POST /decisions/{uuid}/branch`. */
export function parseEndBranchBody(body: unknown): WireEndBranch {
  const end = parse(endBranchBody, body, 'body');
  if (end.parked && (end.output !== undefined || end.error !== undefined)) {
    throw new ValidationError(
      'a parked branch has neither output nor error (it has not ended)',
      'body/parked',
    );
  }
  return {
    properties: end.properties as JsonObject,
    ...(end.output !== undefined ? { output: end.output as Json } : {}),
    ...(end.parked !== undefined ? { parked: end.parked } : {}),
    ...(end.error ? { error: errorRecord(end.error) } : {}),
  };
}

/** The body of `POST /tasks/{uuid}`. */
export function parseTaskResult(body: unknown): WireTaskResult {
  const result = parse(taskResultBody, body, 'body');
  return result.status === 'completed'
    ? { status: 'completed', output: (result.output ?? null) as Json }
    : { status: 'failed', error: errorRecord(result.error) };
}

/** The body of `POST /agents`. */
export function parseRegistration(body: unknown): WireRegistration {
  const registration = parse(registrationBody, body ?? {}, 'body');
  return { workflows: registration.workflows ?? [], tasks: registration.tasks ?? [] };
}

/** The body of `POST /tasks/{uuid}/heartbeat`: none, or an empty object. */
export function parseHeartbeat(body: unknown): void {
  if (body !== undefined) parse(z.strictObject({}), body, 'body');
}

/** A comma-separated name list from a query parameter (`workflows=a,b`). */
export function parseNameList(value: string | null, where: string): string[] | undefined {
  if (value === null) return undefined;
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  return parse(registeredNames, names, where);
}

/** The `wait` query parameter of the job endpoint: whole milliseconds, at most `max`. */
export function parseWaitMs(value: string | null, max: number): number {
  if (value === null || value === '') return 0;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) {
    throw new ValidationError(
      `must be a whole number of milliseconds, got ${JSON.stringify(value)}`,
      'query wait',
    );
  }
  return Math.min(ms, max);
}
