/**
 * Typed errors. Every error weft throws on purpose is a subclass of {@link WeftError}
 * with a stable `name` and a `code` callers can branch on, plus the fields that say
 * what went wrong and where.
 */

/** Base class of every error weft throws on purpose. */
export class WeftError extends Error {
  /** Stable machine-readable code, e.g. `INVALID_STATE`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  /** A plain JSON form for `--json` output and the HTTP API. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {
      name: this.name,
      code: this.code,
      message: this.message,
    };
    for (const [key, value] of Object.entries(this)) {
      if (key !== 'code' && key !== 'cause' && value !== undefined) out[key] = value;
    }
    return out;
  }
}

/** An illegal move on one of the core state machines (or a collation digit). */
export class InvalidStateError extends WeftError {
  constructor(
    /** Which machine or object, e.g. `flow`, `task`, `collation:fox`. */
    readonly machine: string,
    readonly from: string,
    readonly to: string,
    detail?: string,
  ) {
    super(
      'INVALID_STATE',
      `invalid ${machine} transition ${from} -> ${to}${detail ? `: ${detail}` : ''}`,
    );
  }
}

/** A counter (semaphore thread counter, cycle count…) would pass its limit. */
export class CounterOverflowError extends WeftError {
  constructor(
    readonly counter: string,
    readonly limit: number,
  ) {
    super('COUNTER_OVERFLOW', `${counter} would exceed its limit of ${limit}`);
  }
}

/** Input that fails validation: a workflow file, a job input, a signal payload, a URL. */
export class ValidationError extends WeftError {
  constructor(
    message: string,
    /** Where: a file path, a `file:line`, a JSON pointer, an activity id. */
    readonly where?: string,
    options?: { cause?: unknown; code?: string },
  ) {
    super(options?.code ?? 'VALIDATION', where ? `${where}: ${message}` : message, options);
  }
}

/** A thing looked up by id does not exist. */
export class NotFoundError extends WeftError {
  constructor(
    readonly kind: string,
    readonly id: string,
  ) {
    super('NOT_FOUND', `${kind} ${JSON.stringify(id)} not found`);
  }
}

/** A store URL, connection or schema problem. */
export class StoreError extends WeftError {
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(options?.code ?? 'STORE', message, options);
  }
}

/** A code-first workflow's code no longer matches its recorded history. */
export class ModifiedDeciderError extends WeftError {
  constructor(
    readonly branchKey: number,
    readonly position: string,
    readonly expectedHash: string,
    readonly actualHash: string,
  ) {
    super(
      'MODIFIED_DECIDER',
      `workflow code was modified: branch ${branchKey} position ${position} had hash ${expectedHash}, now ${actualHash}`,
    );
  }
}

/** A graph became unable to finish (crossflow's Unreachability). */
export class UnreachableError extends WeftError {
  constructor(
    message: string,
    readonly activity?: string,
  ) {
    super('UNREACHABLE', message);
  }
}

/** A timeout elapsed (task, hook, result wait). */
export class TimeoutError extends WeftError {
  constructor(
    message: string,
    /**
     * Which of a task's timeouts: `start_to_close` (one attempt ran too long),
     * `schedule_to_close` (all attempts together), `heartbeat` (the handler stopped
     * calling `ctx.heartbeat()`). Absent for other timeouts.
     */
    readonly timeout?: 'start_to_close' | 'schedule_to_close' | 'heartbeat',
    options?: { code?: string },
  ) {
    super(options?.code ?? 'TIMEOUT', message);
  }
}

/**
 * A job ran past its execution timeout (`timeout:` on a graph workflow, `timeoutMs` on a
 * code-first one or on `Client.start`) and was ended in FAILURE; or, with `parent`, it
 * was ended because the parent job that started it ran past its own.
 */
export class JobTimeoutError extends TimeoutError {
  constructor(
    /** The job that was ended. */
    readonly job: string,
    /** The limit that passed, in ms. */
    readonly timeoutMs: number,
    /** When it passed: the deadline, as an ISO time. */
    readonly deadline: string,
    /** The job whose deadline it was, when it was an ancestor's (this job was its child). */
    readonly parent?: string,
  ) {
    super(
      parent === undefined
        ? `job ${job} timed out: it did not end within its ${timeoutMs} ms limit (deadline ${deadline})`
        : `job ${job} was ended: job ${parent}, which started it, timed out after its ${timeoutMs} ms limit (deadline ${deadline})`,
      undefined,
      { code: 'JOB_TIMEOUT' },
    );
  }
}

/**
 * Thrown by a task handler to end its task's retries at once: the attempt fails and no
 * other runs, whatever attempts the retry policy has left. Subclasses keep the effect
 * (the code stays `NON_RETRYABLE` whatever the name).
 */
export class NonRetryableError extends WeftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('NON_RETRYABLE', message, options);
  }
}

/** Turns anything thrown into a plain, JSON-safe error record. */
export function toErrorRecord(error: unknown): {
  name: string;
  message: string;
  code?: string;
  stack?: string;
} {
  if (error instanceof WeftError) {
    return { name: error.name, message: error.message, code: error.code };
  }
  if (error instanceof Error) {
    return { name: error.name, message: error.message, stack: error.stack };
  }
  return { name: 'Error', message: String(error) };
}

/** A consumer tried to ack or extend a message it no longer holds (its lease ran out). */
export class LeaseLostError extends WeftError {
  constructor(
    readonly stream: string,
    readonly messageId: string,
    readonly consumer: string,
  ) {
    super(
      'LEASE_LOST',
      `message ${messageId} on stream ${stream} is no longer held by ${consumer}: its lease ended and another consumer may hold it`,
    );
  }
}

/** A workflow version was stored again with a different definition. */
export class DefinitionConflictError extends WeftError {
  constructor(
    readonly workflow: string,
    readonly version: number,
  ) {
    super(
      'DEFINITION_CONFLICT',
      `workflow ${JSON.stringify(workflow)} version ${version} is already stored with a different definition; publish it as a new version`,
    );
  }
}

/** One problem found in a workflow definition, located as precisely as the input allows. */
export interface DefinitionProblem {
  /** What is wrong, in one sentence. */
  message: string;
  /** The source name the caller gave (a file path), when there is one. */
  file?: string;
  /** 1-based line in the source text, when the definition came from text. */
  line?: number;
  /** 1-based column in the source text, when the definition came from text. */
  column?: number;
  /** The activity the problem belongs to, when there is one. */
  activity?: string;
  /** Where in the document, dotted: `activities.charge.retry.backoff`, `transitions.charge.1`. */
  path?: string;
}

/** Renders one {@link DefinitionProblem} as `file:line:col: activity "x": path: message`. */
export function formatDefinitionProblem(problem: DefinitionProblem): string {
  let where = problem.file ?? '';
  if (problem.line !== undefined) {
    where += `${where ? ':' : 'line '}${problem.line}`;
    if (problem.column !== undefined) where += `:${problem.column}`;
  }
  const parts = [where, problem.activity && `activity ${JSON.stringify(problem.activity)}`];
  if (problem.path) parts.push(problem.path);
  return [...parts.filter(Boolean), problem.message].join(': ');
}

/** A workflow definition (YAML, JSON or builder) was rejected; `problems` lists every one found. */
export class WorkflowDefinitionError extends ValidationError {
  constructor(
    readonly problems: DefinitionProblem[],
    /** The source name, when the caller gave one. */
    readonly source?: string,
  ) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    const lines = problems.map((p) => `  ${formatDefinitionProblem(p)}`);
    super(`${count} in the workflow definition\n${lines.join('\n')}`, source, {
      code: 'WORKFLOW_DEFINITION',
    });
  }
}

/** A JSONata expression failed to parse or to evaluate. */
export class ExpressionError extends WeftError {
  constructor(
    /** The expression's source text. */
    readonly expression: string,
    /** What it belongs to, e.g. `transition charge -> ship (when)`. */
    readonly where: string | undefined,
    /** The JSONata error message. */
    readonly detail: string,
    /** JSONata's error code, e.g. `S0203`, `T2001`. */
    readonly jsonataCode?: string,
    /** 0-based character offset in the expression, when JSONata gives one. */
    readonly position?: number,
    options?: { cause?: unknown; code?: string },
  ) {
    const at = position !== undefined ? ` at position ${position}` : '';
    super(
      options?.code ?? 'EXPRESSION',
      `${where ? `${where}: ` : ''}expression ${JSON.stringify(expression)} failed${at}: ${detail}`,
      options,
    );
  }
}

/** Which hard limit stopped an expression: its running time, its heap, its result's size. */
export type ExpressionLimit = 'time' | 'memory' | 'size';

const LIMIT_DETAIL: Record<ExpressionLimit, (value: number) => string> = {
  time: (ms) => `stopped at its time limit of ${ms} ms`,
  memory: (mb) => `stopped at its memory limit of ${mb} MB`,
  size: (mb) => `its result is larger than the limit of ${mb} MB`,
};

/**
 * An expression that was stopped by one of its hard limits (see docs/workflows.md,
 * "Expression limits"). Deterministic as far as weft is concerned: the activity the
 * expression belongs to fails with it, and nothing is delivered again.
 */
export class ExpressionLimitError extends ExpressionError {
  constructor(
    expression: string,
    where: string | undefined,
    /** The limit it reached. */
    readonly limit: ExpressionLimit,
    /** That limit's value: milliseconds for `time`, megabytes for `memory` and `size`. */
    readonly value: number,
  ) {
    super(expression, where, LIMIT_DETAIL[limit](value), undefined, undefined, {
      code: 'EXPRESSION_LIMIT',
    });
  }
}

/** An expression a plan needs that must be evaluated outside the transaction (see below). */
export interface PendingExpression {
  /** The memo key of its source and data. */
  key: string;
  source: string;
  where?: string | undefined;
  /** What it is evaluated over (plain JSON). */
  data: unknown;
  /** What `$now()` and `$millis()` read, epoch ms. */
  now: number;
}

/**
 * A plan reached expressions that are not provably cheap: the transaction rolls back,
 * they are evaluated outside it (in the expression sandbox, under its hard limits), and
 * the transaction runs again with their results (engine/settling-transaction.ts). It
 * never reaches a caller of weft's own paths.
 */
export class ExpressionsPendingError extends WeftError {
  constructor(readonly requests: readonly PendingExpression[]) {
    super(
      'EXPRESSION_PENDING',
      `${requests.length} expression${requests.length === 1 ? '' : 's'} to evaluate outside the transaction`,
    );
  }
}

/**
 * The expression sandbox could not evaluate, for a reason that is not the expression's
 * (its process failed to start, or died of something other than a limit). Not the
 * activity's failure: the step is given back and runs again.
 */
export class ExpressionHostError extends WeftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('EXPRESSION_HOST', message, options);
  }
}

/** A work a code-first workflow waited for (task, child workflow) failed. */
export class TaskFailedError extends WeftError {
  constructor(
    /** `task` or `workflow`. */
    readonly workType: string,
    /** The task's or child workflow's name. */
    readonly workName: string,
    /** The failure as the worker reported it. */
    readonly failure: { name: string; message: string; code?: string },
  ) {
    super('TASK_FAILED', `${workType} ${workName} failed: ${failure.name}: ${failure.message}`);
  }
}

/** Code-first workflow code did something replay cannot reproduce (e.g. awaited I/O). */
export class NonDeterminismError extends WeftError {
  constructor(
    message: string,
    /** The branch whose run misbehaved. */
    readonly branchKey?: number,
  ) {
    super('NON_DETERMINISM', message);
  }
}

/**
 * An HTTP agent used a decision that is no longer the instance's decision in flight: its
 * lease ran out and it was handed out again under another uuid, or the instance moved on
 * (terminated, ended).
 */
export class StaleDecisionError extends WeftError {
  constructor(
    /** The decision's uuid as the agent knows it. */
    readonly uuid: string,
    /** Why it is stale. */
    readonly reason: string,
  ) {
    super('STALE_DECISION', `decision ${uuid} is stale: ${reason}`);
  }
}

/**
 * A message failed every delivery it was allowed (`maxDeliveries`) and was moved to the
 * dead letters, so the job it belongs to ended in FAILURE. Names the message and the
 * error it last failed with; `weft dead-letters requeue <messageId>` runs it again.
 */
export class DeadLetterError extends WeftError {
  constructor(
    /** The dead-lettered message's id (its dead letter has the same id). */
    readonly messageId: string,
    readonly stream: string,
    readonly deliveries: number,
    /** The error its last delivery failed with; null when none was recorded (its worker stopped). */
    readonly lastError: { name: string; message: string; code?: string } | null,
    /** The activity (or code-first work) the message was for, when it was for one. */
    readonly activity?: string,
  ) {
    const last = lastError
      ? `${lastError.name}: ${lastError.message}`
      : 'none recorded (the worker holding it stopped or lost it)';
    super(
      'DEAD_LETTER',
      `message ${messageId} on ${stream}${activity ? ` (activity ${activity})` : ''} was dead-lettered after ${deliveries} deliveries; last error: ${last}`,
    );
  }
}

/** A request to the HTTP API without the dashboard's token, or with a wrong one. */
export class UnauthorizedError extends WeftError {
  constructor(message = 'a valid token is required (Authorization: Bearer <token>)') {
    super('UNAUTHORIZED', message);
  }
}

/**
 * A request the thing it acts on cannot take in its present state: a signal to a job
 * that has ended, pausing a kind of job that cannot pause. Nothing changed.
 */
export class ConflictError extends WeftError {
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(options?.code ?? 'CONFLICT', message, options);
  }
}

/** A request to the HTTP API from somewhere it does not serve (another origin, a foreign Host). */
export class ForbiddenOriginError extends WeftError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

/** A request to an HTTP server that acts without declaring its body JSON. */
export class UnsupportedMediaTypeError extends WeftError {
  constructor(message = 'this request must have Content-Type: application/json') {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}
