/**
 * Decisions handed out to HTTP agents (the seed's "Agent" decision endpoints). Claiming
 * a `decide:<workflow>` message builds a {@link DecisionSession} from the instance's
 * decision in flight and keeps it in memory by uuid; the agent then drives it with
 * `GET`/`POST /decisions/{uuid}/branch` and `POST /decisions/{uuid}/execute`. When no
 * branch is left, the session's decisions are applied to the instance and the message
 * acked in one transaction.
 *
 * Leases. The message stays claimed while the agent works (each request extends its
 * lease). A decision never finished is claimed again once its lease runs out; the
 * instance's decision is then handed out under a new uuid (`DurableEngine.redeliver`),
 * so the first agent's uuid is stale and answers 409 — and whoever completes first under
 * a uuid the instance no longer has is refused, under the job's lock, with nothing changed.
 */
import { InvalidStateError, NotFoundError, StaleDecisionError } from '../core/errors.js';
import { DecisionSession } from '../durable/decision-session.js';
import type { DecideMessage } from '../durable/durable-messages.js';
import { currentDecisionRequest } from '../durable/engine-trigger.js';
import type { NextBranch, WorkRequest } from '../durable/session-messages.js';
import { readInstance } from '../durable/stored-instance.js';
import { systemValueSource } from '../durable/value-source.js';
import type { Json } from '../store/records.js';
import { resumeTakenOver } from '../worker/resumption.js';
import type { WireEndBranch } from './agent-wire.js';
import type { DeskSettings } from './desk-settings.js';
import { RecentMap } from './recent-map.js';

/** What the job endpoint answers for a decision. */
export interface DecisionOffer {
  action: 'DecisionScheduled';
  uuid: string;
  /** The workflow's name. */
  name: string;
  /** (weft) the instance (job) id. */
  instance: string;
}

/** The answer to `GET /decisions/{uuid}/branch`: the next branch, or `{}` when done. */
export type BranchAnswer =
  | { branch: NextBranch['branch']; index: number; properties: Json }
  | Record<string, never>;

/** The answer to `POST /decisions/{uuid}/branch`: how the server understood the end. */
export interface EndBranchAnswer {
  status: 'ended' | 'parked' | 'failed';
}

/** The answer to `POST /decisions/{uuid}/execute` (the seed's statuses, plus weft's `failed`). */
export type ExecuteAnswer =
  | { status: 'scheduled' }
  | { status: 'modified'; error: Record<string, unknown> }
  | { status: 'completed'; outputs: Json[]; properties?: Json }
  | { status: 'failed'; error: Json; index: number; properties: Json };

interface Handout {
  uuid: string;
  job: string;
  stream: string;
  messageId: string;
  session: DecisionSession;
  /** The running branch's last waited-for works were not complete: it left the branch. */
  parked: boolean;
  /** Clock time of the last lease extension. */
  extendedAt: number;
  completing?: Promise<void>;
}

type Retired = { kind: 'completed' } | { kind: 'stale'; reason: string };

type ClaimStep =
  | { kind: 'empty' }
  | { kind: 'skipped' }
  | { kind: 'redelivered'; old: string }
  | { kind: 'offer'; handout: Handout; workflow: string };

/** How many stale messages one claim looks past before answering "nothing here". */
const SKIP_LIMIT = 32;

/** The decisions this server has handed out. */
export class DecisionDesk {
  private readonly open = new Map<string, Handout>();
  private readonly retired: RecentMap<string, Retired>;

  constructor(private readonly settings: DeskSettings) {
    this.retired = new RecentMap(settings.remember);
  }

  /** Decisions handed out and not finished. */
  get openCount(): number {
    return this.open.size;
  }

  /** Claims the next decision of a `decide:<workflow>` stream, or null when there is none. */
  async claim(stream: string): Promise<DecisionOffer | null> {
    for (let i = 0; i < SKIP_LIMIT; i++) {
      const step = await this.claimStep(stream);
      if (step.kind === 'empty') return null;
      if (step.kind === 'redelivered') {
        this.retire(step.old, {
          kind: 'stale',
          reason: 'its lease ran out and it was handed out again under a new uuid',
        });
      }
      if (step.kind !== 'offer') continue;
      this.open.set(step.handout.uuid, step.handout);
      this.retired.delete(step.handout.uuid);
      return {
        action: 'DecisionScheduled',
        uuid: step.handout.uuid,
        name: step.workflow,
        instance: step.handout.job,
      };
    }
    return null;
  }

  private claimStep(stream: string): Promise<ClaimStep> {
    const { store, consumer, leaseMs, clock, models } = this.settings;
    return store.transaction(async (tx): Promise<ClaimStep> => {
      const [message] = await tx.claim(stream, { consumer, max: 1, leaseMs });
      if (!message) return { kind: 'empty' };
      // Taken over from a holder whose lease ran out: its job resumes.
      await resumeTakenOver(tx, [message], consumer, clock.now());
      const payload = message.payload as unknown as DecideMessage;
      const instance = await readInstance(tx, payload.job);
      if (
        instance?.state !== 'running' ||
        !instance.decision_ongoing ||
        instance.decision_uuid !== payload.uuid
      ) {
        // A decision already applied, redelivered or ended: nothing to hand out.
        await tx.ack(stream, message.id, consumer);
        return { kind: 'skipped' };
      }
      if (message.deliveries > 1) {
        // Handed out before and its lease ran out: a new uuid makes the old one stale.
        await models.durable.redeliver(tx, payload.job, payload.uuid);
        await tx.ack(stream, message.id, consumer);
        return { kind: 'redelivered', old: payload.uuid };
      }
      const request = currentDecisionRequest(instance);
      if (!request) throw new InvalidStateError('decision', 'none in flight', 'handed out');
      const session = new DecisionSession(request, { values: systemValueSource(clock) });
      return {
        kind: 'offer',
        workflow: instance.workflow_name,
        handout: {
          uuid: request.uuid,
          job: payload.job,
          stream,
          messageId: message.id,
          session,
          parked: false,
          extendedAt: clock.now(),
        },
      };
    });
  }

  /** `GET /decisions/{uuid}/branch`: the next branch, or `{}` once the decision is applied. */
  async branch(uuid: string): Promise<BranchAnswer> {
    if (this.retired.get(uuid)?.kind === 'completed') return {};
    const handout = await this.held(uuid);
    if (handout.completing) {
      await handout.completing;
      return {};
    }
    const next = handout.session.nextBranch();
    handout.parked = false;
    if (next.branch !== undefined) {
      return { branch: next.branch, index: next.index, properties: next.properties };
    }
    // Concurrent and repeated requests share the one completion; a failed one may be retried.
    handout.completing = this.complete(handout).catch((error: unknown) => {
      handout.completing = undefined;
      throw error;
    });
    await handout.completing;
    return {};
  }

  private async complete(handout: Handout): Promise<void> {
    const { store, consumer, models } = this.settings;
    const applied = await store.transaction(async (tx) => {
      const ok = await models.durable.applyOutcome(tx, handout.job, handout.session.decisions());
      // Applied or stale, this message has done its work.
      await tx.ack(handout.stream, handout.messageId, consumer);
      return ok;
    });
    if (applied) {
      this.retire(handout.uuid, { kind: 'completed' });
      return;
    }
    const reason = 'the instance has moved on (another uuid is in flight, or it ended)';
    this.retire(handout.uuid, { kind: 'stale', reason });
    throw new StaleDecisionError(handout.uuid, reason);
  }

  /** `POST /decisions/{uuid}/branch`: the running branch's end. */
  async endBranch(uuid: string, end: WireEndBranch): Promise<EndBranchAnswer> {
    const handout = await this.held(uuid);
    if (handout.completing) throw new InvalidStateError(`decision ${uuid}`, 'completing', 'branch');
    const ended = end.output !== undefined || end.error !== undefined;
    const parked = end.parked ?? (!ended && handout.parked);
    handout.session.endBranch({ ...end, parked });
    handout.parked = false;
    return { status: end.error ? 'failed' : parked ? 'parked' : 'ended' };
  }

  /** `POST /decisions/{uuid}/execute`: registers works and says whether they are complete. */
  async execute(uuid: string, works: readonly WorkRequest[]): Promise<ExecuteAnswer> {
    const handout = await this.held(uuid);
    if (handout.completing)
      throw new InvalidStateError(`decision ${uuid}`, 'completing', 'execute');
    const result = handout.session.execute(works);
    handout.parked = result.status === 'scheduled' && works.some((w) => w.sync);
    switch (result.status) {
      case 'scheduled':
        return { status: 'scheduled' };
      case 'modified':
        return { status: 'modified', error: result.error.toJSON() };
      case 'completed':
        return {
          status: 'completed',
          outputs: result.outputs,
          ...(result.properties ? { properties: result.properties } : {}),
        };
      case 'failed':
        return {
          status: 'failed',
          error: result.error as unknown as Json,
          index: result.index,
          properties: result.properties,
        };
    }
  }

  /** The open hand-out for `uuid`, its lease extended; a typed error when there is none. */
  private async held(uuid: string): Promise<Handout> {
    const handout = this.open.get(uuid);
    if (!handout) {
      const retired = this.retired.get(uuid);
      if (retired?.kind === 'stale') throw new StaleDecisionError(uuid, retired.reason);
      if (retired?.kind === 'completed') {
        throw new StaleDecisionError(uuid, 'it is complete and applied');
      }
      throw new NotFoundError('decision', uuid);
    }
    const { store, consumer, leaseMs, clock } = this.settings;
    const now = clock.now();
    if (now - handout.extendedAt >= leaseMs / 3) {
      const held = await store.extendLease(handout.stream, [handout.messageId], consumer, leaseMs);
      if (held.length === 0) {
        const reason = 'its lease ran out and it was handed out again';
        this.retire(uuid, { kind: 'stale', reason });
        throw new StaleDecisionError(uuid, reason);
      }
      handout.extendedAt = now;
    }
    return handout;
  }

  private retire(uuid: string, retired: Retired): void {
    this.open.delete(uuid);
    this.retired.set(uuid, retired);
  }
}
