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
import type { Json } from '../store/records.js';
import type { Decision, DecisionOutcome, DecisionRequest } from './decisions.js';
import { type Branch, type PropertiesEntry, propertiesAt, type Status } from './instance.js';
import { newWork } from './new-work.js';
import { mergeSegmentChanges } from './segment-properties.js';
import type {
  DecisionSessionOptions,
  EndBranchInput,
  ExecuteResult,
  NextBranch,
  NoBranch,
  WorkRequest,
} from './session-messages.js';
import { cloneJson, type JsonObject, jsonEqual } from './stable-json.js';
import type { ValueSource } from './value-source.js';
import { workHash } from './work-hash.js';

export type {
  DecisionSessionOptions,
  EndBranchInput,
  ExecuteResult,
  NextBranch,
  NoBranch,
  WorkRequest,
} from './session-messages.js';

interface CurrentRun {
  index: number;
  key: number;
  segmentStart: number;
  segmentProperties: JsonObject;
}

const statusKey = (branch: number, position: string) => `${branch}\u0000${position}`;

/** True when work `s` was completed (or failed) at or before execution `index`. */
function visibleAt(s: Status, index: number): boolean {
  return (
    s.status !== 'scheduled' && s.completion_index !== undefined && s.completion_index <= index
  );
}

/** True when `work` is the work `status` records: same kind, name, input and sync at its position. */
function sameWork(status: Status, work: WorkRequest): boolean {
  return (
    status.type === work.type &&
    status.name === work.name &&
    status.sync === work.sync &&
    jsonEqual(status.input, work.input)
  );
}

/**
 * A work's output for the workflow's code: its own copy when it is an object or array,
 * so code that changes it cannot change the recorded history a runtime may keep in memory.
 */
function outputOf(status: Status): Json {
  const output = status.output ?? null;
  return typeof output === 'object' && output !== null ? cloneJson(output) : output;
}

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
    // The workflow's code gets its own copies: the recorded ones may be kept for the next decision.
    const own = cloneJson(branch as unknown as Json) as unknown as Branch;
    return { branch: { ...own, key }, index, properties: cloneJson(properties) };
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
      const status = this.statuses.get(statusKey(run.key, work.position));
      // A replayed work identical to the recorded one has its hash: skip computing it.
      const hash =
        status && sameWork(status, work)
          ? status.hash
          : workHash(work.type, work.name, work.input, work.position, work.sync);
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
        ? { status: 'completed', outputs: statuses.map(outputOf) }
        : { status: 'scheduled' };
    }
    return this.settle(run, statuses);
  }

  /** The answer for works the branch waits for (the seed's completed / scheduled rule). */
  private settle(run: CurrentRun, statuses: Status[]): ExecuteResult {
    let failed: { status: Status; index: number } | null = null;
    statuses.forEach((status, index) => {
      if (status.status !== 'failed' || !visibleAt(status, run.index)) return;
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
    if (!statuses.every((s) => visibleAt(s, run.index))) return { status: 'scheduled' };
    const last = Math.max(...statuses.map((s) => s.completion_index as number));
    const properties = this.enterSegment(run, last);
    return { status: 'completed', outputs: statuses.map(outputOf), properties };
  }

  private enterSegment(run: CurrentRun, completionIndex: number): JsonObject {
    const properties = propertiesAt(this.properties, completionIndex);
    run.segmentStart = completionIndex;
    run.segmentProperties = properties;
    return cloneJson(properties);
  }

  /** A new work: its status here and its decision for the engine. */
  private schedule(run: CurrentRun, work: WorkRequest, hash: string): Status {
    const { status, decision } = newWork(work, {
      branchKey: run.key,
      index: run.index,
      hash,
      uuid: this.workId(this.request.instance_id, run.key, work.position),
      values: this.values,
    });
    this.statuses.set(statusKey(run.key, work.position), status);
    this.out.push(decision);
    return status;
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
    this.schedule(run, work, workHash(work.type, work.name, work.input, position, false));
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
