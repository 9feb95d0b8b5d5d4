/**
 * One engine step: everything the engine does for one message, inside one store
 * transaction with the job locked. Collation moves are checked against the current key
 * and folded into a single atomic add when the step ends; child messages are appended
 * in the same transaction (chain of custody).
 */
import type { Clock } from '../core/clock.js';
import { checkedDeltaTo, digitOf } from '../core/collation.js';
import type { CollationDigit } from '../core/collation-digits.js';
import { ValidationError, WeftError } from '../core/errors.js';
import type { CompiledActivity } from '../graph/compiled-workflow.js';
import { evaluateExpression } from '../graph/expressions.js';
import type { ActivityRecord, JobRecord, Json, NewMessage } from '../store/records.js';
import type { StoreTx } from '../store/store.js';
import type { LoadedWorkflow } from './loaded-workflow.js';
import { ENGINE_STREAM, type EngineMessage } from './messages.js';

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** The job-level counter holding the collation key. */
export const COLLATION_FIELD = 'collation';

/** What a step tells its caller once it has run. */
export interface StepOutcome {
  /** The job ended in this step. */
  ended: boolean;
}

/** The per-step context shared by every activity kind. */
export class Step {
  private key: bigint | undefined;
  private delta = 0n;
  private readonly messages: NewMessage[] = [];
  private readonly held: EngineMessage[] = [];
  private hold: ((message: EngineMessage) => boolean) | undefined;
  private expressionData: Record<string, Json> | undefined;

  constructor(
    readonly tx: StoreTx,
    readonly job: JobRecord,
    readonly wf: LoadedWorkflow,
    readonly clock: Clock,
    /** The dimensional thread of the message this step runs; expressions see it first. */
    readonly dimension = '',
  ) {}

  /** The activity definition, by id. */
  activity(id: string): CompiledActivity {
    const activity = this.wf.compiled.activities[id];
    if (!activity) {
      throw new ValidationError(
        `unknown activity ${JSON.stringify(id)} in ${this.job.workflow}@${this.job.version}`,
        `job ${this.job.id}`,
      );
    }
    return activity;
  }

  /** The collation key as this step sees it (stored value plus this step's moves). */
  async collation(): Promise<bigint> {
    if (this.key === undefined) {
      this.key = (await this.tx.getCounter({ job: this.job.id, field: COLLATION_FIELD })) ?? 0n;
    }
    return this.key + this.delta;
  }

  /** The current digit of an activity. */
  async digit(activity: string): Promise<CollationDigit> {
    return digitOf(this.wf.layout, await this.collation(), activity);
  }

  /**
   * Moves an activity's digit, checked: a move not allowed from its current digit throws
   * InvalidStateError. The add is folded into the step's single collation add.
   */
  async move(activity: string, to: CollationDigit): Promise<void> {
    this.delta += checkedDeltaTo(this.wf.layout, await this.collation(), activity, to);
  }

  /** Queues an engine message for this job. */
  sendEngine(message: EngineMessage): void {
    if (this.hold?.(message)) {
      this.held.push(message);
      return;
    }
    this.messages.push({
      stream: ENGINE_STREAM,
      job: message.job,
      payload: message as unknown as Json,
    });
  }

  /** Queues any message. */
  send(message: NewMessage): void {
    this.messages.push(message);
  }

  /**
   * The data expressions see: `{ input, <activity>: { output, error, status } }`. When an
   * activity ran in several dimensional threads (a cycle), the record of this step's own
   * dimension wins, else the newest one.
   */
  async data(): Promise<Record<string, Json>> {
    if (!this.expressionData) {
      const data: Record<string, Json> = { input: this.job.input };
      const records = await this.tx.listActivities(this.job.id);
      const rank = (r: ActivityRecord) => [
        r.dimension === this.dimension ? 1 : 0,
        r.updatedAt,
        Number(/#(\d+)$/.exec(r.dimension)?.[1] ?? 0),
      ];
      const best = new Map<string, ActivityRecord>();
      for (const r of records) {
        const held = best.get(r.activity);
        if (!held || compareRanks(rank(r), rank(held)) > 0) best.set(r.activity, r);
      }
      for (const [activity, r] of best) {
        data[activity] = { output: r.output, error: r.error as Json, status: r.status };
      }
      this.expressionData = data;
    }
    return this.expressionData;
  }

  /** Records an activity's output so later expressions in this step see it. */
  remember(activity: string, value: { output?: Json; error?: Json; status: string }): void {
    if (this.expressionData) {
      this.expressionData[activity] = {
        output: value.output ?? null,
        error: value.error ?? null,
        status: value.status,
      };
    }
  }

  /** Evaluates a JSONata expression over this job's data. */
  async evaluate(expression: string, where: string): Promise<Json> {
    return evaluateExpression(expression, await this.data(), where, { now: this.clock.now() });
  }

  /**
   * From now on, engine messages `hold` accepts are kept back — to run inline in the same
   * transaction after this step — instead of being appended to the stream.
   */
  holdBack(hold: (message: EngineMessage) => boolean): void {
    this.hold = hold;
  }

  /**
   * The step for another message of the same job in the same transaction, run right
   * after this one: it continues from here — the job lock already held, the collation
   * key already read, this step's folded collation moves and queued messages — so only
   * the last step of the chain flushes them (one read and one add of the key for all).
   */
  successor(dimension: string): Step {
    const next = new Step(this.tx, this.job, this.wf, this.clock, dimension);
    next.key = this.key;
    next.delta = this.delta;
    next.messages.push(...this.messages.splice(0));
    this.delta = 0n;
    return next;
  }

  /** The engine messages kept back by {@link holdBack}, once. */
  takeHeld(): EngineMessage[] {
    return this.held.splice(0);
  }

  /** Applies the folded collation add and appends queued messages; returns the new key. */
  async flush(): Promise<bigint> {
    if (this.messages.length) await this.tx.append(this.messages.splice(0));
    if (this.delta === 0n) return this.collation();
    const expected = await this.collation();
    const stored = await this.tx.addCounter(
      { job: this.job.id, field: COLLATION_FIELD },
      this.delta,
    );
    if (stored !== expected) {
      throw new WeftError(
        'INTERNAL',
        `collation key of job ${this.job.id} changed while the job was locked`,
      );
    }
    this.key = stored;
    this.delta = 0n;
    return stored;
  }
}
