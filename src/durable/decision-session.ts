/**
 * The Agent side of one decision (the seed's decision endpoints), as a pure object that
 * an HTTP layer can wrap: `GET /decisions/{uuid}/branch` is {@link DecisionSession.nextBranch},
 * `POST /decisions/{uuid}/branch` is {@link DecisionSession.endBranch},
 * `POST /decisions/{uuid}/execute` is {@link DecisionSession.execute}, and the decisions
 * sent to the engine when no branch is left are {@link DecisionSession.decisions}.
 *
 * Properties follow the seed's index rules: a branch starts with
 * `properties(start_index)`; after a completed `execute` it continues with
 * `properties(max completion_index)`. A branch run writes what its last *segment* (the
 * code since the last completed `execute`, or since the start) changed, merged key by key
 * over `properties(index)`, as `properties(index + 1)` — and only if that segment runs
 * for the first time: a run that replays a segment an earlier run already ran writes
 * nothing, so it cannot undo what other branches changed since.
 */
import { InvalidStateError, ModifiedDeciderError } from '../core/errors.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { Decision, DecisionOutcome, DecisionRequest } from './decisions.js';
import {
  type Branch,
  type PropertiesEntry,
  propertiesAt,
  type Status,
  type WorkType,
} from './instance.js';
import { mergeSegmentChanges } from './segment-properties.js';
import { cloneJson, type JsonObject } from './stable-json.js';
import type { ValueSource } from './value-source.js';
import { workHash } from './work-hash.js';

/** A work as the decision executer describes it (the body of POST /execute). */
export interface WorkRequest {
  type: WorkType;
  /** Task or workflow name, event name (`event`), value kind (`value`), `wait`. */
  name: string;
  input: Json;
  /** Position on the branch, from the executer's per-branch counter. */
  position: string;
  /** True when the branch waits for the work (`execute`), false for `dispatch`. */
  sync: boolean;
  timeoutMs?: number;
}

/** The answer to {@link DecisionSession.execute}. */
export type ExecuteResult =
  | { status: 'modified'; error: ModifiedDeciderError }
  | { status: 'scheduled' }
  | { status: 'completed'; outputs: Json[]; properties?: JsonObject }
  | { status: 'failed'; error: ErrorRecord; index: number; properties: JsonObject };

/** The next branch to run (GET /decisions/{uuid}/branch). */
export interface NextBranch {
  branch: Branch & { key: number };
  /** Its execution index. */
  index: number;
  /** Its initial properties: `properties(start_index)`. */
  properties: JsonObject;
}

/** No branch left: the seed's `{}`. */
export interface NoBranch {
  branch?: undefined;
}

/** The end of a branch run (POST /decisions/{uuid}/branch). */
export interface EndBranchInput {
  /** The workflow's properties when the run stopped. */
  properties: JsonObject;
  /** The return value, when the branch returned one. */
  output?: Json;
  /** True when the run stopped at a work not yet complete (the branch goes on later). */
  parked?: boolean;
  /** Set when the branch threw: the instance fails. */
  error?: ErrorRecord;
}

/** Options of a session. */
export interface DecisionSessionOptions {
  /** Fresh values for `date()`, `random()`, `uuid()` the first time they are asked for. */
  values: ValueSource;
  /** Id of a new work; default `<instance>.<branch>.<position>` (stable, so idempotent). */
  workId?: (instanceId: string, branchKey: number, position: string) => string;
}

interface CurrentRun {
  index: number;
  key: number;
  segmentStart: number;
  segmentProperties: JsonObject;
}

const statusKey = (branch: number, position: string) => `${branch}\u0000${position}`;

/** One decision's state on the Agent side. */
export class DecisionSession {
  readonly uuid: string;
  private ongoingIndex: number;
  private readonly request: DecisionRequest;
  private readonly properties: PropertiesEntry[];
  private readonly statuses = new Map<string, Status>();
  private readonly branches = new Map<number, Branch>();
  private readonly runsOf = new Map<number, number[]>();
  private readonly out: Decision[] = [];
  private readonly values: ValueSource;
  private readonly workId: (instanceId: string, branchKey: number, position: string) => string;
  private current: CurrentRun | null = null;
  private modification: ModifiedDeciderError | null = null;

  constructor(request: DecisionRequest, options: DecisionSessionOptions) {
    this.request = request;
    this.uuid = request.uuid;
    this.ongoingIndex = request.ongoing_index;
    this.properties = [...request.properties];
    this.values = options.values;
    this.workId = options.workId ?? ((id, branch, position) => `${id}.${branch}.${position}`);
    for (const { branch, key } of request.ongoing_branches) {
      this.branches.set(key, branch);
      this.runsOf.set(key, []);
    }
    request.executions.forEach((key, index) => {
      this.runsOf.get(key)?.push(index);
    });
    for (const s of request.ongoing_statuses)
      this.statuses.set(statusKey(s.branch_key, s.position), s);
  }

  /** The modification that stopped this decision, if any. */
  get modified(): ModifiedDeciderError | null {
    return this.modification;
  }

  /** The branch at the ongoing index, or `{}` when none is left (or the code was modified). */
  nextBranch(): NextBranch | NoBranch {
    if (this.modification || this.ongoingIndex >= this.request.executions.length) return {};
    const index = this.ongoingIndex;
    const key = this.request.executions[index] as number;
    const branch = this.branches.get(key);
    const start = this.runsOf.get(key)?.[0];
    if (!branch || start === undefined) {
      throw new InvalidStateError('decision session', 'missing branch', String(key));
    }
    const properties = propertiesAt(this.properties, start);
    this.current = { index, key, segmentStart: start, segmentProperties: properties };
    return { branch: { ...branch, key }, index, properties: cloneJson(properties) };
  }

  private run(operation: string): CurrentRun {
    if (!this.current)
      throw new InvalidStateError('decision session', 'no branch running', operation);
    return this.current;
  }

  /** True when an earlier run of this branch already ran its current segment. */
  private replaying(run: CurrentRun): boolean {
    const runs = this.runsOf.get(run.key) ?? [];
    let lo = 0;
    let hi = runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((runs[mid] as number) < run.segmentStart) lo = mid + 1;
      else hi = mid;
    }
    const earlier = runs[lo];
    return earlier !== undefined && earlier < run.index;
  }

  /** Ends the running branch: records changed properties, output, end or failure. */
  endBranch(end: EndBranchInput): void {
    const run = this.run('endBranch');
    if (!this.replaying(run)) {
      const base = propertiesAt(this.properties, run.index);
      const merged = mergeSegmentChanges(base, run.segmentProperties, end.properties);
      if (merged) {
        this.properties.push({ key: run.index + 1, values: merged });
        this.out.push({ type: 'updateProperties', key: run.index + 1, values: merged });
      }
      if (end.error) {
        this.out.push({ type: 'failBranch', branch_key: run.key, error: end.error });
      } else if (!end.parked) {
        if (end.output !== undefined) {
          this.out.push({ type: 'setOutput', branch_key: run.key, output: end.output });
        }
        this.out.push({ type: 'endBranch', branch_key: run.key });
      }
    }
    this.ongoingIndex += 1;
    this.current = null;
  }

  private stop(run: CurrentRun, position: string, expected: string, actual: string) {
    this.modification = new ModifiedDeciderError(run.key, position, expected, actual);
    return { status: 'modified' as const, error: this.modification };
  }

  /** Registers the works of one call and says whether they are all complete. */
  execute(works: readonly WorkRequest[]): ExecuteResult {
    const run = this.run('execute');
    if (this.modification) return { status: 'modified', error: this.modification };
    const replaying = this.replaying(run);
    const found: (Status | undefined)[] = [];
    const hashes: string[] = [];
    for (const work of works) {
      const hash = workHash(work.type, work.name, work.input, work.position, work.sync);
      const status = this.statuses.get(statusKey(run.key, work.position));
      if (status && status.hash !== hash) return this.stop(run, work.position, status.hash, hash);
      if (!status && replaying) return this.stop(run, work.position, 'none', hash);
      found.push(status);
      hashes.push(hash);
    }
    const statuses = works.map(
      (work, i) => found[i] ?? this.schedule(run, work, hashes[i] as string),
    );
    if (!works.some((w) => w.sync)) {
      const done = statuses.every((s) => s.status !== 'scheduled');
      return done
        ? { status: 'completed', outputs: statuses.map((s) => s.output ?? null) }
        : { status: 'scheduled' };
    }
    return this.settle(run, statuses);
  }

  /** The answer for works the branch waits for (the seed's completed / scheduled rule). */
  private settle(run: CurrentRun, statuses: Status[]): ExecuteResult {
    const visible = (s: Status) =>
      s.status !== 'scheduled' &&
      s.completion_index !== undefined &&
      s.completion_index <= run.index;
    let failed: { status: Status; index: number } | null = null;
    statuses.forEach((status, index) => {
      if (status.status !== 'failed' || !visible(status)) return;
      if (
        !failed ||
        (status.completion_index as number) < (failed.status.completion_index as number)
      ) {
        failed = { status, index };
      }
    });
    if (failed !== null) {
      const { status, index } = failed as { status: Status; index: number };
      const properties = this.enterSegment(run, status.completion_index as number);
      const error = status.error ?? { name: 'Error', message: 'failed' };
      return { status: 'failed', error, index, properties };
    }
    if (!statuses.every(visible)) return { status: 'scheduled' };
    const last = Math.max(...statuses.map((s) => s.completion_index as number));
    const properties = this.enterSegment(run, last);
    return { status: 'completed', outputs: statuses.map((s) => s.output ?? null), properties };
  }

  private enterSegment(run: CurrentRun, completionIndex: number): JsonObject {
    const properties = propertiesAt(this.properties, completionIndex);
    run.segmentStart = completionIndex;
    run.segmentProperties = properties;
    return cloneJson(properties);
  }

  private record(
    run: CurrentRun,
    work: WorkRequest,
    hash: string,
    status: Partial<Status>,
  ): Status {
    const full: Status = {
      branch_key: run.key,
      position: work.position,
      hash,
      status: 'scheduled',
      uuid: this.workId(this.request.instance_id, run.key, work.position),
      type: work.type,
      name: work.name,
      input: work.input,
      sync: work.sync,
      ...status,
    };
    this.statuses.set(statusKey(run.key, work.position), full);
    return full;
  }

  /** A new work: its status here and its decision for the engine. */
  private schedule(run: CurrentRun, work: WorkRequest, hash: string): Status {
    if (work.type === 'value') {
      const value = this.freshValue(work.name);
      const s = this.record(run, work, hash, {
        status: 'completed',
        completion_index: run.index,
        output: value,
      });
      this.out.push({ type: 'recordValue', ...this.base(s), index: run.index, value });
      return s;
    }
    if (work.type === 'event') {
      const s = this.record(run, work, hash, {
        status: 'completed',
        completion_index: run.index,
        output: null,
      });
      const input = (work.input ?? {}) as { to?: string | null; data?: Json };
      this.out.push({
        type: 'sendEvent',
        ...this.base(s),
        index: run.index,
        to: input.to ?? null,
        event_name: work.name,
        event_input: input.data ?? null,
      });
      return s;
    }
    const s = this.record(run, work, hash, {});
    if (work.type === 'task') {
      const timeout = work.timeoutMs !== undefined ? { timeout_ms: work.timeoutMs } : {};
      this.out.push({ type: 'scheduleTask', ...this.base(s), ...timeout });
    } else if (work.type === 'workflow') {
      this.out.push({ type: 'scheduleFlow', ...this.base(s) });
    } else {
      const input = (work.input ?? {}) as { event?: string; durationMs?: number; until?: number };
      this.out.push({
        type: 'scheduleWait',
        ...this.base(s),
        ...(input.event !== undefined ? { event: input.event } : {}),
        ...(input.durationMs !== undefined ? { duration_ms: input.durationMs } : {}),
        ...(input.until !== undefined ? { until: input.until } : {}),
      });
    }
    return s;
  }

  private base(s: Status) {
    return {
      branch_key: s.branch_key,
      position: s.position,
      hash: s.hash,
      uuid: s.uuid,
      name: s.name,
      input: s.input,
      sync: s.sync,
    };
  }

  private freshValue(kind: string): Json {
    if (kind === 'date') return this.values.now();
    if (kind === 'random') return this.values.random();
    return this.values.uuid();
  }

  /**
   * A version marker: true when this branch segment runs for the first time under code
   * that has the marker (recorded, so later runs agree), false when it replays history
   * recorded before the marker existed.
   */
  version(id: string): boolean {
    const run = this.run('version');
    const position = `v:${id}`;
    const status = this.statuses.get(statusKey(run.key, position));
    if (status) return status.output === true;
    if (this.modification || this.replaying(run)) return false;
    const work: WorkRequest = { type: 'value', name: 'version', input: id, position, sync: false };
    const hash = workHash(work.type, work.name, work.input, position, false);
    const s = this.record(run, work, hash, {
      status: 'completed',
      completion_index: run.index,
      output: true,
    });
    this.out.push({ type: 'recordValue', ...this.base(s), index: run.index, value: true });
    return true;
  }

  /** What goes back to the engine: every decision in order, or only the modification. */
  decisions(): DecisionOutcome {
    if (this.modification) {
      const m = this.modification;
      return {
        uuid: this.uuid,
        decisions: [
          {
            type: 'modified',
            branch_key: m.branchKey,
            position: m.position,
            expected_hash: m.expectedHash,
            actual_hash: m.actualHash,
          },
        ],
      };
    }
    return { uuid: this.uuid, decisions: [...this.out] };
  }
}
