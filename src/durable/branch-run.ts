/**
 * One run of one branch inside the TypeScript decision executer: the per-branch position
 * counter and the bridge between the workflow's operations and the
 * {@link DecisionSession}. The first operation that cannot complete now *stops* the run:
 * the properties are captured at that moment, the operation's promise never settles,
 * and anything the code does afterwards is ignored (no work is recorded, no position
 * counted). That is the seed's "leave the branch".
 */
import { TaskFailedError } from '../core/errors.js';
import type { Json } from '../store/records.js';
import type { DecisionSession, ExecuteResult, WorkRequest } from './decision-session.js';
import type { JsonObject } from './stable-json.js';

/** Why a run stopped before its method settled. */
export type StopKind = 'parked' | 'modified';

/** Hooks into the workflow object the run drives. */
export interface BranchRunHooks {
  snapshot(): JsonObject;
  load(properties: JsonObject): void;
}

const never = <T>() => new Promise<T>(() => {});

/** One branch run. */
export class BranchRun {
  /** Resolves when the run stops (parked or modified). */
  readonly stopped: Promise<void>;
  private signal: () => void = () => {};
  private counter = 0;
  private stop: StopKind | null = null;
  private closed = false;
  /** Properties captured when the run parked, or the error capturing them raised. */
  parkedProperties: JsonObject | null = null;
  parkError: unknown = null;

  constructor(
    private readonly session: DecisionSession,
    readonly instanceId: string,
    private readonly hooks: BranchRunHooks,
  ) {
    this.stopped = new Promise((resolve) => {
      this.signal = resolve;
    });
  }

  /** How the run stopped, or null when it has not. */
  get stopKind(): StopKind | null {
    return this.stop;
  }

  /** True once the run stopped or was closed: operations then do nothing. */
  get inert(): boolean {
    return this.stop !== null || this.closed;
  }

  /** Ends the run: later operations (from code still running) do nothing. */
  close(): void {
    this.closed = true;
  }

  /** The next position on this branch. */
  nextPosition(): number {
    const n = this.counter;
    this.counter += 1;
    return n;
  }

  private halt(kind: StopKind): void {
    if (kind === 'parked') {
      try {
        this.parkedProperties = this.hooks.snapshot();
      } catch (error) {
        this.parkError = error;
      }
    }
    this.stop = kind;
    this.signal();
  }

  private call(works: WorkRequest[]): ExecuteResult | null {
    if (this.inert) return null;
    const result = this.session.execute(works);
    if (result.status === 'modified') {
      this.halt('modified');
      return null;
    }
    return result;
  }

  /** Works the branch waits for: their outputs, a thrown failure, or a stop. */
  wait(works: WorkRequest[]): Promise<Json[]> {
    const result = this.call(works);
    if (!result) return never();
    if (result.status === 'scheduled' || result.status === 'modified') {
      this.halt('parked');
      return never();
    }
    if (result.properties) this.hooks.load(result.properties);
    if (result.status === 'failed') {
      const work = works[result.index] as WorkRequest;
      const { name, message, code } = result.error;
      const failure = code !== undefined ? { name, message, code } : { name, message };
      return Promise.reject(new TaskFailedError(work.type, work.name, failure));
    }
    return Promise.resolve(result.outputs);
  }

  /** Works the branch does not wait for (dispatch, send). */
  fire(works: WorkRequest[]): Promise<void> {
    const result = this.call(works);
    return result ? Promise.resolve() : never();
  }

  /** A recorded value (`date`, `random`, `uuid`); a placeholder once the run stopped. */
  value(kind: 'date' | 'random' | 'uuid'): Json {
    const position = `${this.inert ? this.counter : this.nextPosition()}`;
    const result = this.call([{ type: 'value', name: kind, input: null, position, sync: false }]);
    if (result?.status === 'completed') return result.outputs[0] ?? null;
    return kind === 'uuid' ? '' : 0;
  }

  /** A version marker (see `Workflow.version`). */
  version(id: string): boolean {
    return this.inert ? false : this.session.version(id);
  }
}
