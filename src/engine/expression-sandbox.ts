/**
 * The expression sandbox: evaluates JSONata expressions that are not provably cheap (and
 * checks job inputs against schemas that are not) in child processes with a hard time
 * and memory limit, so that no expression — one native call included, such as a
 * regular expression that backtracks for minutes — runs longer or grows larger than its
 * limit, and none can take the worker process down with it.
 *
 * Why processes and not worker threads: a worker thread's `resourceLimits` are
 * best-effort — one large allocation in the thread (`$sort([1..10000000])`) aborts the
 * whole process (nodejs/node#47224) — while a child process's heap is its own: V8 aborts
 * the child and the parent reads the end as the memory limit. A request that runs past
 * the time limit is ended by SIGKILL, which stops even a native call.
 *
 * Up to {@link SANDBOX_PROCESSES} children start on demand (a process that never
 * evaluates such an expression starts none), serve one request at a time, stay idle for
 * {@link IDLE_MS} and never hold their parent's process open. Requests wait in one queue.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ExpressionError,
  ExpressionHostError,
  ExpressionLimitError,
  ValidationError,
} from '../core/errors.js';
import type { Json } from '../graph/expressions.js';

/** The hard limits of one sandboxed evaluation (docs/workflows.md, "Expression limits"). */
export interface ExpressionLimits {
  /** Longest one evaluation may run, in ms, from the moment its process takes it. */
  timeMs: number;
  /** The child process's JavaScript heap, in MB (its data included). */
  memoryMb: number;
  /** Largest result, in MB of JSON text. */
  resultMb: number;
}

/** The limits weft evaluates with. */
export const EXPRESSION_LIMITS: Readonly<ExpressionLimits> = {
  timeMs: 5_000,
  memoryMb: 128,
  resultMb: 16,
};

/** How many child processes may evaluate at once. */
export const SANDBOX_PROCESSES = 2;
/** An idle child process exits after this long. */
const IDLE_MS = 60_000;
/** A child that has not started within this long is a failure of the sandbox. */
const START_MS = 30_000;

/** A request to a child process. */
export type HostRequest =
  | {
      id: number;
      kind: 'expression';
      source: string;
      data: unknown;
      now: number;
      timeMs: number;
      /** Largest result, in UTF-16 code units of JSON text. */
      resultLimit: number;
    }
  | {
      id: number;
      kind: 'input';
      workflow: string;
      version: number;
      schema: unknown;
      input: unknown;
      timeMs: number;
    };

/** Why a request failed, as a child reports it. */
export type HostFailure =
  | { kind: 'expression'; limit: 'time' | 'size' }
  | { kind: 'expression'; limit?: undefined; detail: string; code?: string; position?: number }
  | { kind: 'input'; message: string; code: string }
  | { kind: 'crash'; message: string };

/** A child's answer. */
export type HostReply =
  | { id: number; ok: true; value: Json }
  | { id: number; ok: false; failure: HostFailure };

/** A request before the sandbox numbers it and sets its time limit. */
type Outgoing = HostRequest extends infer R
  ? R extends HostRequest
    ? Omit<R, 'id' | 'timeMs'>
    : never
  : never;

interface Pending {
  request: HostRequest;
  resolve: (value: Json) => void;
  reject: (error: unknown) => void;
  /** Turns a limit or a failure into the caller's typed error. */
  fail: (failure: HostFailure | 'time' | 'memory') => Error;
}

interface Host {
  child: ChildProcess;
  ready: boolean;
  running: Pending | undefined;
  /** The last few KB the child wrote to stderr (V8's out-of-memory report). */
  stderr: string;
  timer: ReturnType<typeof setTimeout> | undefined;
  idle: ReturnType<typeof setTimeout> | undefined;
  /** The parent ended it (time limit, idle, close): its exit is not news. */
  ended: boolean;
}

/** The command line of a child: its entry, and tsx's loader when weft runs from sources. */
function hostCommand(memoryMb: number): { entry: string; execArgv: string[] } {
  const here = import.meta.url;
  const fromSources = here.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./expression-host.${fromSources ? 'ts' : 'js'}`, here));
  const execArgv = [`--max-old-space-size=${memoryMb}`];
  if (fromSources) {
    const loader = createRequire(here).resolve('tsx');
    execArgv.push('--import', pathToFileURL(loader).href);
  } else {
    // Nothing in the child builds code from strings; refuse it outright.
    execArgv.push('--disallow-code-generation-from-strings');
  }
  return { entry, execArgv };
}

/** Whether a child's IPC channel holds this process open (while it starts or works). */
function hold(host: Host, on: boolean): void {
  const channel = host.child.channel as { ref?: () => void; unref?: () => void } | null | undefined;
  if (on) channel?.ref?.();
  else channel?.unref?.();
}

/** Child processes that evaluate under hard limits, one request each at a time. */
export class ExpressionSandbox {
  private readonly hosts = new Set<Host>();
  private readonly queue: Pending[] = [];
  private nextId = 1;

  constructor(
    readonly limits: ExpressionLimits = EXPRESSION_LIMITS,
    private readonly processes = SANDBOX_PROCESSES,
  ) {}

  /**
   * Evaluates `source` over `data` with `$now()` at `now`. Rejects with an
   * {@link ExpressionError} (it failed), an {@link ExpressionLimitError} (a limit stopped
   * it) or an {@link ExpressionHostError} (the sandbox failed, not the expression).
   */
  evaluate(source: string, data: unknown, where: string | undefined, now: number): Promise<Json> {
    const { limits } = this;
    return this.submit(
      {
        kind: 'expression',
        source,
        data,
        now,
        resultLimit: limits.resultMb * 1024 * 1024,
      },
      (failure) => {
        if (failure === 'time' || failure === 'memory') {
          return new ExpressionLimitError(
            source,
            where,
            failure,
            failure === 'time' ? limits.timeMs : limits.memoryMb,
          );
        }
        if (failure.kind === 'expression') {
          if (failure.limit !== undefined) {
            const value = failure.limit === 'time' ? limits.timeMs : limits.resultMb;
            return new ExpressionLimitError(source, where, failure.limit, value);
          }
          return new ExpressionError(source, where, failure.detail, failure.code, failure.position);
        }
        return new ExpressionHostError(
          `the expression sandbox failed on ${JSON.stringify(source)}: ${'message' in failure ? failure.message : 'no answer'}`,
        );
      },
    );
  }

  /**
   * Checks `input` against a workflow's input `schema`; rejects with a ValidationError
   * (`INVALID_JOB_INPUT` when it does not match, `INPUT_CHECK_LIMIT` when the check
   * reached a limit) or an {@link ExpressionHostError}.
   */
  async checkInput(workflow: string, version: number, schema: unknown, input: unknown) {
    const { limits } = this;
    await this.submit({ kind: 'input', workflow, version, schema, input }, (failure) => {
      if (failure === 'time' || failure === 'memory') {
        const limit =
          failure === 'time'
            ? `time limit of ${limits.timeMs} ms`
            : `memory limit of ${limits.memoryMb} MB`;
        return new ValidationError(
          `checking the job input against the input schema of workflow ${workflow}@${version} was stopped at its ${limit} (a pattern or format that backtracks on this input?)`,
          'input',
          { code: 'INPUT_CHECK_LIMIT' },
        );
      }
      if (failure.kind === 'input') {
        const prefix = /^(input[^:]*): /.exec(failure.message);
        return new ValidationError(
          prefix ? failure.message.slice(prefix[0].length) : failure.message,
          prefix ? prefix[1] : 'input',
          { code: failure.code },
        );
      }
      return new ExpressionHostError(
        `the expression sandbox failed checking an input of ${workflow}@${version}: ${'message' in failure ? failure.message : 'no answer'}`,
      );
    });
  }

  /** How many requests are queued or running now. */
  get active(): number {
    return this.queue.length + [...this.hosts].filter((h) => h.running).length;
  }

  /** Ends every child process; requests still queued or running fail with a host error. */
  close(): void {
    for (const pending of this.queue.splice(0)) {
      pending.reject(new ExpressionHostError('the expression sandbox was closed'));
    }
    for (const host of [...this.hosts])
      this.end(host, new ExpressionHostError('the expression sandbox was closed'));
  }

  private submit(request: Outgoing, fail: Pending['fail']): Promise<Json> {
    return new Promise<Json>((resolve, reject) => {
      const full = { ...request, id: this.nextId++, timeMs: this.limits.timeMs } as HostRequest;
      this.queue.push({ request: full, resolve, reject, fail });
      this.dispatch();
    });
  }

  /** Hands queued requests to ready, free children, starting children while there is room. */
  private dispatch(): void {
    for (const host of this.hosts) {
      if (this.queue.length === 0) return;
      if (host.ready && !host.running) this.run(host, this.queue.shift() as Pending);
    }
    const starting = [...this.hosts].filter((h) => !h.ready).length;
    while (this.hosts.size < this.processes && this.queue.length > starting) this.start();
  }

  private start(): void {
    const { entry, execArgv } = hostCommand(this.limits.memoryMb);
    if (!existsSync(entry)) {
      // Not a child that may start next time: every request waiting fails now.
      this.failQueued(
        new ExpressionHostError(
          `the expression sandbox cannot start: ${entry} is missing (weft's files must stay together; a bundler must leave weft-engine external)`,
        ),
      );
      return;
    }
    const child = fork(entry, [], {
      execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const host: Host = {
      child,
      ready: false,
      running: undefined,
      stderr: '',
      timer: undefined,
      idle: undefined,
      ended: false,
    };
    this.hosts.add(host);
    // An idle child holds this process open by nothing; one starting or running a request
    // holds it by its channel (see hold), so a caller awaiting an answer is not left behind.
    child.unref();
    (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      host.stderr = (host.stderr + chunk).slice(-4096);
    });
    const startTimer = setTimeout(() => {
      if (!host.ready)
        this.end(host, new ExpressionHostError('the expression sandbox did not start'));
    }, START_MS);
    startTimer.unref();
    child.on('message', (message: HostReply | { ready: true }) => {
      if ('ready' in message) {
        clearTimeout(startTimer);
        host.ready = true;
        this.dispatch();
        if (!host.running) this.idleLater(host);
        return;
      }
      this.settle(host, message);
    });
    child.on('error', (error) => {
      clearTimeout(startTimer);
      this.end(
        host,
        new ExpressionHostError(`the expression sandbox failed: ${error.message}`, {
          cause: error,
        }),
      );
    });
    // `close`, not `exit`: V8's out-of-memory report on stderr has been read by then.
    child.on('close', (code, signal) => {
      clearTimeout(startTimer);
      if (host.ended) return;
      const pending = host.running;
      const outOfMemory = /heap out of memory|Allocation failed/i.test(host.stderr);
      this.end(
        host,
        pending && outOfMemory
          ? pending.fail('memory')
          : new ExpressionHostError(
              `the expression sandbox exited (${signal ?? `code ${code}`})${host.stderr ? `: ${host.stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`,
            ),
      );
    });
  }

  private run(host: Host, pending: Pending): void {
    if (host.idle) clearTimeout(host.idle);
    hold(host, true);
    host.running = pending;
    host.timer = setTimeout(() => this.end(host, pending.fail('time')), this.limits.timeMs);
    host.child.send(pending.request, (error) => {
      if (error)
        this.end(
          host,
          new ExpressionHostError(`could not reach the expression sandbox: ${error.message}`, {
            cause: error,
          }),
        );
    });
  }

  private settle(host: Host, reply: HostReply): void {
    const pending = host.running;
    if (!pending || pending.request.id !== reply.id) return;
    clearTimeout(host.timer);
    host.running = undefined;
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(pending.fail(reply.failure));
    this.idleLater(host);
    this.dispatch();
  }

  private idleLater(host: Host): void {
    hold(host, false);
    if (host.idle) clearTimeout(host.idle);
    host.idle = setTimeout(() => {
      if (!host.running) this.end(host);
    }, IDLE_MS);
    host.idle.unref();
  }

  /** Fails every queued request with `error`. */
  private failQueued(error: Error): void {
    for (const pending of this.queue.splice(0)) pending.reject(error);
  }

  /**
   * Ends a child; the request it was running fails with `error`; the queue moves on. A
   * child that failed before it was ready fails the queued requests too (they would
   * only start another that fails the same way, again and again).
   */
  private end(host: Host, error?: Error): void {
    if (!this.hosts.delete(host)) return;
    host.ended = true;
    if (!host.ready && error) this.failQueued(error);
    clearTimeout(host.timer);
    if (host.idle) clearTimeout(host.idle);
    const pending = host.running;
    host.running = undefined;
    host.child.kill('SIGKILL');
    if (pending) pending.reject(error ?? new ExpressionHostError('the expression sandbox ended'));
    this.dispatch();
  }
}

let shared: ExpressionSandbox | undefined;

/** The process's sandbox, shared by every engine, client and worker in it. */
export function sharedSandbox(): ExpressionSandbox {
  shared ??= new ExpressionSandbox();
  return shared;
}
