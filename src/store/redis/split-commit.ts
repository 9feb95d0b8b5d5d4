/**
 * A commit over several hash slots of a Redis Cluster (docs/store-redis.md, section 6),
 * where one script touches one slot. It is atomic against other commits and against its
 * own client dying at any point, by a commit point and a record:
 *
 * 1. **Prepare.** Every part but the *primary* (the first that checks anything, `{g}`
 *    before the partitions; else the first) runs its checks and puts this commit's fence
 *    on its slot, one script per slot. From then on nobody else commits a check or claims
 *    there, so what the part checked holds. A refusal takes the fences put away.
 * 2. **Commit point.** The primary part runs its checks and writes, and with them a record
 *    of the other parts' writes, in one script. It is refused when another commit's fence
 *    is on its slot, or when the commit was given up (below). Refused: the fences go.
 * 3. **The rest.** Each other part is written while its fence is there, taking the fence
 *    away in the same script, so a part is written at most once; then the record goes.
 *
 * A client that dies (or stalls) leaves fences or a record behind. {@link SplitCommits.sweep}
 * (every store on a cluster runs it about once a second) resolves those older than
 * {@link SPLIT_LEASE_MS}: a fence's token names its primary slot, where one script
 * decides — the record is there (committed: every part is written from it) or it is not
 * (given up: a mark there refuses the primary part for good, and the fence goes). So each
 * commit ends whole or not at all, never half: the hole this closes was a step that
 * registered a waiter in the signal key's partition, its client killed between its two
 * slots, leaving the step written and the waiter lost (a job waiting for ever).
 */
import { randomUUID } from 'node:crypto';
import { CommitPlan } from './commit-script.js';
import type { RedisConnection } from './connection.js';
import { fenceKey, splitAbortKey, splitRecordKey } from './keys.js';
import type { CommitOutcome } from './redis-tx.js';

/** How old a fence or record must be before anyone but its client resolves it. */
export const SPLIT_LEASE_MS = 2_000;

/**
 * The most slots one sweep visits: with the default 16 partitions, all of them; a store
 * made with many more partitions sweeps them in turns, so an idle client stays cheap.
 */
const SWEEP_SLOTS = 64;

/** How long the mark of a commit given up lasts (longer than any client stalls). */
const ABORT_MARK_MS = 3_600_000;

/** One slot's part of a commit. */
export interface SlotPart {
  tag: string;
  part: CommitPlan;
}

/** A part as the record keeps it: its slot and its encoded second-phase script. */
interface RecordedPart {
  tag: string;
  keys: string[];
  args: string[];
}

/** Where a client stopped: for tests that play a client dying there. */
export type SplitPhase = 'prepared' | 'committed';

/** A token names its primary slot and when it was made: `<tag>/<ms>/<uuid>`. */
function newToken(primaryTag: string): string {
  return `${primaryTag}/${Date.now()}/${randomUUID()}`;
}

/**
 * The primary slot a token names, when the token is at least {@link SPLIT_LEASE_MS} old
 * (else, or for a token of another form, undefined: nobody but its client resolves it).
 */
function primaryIfOld(token: string): string | undefined {
  const match = /^(g|p\d+)\/(\d+)\/[0-9a-f-]{36}$/.exec(token);
  if (!match || Date.now() - Number(match[2]) < SPLIT_LEASE_MS) return undefined;
  return match[1];
}

/** The hash tag of a key of the layout (`weft:{<tag>}:…`). */
function tagOf(key: string): string | undefined {
  return /^weft:\{([^}]+)\}/.exec(key)?.[1];
}

export class SplitCommits {
  /** Where the next sweep starts, among {@link tags}. */
  private cursor = 0;

  constructor(
    private readonly redis: RedisConnection,
    /** Every slot a fence or record can be in: `g` and each partition's tag. */
    private readonly tags: readonly string[],
    /** For tests: called at each phase; what it throws stops the commit there. */
    private readonly onPhase?: (phase: SplitPhase) => void | Promise<void>,
  ) {}

  /** Commits parts in several slots, sorted `{g}` first, then partitions by number. */
  async commit(parts: readonly SlotPart[]): Promise<CommitOutcome> {
    const primary = parts.find((p) => p.part.checks) ?? (parts[0] as SlotPart);
    const others = parts.filter((p) => p !== primary);
    const token = newToken(primary.tag);
    const prepared = await Promise.all(
      others.map((p) => this.run(p.part.prepare(fenceKey(p.tag), token))),
    );
    const refused = prepared.find((o) => o.status !== 'ok');
    if (refused) {
      await this.release(
        others.filter((_, i) => prepared[i]?.status === 'ok'),
        token,
      );
      return refused;
    }
    await this.onPhase?.('prepared');
    const rest: RecordedPart[] = others.map((p) => ({
      tag: p.tag,
      ...p.part.held(fenceKey(p.tag), token).encode(),
    }));
    const outcome = await this.run(
      primary.part.primary(
        fenceKey(primary.tag),
        splitAbortKey(primary.tag, token),
        splitRecordKey(primary.tag),
        token,
        JSON.stringify(rest),
      ),
    );
    if (outcome.status !== 'ok') {
      await this.release(others, token);
      return outcome;
    }
    await this.onPhase?.('committed');
    await this.finish(primary.tag, token, rest);
    return { status: 'ok' };
  }

  /**
   * Resolves what dead or stalled clients left: in each slot it visits, a fence and the
   * records older than {@link SPLIT_LEASE_MS}. A sweep visits at most
   * {@link SWEEP_SLOTS} slots, the next ones each time. Answers how many commits it
   * finished or gave up.
   */
  async sweep(): Promise<number> {
    const visit = this.nextSlots();
    const found = await Promise.all(
      visit.map(async (tag) => {
        const [fence, tokens] = await Promise.all([
          this.redis.get(fenceKey(tag)),
          this.redis.hkeys(splitRecordKey(tag)),
        ]);
        return { tag, fence, tokens };
      }),
    );
    const finished = new Set<string>();
    for (const { tokens } of found) {
      for (const token of tokens) {
        const primary = primaryIfOld(token);
        if (primary && (await this.decide(token, primary)) === 'committed') finished.add(token);
      }
    }
    let givenUp = 0;
    for (const { tag, fence } of found) {
      // A fence of a commit just finished went with its part.
      const primary = fence === null || finished.has(fence) ? undefined : primaryIfOld(fence);
      if (primary && (await this.resolveFence(tag, fence as string, primary))) givenUp++;
    }
    return finished.size + givenUp;
  }

  /** Where the next sweep looks: every slot, or the next {@link SWEEP_SLOTS} of them. */
  private nextSlots(): readonly string[] {
    if (this.tags.length <= SWEEP_SLOTS) return this.tags;
    const slots = Array.from(
      { length: SWEEP_SLOTS },
      (_, i) => this.tags[(this.cursor + i) % this.tags.length] as string,
    );
    this.cursor = (this.cursor + SWEEP_SLOTS) % this.tags.length;
    return slots;
  }

  /** Resolves the fence a commit was refused by (`key`), when it is old enough. */
  async resolveFenceAt(key: string): Promise<void> {
    const tag = tagOf(key);
    if (tag === undefined) return;
    const fence = await this.redis.get(key);
    const primary = fence === null ? undefined : primaryIfOld(fence);
    if (primary) await this.resolveFence(tag, fence as string, primary);
  }

  /** Resolves a fence: true when its commit was given up (a committed one's fences go as its parts are written). */
  private async resolveFence(tag: string, token: string, primary: string): Promise<boolean> {
    if ((await this.decide(token, primary)) !== 'aborted') return false;
    await this.release([{ tag }], token);
    return true;
  }

  /**
   * Decides commit `token` in its primary slot and, when it committed, writes what is
   * left of it from the record.
   */
  private async decide(token: string, primary: string): Promise<'committed' | 'aborted'> {
    const [verdict, record] = await this.redis.weftDecide(
      2,
      splitRecordKey(primary),
      splitAbortKey(primary, token),
      token,
      String(ABORT_MARK_MS),
    );
    if (verdict !== 'committed') return 'aborted';
    await this.finish(primary, token, JSON.parse(record as string) as RecordedPart[]);
    return 'committed';
  }

  /**
   * Writes the parts after the commit point (each at most once: a part refused here has
   * been written already, its fence gone with it), then deletes the record.
   */
  private async finish(primary: string, token: string, rest: RecordedPart[]): Promise<void> {
    await Promise.all(rest.map((p) => this.redis.weftCommit(p.keys.length, p.keys.concat(p.args))));
    await this.redis.hdel(splitRecordKey(primary), token);
  }

  /** Takes this commit's fences away. */
  private async release(parts: readonly { tag: string }[], token: string): Promise<void> {
    await Promise.all(parts.map((p) => this.run(CommitPlan.release(fenceKey(p.tag), token))));
  }

  private async run(plan: CommitPlan): Promise<CommitOutcome> {
    const { keys, args } = plan.encode();
    const [status, key = '', field = ''] = await this.redis.weftCommit(
      keys.length,
      keys.concat(args),
    );
    // Refused (a journal entry's `exists` too): the transaction runs again.
    return status === 'ok' ? { status: 'ok' } : { status: 'conflict', key, field };
  }
}
