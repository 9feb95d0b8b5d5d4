/**
 * The agent protocol over HTTP (node:http, no framework): workers in any language claim
 * decisions and tasks of code-first workflows from one store and report back, as the
 * seed's Agent does. See docs/agent-protocol.md for every endpoint.
 *
 * | route | what |
 * |---|---|
 * | `GET /job`, `GET /env/{envId}/lang/{lang}/job` | the next decision or task (`?wait=ms`, `?workflows=a,b`, `?tasks=x,y`) |
 * | `POST /agents`, `GET /agents` | register / list the workflows and tasks agents run |
 * | `GET`/`POST /decisions/{uuid}/branch` | next branch / a branch's end |
 * | `POST /decisions/{uuid}/execute` | works met by the running branch |
 * | `POST /tasks/{uuid}`, `POST /tasks/{uuid}/heartbeat` | a task's result / keep its lease |
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { type Clock, SystemClock } from '../core/clock.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { DurableEngine } from '../durable/durable-engine.js';
import { settlingExpressions } from '../engine/expression-plan.js';
import { GraphEngine } from '../engine/graph-engine.js';
import { Models } from '../models/models.js';
import { presenceWindowMs } from '../models/served-work.js';
import type { Store } from '../store/store.js';
import { logJobEnd, reportingJobEnds } from '../worker/job-ends.js';
import { Presence } from '../worker/presence.js';
import { tracingStore } from '../worker/tracing-store.js';
import { stderrLogger, type WorkerLogger } from '../worker/worker-options.js';
import { AgentRegistry } from './agent-registry.js';
import {
  parseEndBranchBody,
  parseExecuteBody,
  parseHeartbeat,
  parseNameList,
  parseRegistration,
  parseTaskResult,
  parseWaitMs,
} from './agent-wire.js';
import { DecisionDesk } from './decision-desk.js';
import { errorAnswer, METHOD_NOT_ALLOWED, newRequestId } from './http-api/api-errors.js';
import { checkJsonType, checkOrigin } from './http-api/same-origin.js';
import { checkListenHost, checkToken, checkTokenText } from './http-api/token.js';
import { letGoOfBody, readJsonBody, sendJson } from './http-json.js';
import { JobDispatcher } from './job-dispatcher.js';
import { TaskDesk } from './task-desk.js';

/** Options of an {@link AgentServer}. */
export interface AgentServerOptions {
  store: Store;
  /** Code-first workflows whose decisions agents run (registered at start). */
  workflows?: readonly string[];
  /** Tasks agents run (registered at start). */
  tasks?: readonly string[];
  /** Lease on a handed-out decision or task, in ms (default 60000). */
  leaseMs?: number;
  /** Deliveries of a task before it is dead-lettered (default 10). */
  maxDeliveries?: number;
  /** Longest `?wait=` a job request may ask for, in ms (default 60000). */
  maxWaitMs?: number;
  /** Largest request body, in bytes (default 16 MiB). */
  maxBodyBytes?: number;
  /**
   * When set, every request needs `Authorization: Bearer <token>`, and the server may
   * listen beyond loopback; without one it listens on loopback only and answers only a
   * loopback `Host`.
   */
  token?: string;
  /** The consumer name of this server's claims (default `serve:host:pid:random`). */
  consumer?: string;
  clock?: Clock;
  logger?: WorkerLogger;
}

/** Where a started server listens. */
export interface AgentServerAddress {
  host: string;
  port: number;
  /** `http://host:port`. */
  url: string;
}

type Params = Record<string, string>;
interface Request {
  params: Params;
  query: URLSearchParams;
  body: () => Promise<unknown>;
  signal: AbortSignal;
}
type Handler = (request: Request) => Promise<unknown>;
interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  keys: string[];
  handler: Handler;
  /**
   * Whether it claims, registers or records (every route but `GET /agents`): such a
   * request must say `Content-Type: application/json`, which a page on another origin
   * cannot send without a CORS preflight (never granted).
   */
  acts: boolean;
}

function route(method: Route['method'], path: string, handler: Handler, acts = true): Route {
  const keys: string[] = [];
  const source = path.replace(/\{(\w+)\}/g, (_, key: string) => {
    keys.push(key);
    return '([^/]+)';
  });
  return { method, pattern: new RegExp(`^${source}$`), keys, handler, acts };
}

/** The agent protocol's HTTP server over one store. */
export class AgentServer {
  readonly registry: AgentRegistry;
  readonly decisions: DecisionDesk;
  readonly tasks: TaskDesk;
  readonly consumer: string;
  private readonly dispatcher: JobDispatcher;
  private readonly routes: Route[];
  private readonly http: Server;
  private readonly closing = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly maxWaitMs: number;
  private readonly maxBodyBytes: number;
  private readonly logger: WorkerLogger;
  /** The server's row in the store's workers: the tasks and workflows its agents registered. */
  private readonly presence: Presence;
  private readonly token: string | undefined;

  constructor(private readonly options: AgentServerOptions) {
    const clock = options.clock ?? new SystemClock();
    this.consumer =
      options.consumer ?? `serve:${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const logger = options.logger ?? stderrLogger;
    const settings = {
      // Its transactions report the jobs agents' results end, which the server logs.
      // Its transactions evaluate costly expressions outside themselves (expression-plan.ts).
      // With an OpenTelemetry SDK registered, they record weft's spans (tracing-store.ts).
      store: tracingStore(
        settlingExpressions(reportingJobEnds(options.store, (job) => logJobEnd(logger, job))),
        () => clock.now(),
      ),
      logger,
      consumer: this.consumer,
      leaseMs: options.leaseMs ?? 60_000,
      maxDeliveries: options.maxDeliveries ?? 10,
      clock,
      models: new Models({
        graph: new GraphEngine({ clock, worker: this.consumer }),
        durable: new DurableEngine({ clock, worker: this.consumer }),
      }),
      remember: 10_000,
    };
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
    this.token = options.token === '' ? undefined : options.token;
    if (this.token !== undefined) checkTokenText(this.token, 'token');
    this.logger = logger;
    this.registry = new AgentRegistry(options.store);
    this.decisions = new DecisionDesk(settings);
    this.tasks = new TaskDesk(settings);
    this.dispatcher = new JobDispatcher(this.registry, this.decisions, this.tasks, 1000);
    this.routes = this.buildRoutes();
    this.presence = new Presence({
      store: options.store,
      id: this.consumer,
      serves: () => ({
        tasks: this.registry.tasks,
        streams: [],
        workflows: this.registry.workflows,
      }),
      windowMs: presenceWindowMs(),
      clock,
      logger,
      watch: false,
    });
    this.http = createServer((req, res) => {
      const handled = this.serve(req, res);
      this.inFlight.add(handled);
      void handled.finally(() => this.inFlight.delete(handled));
    });
  }

  private buildRoutes(): Route[] {
    const job: Handler = async ({ query, signal }) => {
      const workflows = parseNameList(query.get('workflows'), 'query workflows');
      const tasks = parseNameList(query.get('tasks'), 'query tasks');
      const waitMs = parseWaitMs(query.get('wait'), this.maxWaitMs);
      const filter = { ...(workflows ? { workflows } : {}), ...(tasks ? { tasks } : {}) };
      await this.registry.register(filter);
      return this.dispatcher.next(filter, waitMs, signal);
    };
    const agents = () => ({ workflows: this.registry.workflows, tasks: this.registry.tasks });
    return [
      route('GET', '/job', job),
      route('GET', '/env/{envId}/lang/{lang}/job', job),
      route('GET', '/agents', async () => agents(), false),
      route('POST', '/agents', async ({ body }) => {
        await this.registry.register(parseRegistration(await body()));
        return agents();
      }),
      route('GET', '/decisions/{uuid}/branch', ({ params }) =>
        this.decisions.branch(params.uuid as string),
      ),
      route('POST', '/decisions/{uuid}/branch', async ({ params, body }) =>
        this.decisions.endBranch(params.uuid as string, parseEndBranchBody(await body())),
      ),
      route('POST', '/decisions/{uuid}/execute', async ({ params, body }) =>
        this.decisions.execute(params.uuid as string, parseExecuteBody(await body())),
      ),
      route('POST', '/tasks/{uuid}', async ({ params, body }) =>
        this.tasks.report(params.uuid as string, parseTaskResult(await body())),
      ),
      route('POST', '/tasks/{uuid}/heartbeat', async ({ params, body }) => {
        parseHeartbeat(await body());
        return this.tasks.heartbeat(params.uuid as string);
      }),
    ];
  }

  /**
   * Registers the configured workflows and tasks, then listens (port 0: any free port).
   * A host beyond loopback without a token is refused (ValidationError TOKEN_REQUIRED).
   */
  async listen(port = 4001, host = '127.0.0.1'): Promise<AgentServerAddress> {
    checkListenHost(host, this.token, 'WEFT_SERVE_TOKEN');
    await this.registry.register({
      workflows: this.options.workflows ?? [],
      tasks: this.options.tasks ?? [],
    });
    await this.presence.start();
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(port, host, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    const address = this.http.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return { host: address.address, port: address.port, url: `http://${shown}:${address.port}` };
  }

  /** Stops listening: waiting job requests answer None, requests in flight finish. */
  async close(): Promise<void> {
    this.closing.abort();
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.http.closeIdleConnections();
    await Promise.allSettled([...this.inFlight]);
    this.http.closeAllConnections();
    await closed;
    await this.presence.stop();
    await this.registry.close();
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newRequestId();
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    let path = '/';
    try {
      const url = new URL(req.url ?? '/', 'http://agent');
      path = url.pathname;
      // The token first: a caller without it learns nothing else about the request.
      checkToken(req.headers.authorization, this.token);
      checkOrigin({ host: req.headers.host, origin: req.headers.origin }, this.token !== undefined);
      const { route, params } = this.match(req.method ?? 'GET', url.pathname);
      if (route.acts) checkJsonType(req.headers['content-type']);
      let read: Promise<unknown> | undefined;
      const answer = await route.handler({
        params,
        query: url.searchParams,
        body: () => {
          read ??= readJsonBody(req, this.maxBodyBytes);
          return read;
        },
        signal: AbortSignal.any([gone.signal, this.closing.signal]),
      });
      letGoOfBody(req);
      sendJson(res, 200, answer, { 'x-request-id': requestId });
    } catch (error) {
      const { status, body, headers } = errorAnswer(error, {
        requestId,
        method: req.method ?? 'GET',
        path,
        logger: this.logger,
      });
      // A body refused unread (or past the limit) is not read to its end.
      letGoOfBody(req);
      if (!res.headersSent) sendJson(res, status, body, { 'x-request-id': requestId, ...headers });
      else res.destroy();
    }
  }

  private match(method: string, path: string): { route: Route; params: Params } {
    let allowed = false;
    for (const r of this.routes) {
      const found = r.pattern.exec(path);
      if (!found) continue;
      if (r.method !== method) {
        allowed = true;
        continue;
      }
      const params: Params = {};
      r.keys.forEach((key, i) => {
        params[key] = decodeSegment(found[i + 1] as string, key);
      });
      return { route: r, params };
    }
    if (allowed) {
      throw new ValidationError(`${method} is not allowed here`, path, {
        code: METHOD_NOT_ALLOWED,
      });
    }
    throw new NotFoundError('route', `${method} ${path}`);
  }
}

function decodeSegment(segment: string, key: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ValidationError('is not a valid percent-encoded path segment', `path ${key}`);
  }
}
