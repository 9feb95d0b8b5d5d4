/**
 * Claims messages from one engine stream and runs them in batches. The fast path does it
 * all in one transaction — claim a batch, run every message, ack each one — so a batch
 * costs one commit, not a commit for the claim and another for the work, and a crash
 * before the commit leaves the messages as they were. When that transaction fails, the
 * slow path claims again with a lease and runs one transaction per message, so one bad
 * message can't hold the others back. A message that keeps failing is released with a
 * growing delay and its error; its `maxDeliveries`-th failure (or a claim past
 * `maxDeliveries`, when its holders kept dying) moves it to the dead letters and ends its
 * job in FAILURE, in one transaction (see dead-letters.ts).
 */
import { LeaseLostError, toErrorRecord } from '../core/errors.js';
import type { ErrorRecord } from '../store/records.js';
import type { Store, StoreTx, StreamMessage } from '../store/store.js';
import { bury, buryIn, type DeadLetterHandler, isOverdue } from './dead-letters.js';
import { resumeTakenOver } from './resumption.js';
import type { WorkObserver } from './work-observer.js';
import type { WorkerLogger } from './worker-options.js';

/** Runs one message inside a transaction. */
export type MessageHandler = (tx: StoreTx, message: StreamMessage) => Promise<void>;

/**
 * Runs a whole batch of messages inside a transaction, as one unit (set-based reads and
 * writes). The processor acks them all after it, in one statement.
 */
export type BatchHandler = (tx: StoreTx, messages: readonly StreamMessage[]) => Promise<void>;

/** Settings shared by the stream processors of one worker. */
export interface ProcessorSettings {
  store: Store;
  consumer: string;
  leaseMs: number;
  batchSize: number;
  maxDeliveries: number;
  logger: WorkerLogger;
  onCommit?: ((jobs: readonly string[]) => void) | undefined;
  /** Ends the job of a message moved to the dead letters, in the same transaction. */
  onDeadLetter?: DeadLetterHandler | undefined;
  /** The time takeovers are recorded at (epoch ms); Date.now when absent. */
  now?: (() => number) | undefined;
  /** Told of steps committed and task attempts ended (the worker's metrics). */
  observer?: WorkObserver | undefined;
}

/** The settings' clock. */
export function nowOf(settings: ProcessorSettings): number {
  return settings.now ? settings.now() : Date.now();
}

async function runOne(
  tx: StoreTx,
  settings: ProcessorSettings,
  message: StreamMessage,
  handler: MessageHandler,
) {
  await resumeTakenOver(tx, [message], settings.consumer, nowOf(settings));
  await handler(tx, message);
  if (!(await tx.ack(message.stream, message.id, settings.consumer))) {
    throw new LeaseLostError(message.stream, message.id, settings.consumer);
  }
}

/**
 * Work a transaction picks up for this worker as it goes — the task messages its steps
 * append, say, which the worker then runs itself. `FollowUp(tx)` gives the view of the
 * transaction to run messages on; the session is told whether the transaction committed.
 */
export type FollowUp = (tx: StoreTx) => FollowUpSession;

/** Follow-up work picked up inside one transaction: started only when it commits. */
export interface FollowUpSession {
  /** The transaction to run messages on. */
  readonly tx: StoreTx;
  /**
   * Runs last inside the transaction, and must run before it commits: reports the start
   * of the follow-ups it picked up (code-first works tell their instance `onStart`), so
   * that costs no commit of its own, and writes the history lines appended through
   * {@link tx}, all in one statement.
   */
  beforeCommit(): Promise<void>;
  committed(): void;
  rolledBack(): void;
}

function byJob(x: StreamMessage, y: StreamMessage): number {
  return (x.job ?? '').localeCompare(y.job ?? '') || Number(x.id) - Number(y.id);
}

/** Claims and runs one batch; returns how many messages it claimed. */
export async function processBatch(
  settings: ProcessorSettings,
  stream: string,
  handler: MessageHandler,
  followUp?: FollowUp,
  batchHandler?: BatchHandler,
): Promise<number> {
  const { store } = settings;
  // Past maxDeliveries a message is dead-lettered here, not by the claim, so its job ends too.
  const claimOptions = {
    consumer: settings.consumer,
    max: settings.batchSize,
    leaseMs: settings.leaseMs,
  };
  let messages: StreamMessage[] = [];
  let buried: StreamMessage[] = [];
  const sessions: FollowUpSession[] = [];
  try {
    await store.transaction(async (tx) => {
      // A backend that runs the callback again (Redis, on a conflict) rolled the earlier
      // attempt back: its follow-ups give back what they reserved before this one picks.
      for (const s of sessions.splice(0)) s.rolledBack();
      messages = await tx.claim(stream, claimOptions);
      buried = [];
      if (messages.length === 0) return;
      // Lock jobs in one order so concurrent batches can't deadlock.
      messages.sort(byJob);
      const overdue = messages.filter((m) => isOverdue(settings, m));
      for (const m of overdue) await buryIn(tx, settings, m);
      buried = overdue;
      messages = messages.filter((m) => !isOverdue(settings, m));
      if (messages.length === 0) return;
      const session = followUp?.(tx);
      if (session) sessions.push(session);
      const on = session?.tx ?? tx;
      if (batchHandler) {
        await resumeTakenOver(on, messages, settings.consumer, nowOf(settings));
        await batchHandler(on, messages);
        const ids = messages.map((m) => m.id);
        const acked = await on.ackMany(stream, ids, settings.consumer);
        if (acked.length !== ids.length) {
          const lost = ids.find((id) => !acked.includes(id)) as string;
          throw new LeaseLostError(stream, lost, settings.consumer);
        }
      } else {
        for (const message of messages) await runOne(on, settings, message, handler);
      }
      await session?.beforeCommit();
    });
  } catch (error) {
    for (const s of sessions) s.rolledBack();
    // Nothing claimed: the claim itself failed, and the caller's loop reports it.
    if (messages.length === 0 && buried.length === 0) throw error;
    return runOneByOne(settings, stream, handler);
  }
  const claimed = messages.length + buried.length;
  if (claimed === 0) return 0;
  committed(settings, [...buried, ...messages]);
  if (messages.length > 0) settings.observer?.stepsCommitted(messages, nowOf(settings));
  sessions.at(-1)?.committed();
  return claimed;
}

/** The slow path: claims with a lease, then one transaction per message. */
async function runOneByOne(
  settings: ProcessorSettings,
  stream: string,
  handler: MessageHandler,
): Promise<number> {
  const { store } = settings;
  const messages = await store.claim(stream, {
    consumer: settings.consumer,
    max: settings.batchSize,
    leaseMs: settings.leaseMs,
  });
  messages.sort(byJob);
  for (const message of messages) {
    if (isOverdue(settings, message)) {
      await bury(settings, message);
      continue;
    }
    try {
      await store.transaction((tx) => runOne(tx, settings, message, handler));
      committed(settings, [message]);
      settings.observer?.stepsCommitted([message], nowOf(settings));
    } catch (error) {
      await giveBack(settings, message, error);
    }
  }
  return messages.length;
}

function committed(settings: ProcessorSettings, messages: readonly StreamMessage[]) {
  if (!settings.onCommit) return;
  settings.onCommit([
    ...new Set(messages.map((m) => m.job).filter((j): j is string => j !== null)),
  ]);
}

async function giveBack(settings: ProcessorSettings, message: StreamMessage, error: unknown) {
  if (error instanceof LeaseLostError) return;
  const record = toErrorRecord(error) as ErrorRecord;
  settings.logger.error(
    `message ${message.id} on ${message.stream} failed (delivery ${message.deliveries})`,
    record,
  );
  if (message.deliveries >= settings.maxDeliveries) {
    await bury(settings, message, record);
    return;
  }
  const delay = Math.min(30_000, 100 * 2 ** Math.min(message.deliveries, 10));
  try {
    await settings.store.release(message.stream, message.id, settings.consumer, delay, record);
  } catch (releaseError) {
    settings.logger.error('could not release a failed message', toErrorRecord(releaseError));
  }
}
