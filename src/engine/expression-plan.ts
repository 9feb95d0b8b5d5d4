/**
 * Expressions are planned, never run under a lock. A step evaluates a provably cheap
 * expression (graph/expression-cost.ts) inline, as it plans. Any other expression is
 * evaluated outside the transaction, in the expression sandbox, under its hard limits:
 *
 * 1. Inside a settled transaction ({@link settledTransaction}), a step that needs such an
 *    expression looks its result up in the memo, by its source and the data it is
 *    evaluated over. On a miss it throws {@link ExpressionsPendingError} with what to
 *    evaluate; the engine collects the misses of the whole batch and rethrows them.
 * 2. The transaction rolls back — its claim, its job locks, everything — and the
 *    expressions are evaluated in the sandbox, their results (or errors) memoized.
 * 3. The transaction runs again from the start. Expressions are deterministic over their
 *    data, so a plan over the same snapshot finds them in the memo; a plan over a snapshot
 *    that changed meanwhile misses, and goes round again. Nothing planned from a stale
 *    read commits: the unit checks every counter against the value the plan expected.
 *
 * Memo entries live while the settled transaction that asked for them runs: a result is
 * never reused by a later transaction, so `$now()` reads the time of its own step.
 *
 * A caller outside any settled transaction (a test driving the engine itself) gets the
 * sandbox's answer in place: bounded, though under its transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import {
  ExpressionError,
  ExpressionHostError,
  type ExpressionLimit,
  ExpressionLimitError,
  ExpressionsPendingError,
  type PendingExpression,
} from '../core/errors.js';
import { isCheapExpression } from '../graph/expression-cost.js';
import { expressionReads, readPart } from '../graph/expression-reads.js';
import { evaluateExpression, type Json } from '../graph/expressions.js';
import { overriding } from '../store/overriding.js';
import type { Store, StoreTx } from '../store/store.js';
import { sharedSandbox } from './expression-sandbox.js';

/** A sandboxed evaluation's outcome, as memoized: its value, or how it failed. */
type Outcome =
  | { value: Json }
  | {
      error: {
        detail: string;
        code?: string | undefined;
        position?: number | undefined;
        limit?: { kind: ExpressionLimit; value: number } | undefined;
      };
    };

interface MemoEntry {
  outcome: Outcome;
  /** How many settled transactions running now asked for it. */
  owners: number;
}

/** A settled transaction: the memo keys it settled (released when it ends). */
interface SettleFrame {
  keys: Set<string>;
}

const memo = new Map<string, MemoEntry>();
const frames = new AsyncLocalStorage<SettleFrame>();

/**
 * Rounds a settled transaction may take without one new expression to evaluate (a plan
 * whose data changes on every run); then it gives up with an ExpressionHostError.
 */
const STALLED_ROUNDS = 3;
/** Rounds a settled transaction may take in all (each evaluates at least one expression). */
const MAX_ROUNDS = 256;

function memoKey(source: string, data: unknown): string {
  return createHash('sha256')
    .update(source)
    .update('\u0000')
    .update(JSON.stringify(data) ?? 'undefined')
    .digest('base64');
}

/** The memoized outcome as this call site sees it: its value, or its error naming `where`. */
function replay(outcome: Outcome, source: string, where: string | undefined): Json {
  if ('value' in outcome) return outcome.value;
  const { detail, code, position, limit } = outcome.error;
  if (limit) throw new ExpressionLimitError(source, where, limit.kind, limit.value);
  throw new ExpressionError(source, where, detail, code, position);
}

function outcomeOf(error: unknown): Outcome {
  if (error instanceof ExpressionLimitError) {
    return {
      error: { detail: error.detail, limit: { kind: error.limit, value: error.value } },
    };
  }
  if (error instanceof ExpressionError) {
    return { error: { detail: error.detail, code: error.jsonataCode, position: error.position } };
  }
  // The sandbox failed (not the expression): the transaction fails, and runs again later.
  throw error;
}

/**
 * Evaluates an expression a step needs, as its plan may: a cheap one at once; any other
 * from the memo, or — on a miss — by throwing {@link ExpressionsPendingError} for the
 * settled transaction around to evaluate it outside. Throws {@link ExpressionError}
 * (and {@link ExpressionLimitError}) when the expression fails.
 */
export async function planExpression(
  source: string,
  data: Record<string, unknown>,
  where: string | undefined,
  now: number,
): Promise<Json> {
  if (isCheapExpression(source)) return evaluateExpression(source, data, where, { now });
  // Only what it can read: less to send, and a memo key that other changes leave alone.
  const part = readPart(data, expressionReads(source));
  if (!frames.getStore()) return sharedSandbox().evaluate(source, part, where, now);
  const key = memoKey(source, part);
  const hit = memo.get(key);
  if (hit) return replay(hit.outcome, source, where);
  throw new ExpressionsPendingError([{ key, source, where, data: part, now }]);
}

/** Evaluates each request (once per key) in the sandbox and memoizes it for `frame`. */
async function settle(requests: readonly PendingExpression[], frame: SettleFrame): Promise<number> {
  const fresh = new Map<string, PendingExpression>();
  for (const r of requests) {
    const held = memo.get(r.key);
    if (held && !frame.keys.has(r.key)) {
      held.owners++;
      frame.keys.add(r.key);
    } else if (!held) fresh.set(r.key, r);
  }
  const sandbox = sharedSandbox();
  const outcomes = await Promise.all(
    [...fresh.values()].map(async (r) => {
      try {
        return { r, outcome: { value: await sandbox.evaluate(r.source, r.data, r.where, r.now) } };
      } catch (error) {
        return { r, outcome: outcomeOf(error) };
      }
    }),
  );
  for (const { r, outcome } of outcomes) {
    const held = memo.get(r.key);
    if (held) {
      if (!frame.keys.has(r.key)) held.owners++;
    } else memo.set(r.key, { outcome, owners: 1 });
    frame.keys.add(r.key);
  }
  return fresh.size;
}

function release(frame: SettleFrame): void {
  for (const key of frame.keys) {
    const entry = memo.get(key);
    if (entry && --entry.owners <= 0) memo.delete(key);
  }
}

/**
 * Runs `fn` in a transaction of `store`, evaluating outside it the expressions its plan
 * needs and running it again (see the module's notes). Inside another settled transaction
 * it is that one's part: a miss rolls the outer one back.
 */
export async function settledTransaction<T>(
  store: Pick<Store, 'transaction'>,
  fn: (tx: StoreTx) => Promise<T>,
): Promise<T> {
  if (frames.getStore()) return store.transaction(fn);
  const frame: SettleFrame = { keys: new Set() };
  let stalled = 0;
  try {
    for (let round = 1; ; round++) {
      try {
        return await store.transaction((tx) => frames.run(frame, () => fn(tx)));
      } catch (error) {
        if (!(error instanceof ExpressionsPendingError)) throw error;
        const evaluated = await settle(error.requests, frame);
        stalled = evaluated > 0 ? 0 : stalled + 1;
        if (stalled >= STALLED_ROUNDS || round >= MAX_ROUNDS) {
          throw new ExpressionHostError(
            `a step kept needing expressions evaluated (${round} rounds): its data changed on every run`,
            { cause: error },
          );
        }
      }
    }
  } finally {
    release(frame);
  }
}

/** `store`, with every transaction a {@link settledTransaction}. */
export function settlingExpressions(store: Store): Store {
  const transaction: Store['transaction'] = (fn) => settledTransaction(store, fn);
  return overriding(store, { transaction });
}
