/**
 * A plain HTTP client playing a non-TypeScript agent: nothing from weft, only fetch and
 * hand-written decision logic for one small workflow, `sum`:
 *
 *     handle(a, b):
 *       [x, y] = execute(double(a), square(b))   # in parallel
 *       phase = 'adding'
 *       z = execute(add([x, y]))
 *       phase = 'done'
 *       return z
 *     onSuccess(work): completed += 1
 *
 * It follows the seed's Scripts rules: a branch leaves at the first `execute` that is not
 * complete and posts its properties; the server infers that the branch parked.
 */

/** An HTTP answer: status and parsed JSON body. */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked by the tests
  body: any;
}

/** The workflow's tasks, as the agent runs them. */
export const TASKS: Record<string, (input: unknown) => unknown> = {
  double: (n) => (n as number) * 2,
  square: (n) => (n as number) ** 2,
  add: (list) => (list as number[]).reduce((a, b) => a + b, 0),
  triple: (n) => (n as number) * 3,
};

/** A minimal agent over fetch. */
export class HttpAgent {
  /** What the job endpoint handed out, in order: `D` for a decision, `T:<name>` for a task. */
  readonly log: string[] = [];
  /** The first task `handle` executes (tests switch it to provoke `modified`). */
  firstTask = 'double';

  /** `token`: the server's, sent as `Authorization: Bearer` when given. */
  constructor(
    readonly base: string,
    readonly token?: string,
  ) {}

  /**
   * Sends a request; `body` is JSON-encoded unless it is already a string. Every request
   * says `Content-Type: application/json`, as the server wants of a request that acts.
   */
  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  private async ok(method: string, path: string, body?: unknown) {
    const answer = await this.call(method, path, body);
    if (answer.status !== 200) {
      throw new Error(`${method} ${path} -> ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    return answer.body;
  }

  /** Asks for the next job. */
  job(query = '') {
    return this.ok('GET', `/env/prod/lang/python/job${query}`);
  }

  /** Runs one job the endpoint hands out; returns its action. */
  async step(query = '?wait=2000'): Promise<string> {
    const job = await this.job(query);
    if (job.action === 'DecisionScheduled') {
      this.log.push('D');
      await this.decide(job.uuid);
    } else if (job.action === 'TaskScheduled') {
      this.log.push(`T:${job.name}`);
      await this.runTask(job.uuid, job.name, job.input);
    }
    return job.action;
  }

  /** Runs a task and posts its result. */
  async runTask(uuid: string, name: string, input: unknown) {
    const run = TASKS[name];
    const body = run
      ? { status: 'completed', output: run(input) }
      : { status: 'failed', error: { name: 'NoHandler', message: `no ${name}`, code: 'E1' } };
    return this.ok('POST', `/tasks/${encodeURIComponent(uuid)}`, body);
  }

  /** Runs every branch of a decision until the server answers `{}`. */
  async decide(uuid: string): Promise<void> {
    const path = `/decisions/${encodeURIComponent(uuid)}`;
    for (;;) {
      const next = await this.ok('GET', `${path}/branch`);
      if (next.branch === undefined) return;
      const state = { properties: { ...next.properties } };
      const end = await this.runBranch(path, next.branch, state);
      await this.ok('POST', `${path}/branch`, { properties: state.properties, ...end });
    }
  }

  /** One branch run: `{ output }` when it returned, `{}` when it ended or left. */
  private async runBranch(
    path: string,
    branch: { type: string; input?: number[] },
    state: { properties: Record<string, unknown> },
  ): Promise<{ output?: unknown }> {
    const execute = async (works: object[]) => {
      const answer = await this.ok('POST', `${path}/execute`, works);
      if (answer.status === 'completed') state.properties = answer.properties;
      return answer;
    };
    if (branch.type === 'onSuccess') {
      state.properties.completed = ((state.properties.completed as number) ?? 0) + 1;
      return {};
    }
    if (branch.type !== 'handle') return {};
    const [a, b] = branch.input ?? [];
    const first = await execute([
      { type: 'task', name: this.firstTask, input: a, position: '0.0', sync: true },
      { type: 'task', name: 'square', input: b, position: '0.1', sync: true },
    ]);
    if (first.status !== 'completed') return {};
    state.properties.phase = 'adding';
    const second = await execute([{ name: 'add', input: first.outputs, position: '1' }]);
    if (second.status !== 'completed') return {};
    state.properties.phase = 'done';
    return { output: second.outputs[0] };
  }
}
