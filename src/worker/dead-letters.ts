/**
 * Dead letters and the jobs they belong to. A message that failed every delivery it is
 * allowed (`maxDeliveries`) — its step kept throwing, or the worker holding it kept
 * dying — is moved to the dead letters by the worker that holds it, and in the same
 * transaction its job ends in FAILURE with a {@link DeadLetterError} naming the message
 * and the error it last failed with. Nothing is left RUNNING with no message to move it.
 * Requeueing the dead letter (`weft dead-letters requeue <id>`) reopens the job.
 */
import { DeadLetterError, LeaseLostError, toErrorRecord } from '../core/errors.js';
import type { Models } from '../models/models.js';
import type { DeadLetter, ErrorRecord } from '../store/records.js';
import type { Store, StoreTx, StreamMessage } from '../store/store.js';
import type { WorkerLogger } from './worker-options.js';

/** Told of each message moved to the dead letters, in the transaction that moved it. */
export type DeadLetterHandler = (tx: StoreTx, dead: DeadLetter) => Promise<unknown>;

/** What burying a message needs. */
export interface BurySettings {
  store: Store;
  consumer: string;
  maxDeliveries: number;
  logger: WorkerLogger;
  onDeadLetter?: DeadLetterHandler | undefined;
}

/** The job error of a dead letter. */
export function deadLetterError(dead: DeadLetter): ErrorRecord {
  const payload = dead.payload as { a?: unknown; uuid?: unknown } | null;
  const activity =
    typeof payload?.a === 'string'
      ? payload.a
      : typeof payload?.uuid === 'string'
        ? payload.uuid
        : undefined;
  const error = new DeadLetterError(
    dead.id,
    dead.stream,
    dead.deliveries,
    dead.lastError,
    activity,
  );
  return error.toJSON() as ErrorRecord;
}

/** Ends a dead letter's job in FAILURE at once; false when it has none still running. */
export async function endDeadLetteredJob(
  tx: StoreTx,
  models: Models,
  dead: DeadLetter,
): Promise<boolean> {
  if (!dead.job) return false;
  return models.ofDeadLetter(dead).endDeadLettered(tx, dead.job, dead, deadLetterError(dead));
}

/**
 * Reopens the job a dead letter ended, before the message is requeued; false when the
 * job did not end because of this dead letter (then only the message is requeued).
 */
export async function reopenDeadLetteredJob(
  tx: StoreTx,
  models: Models,
  dead: DeadLetter,
): Promise<boolean> {
  if (!dead.job) return false;
  return models.ofDeadLetter(dead).reopenDeadLettered(tx, dead.job, dead);
}

/**
 * True when a claimed message was already delivered as often as allowed before this
 * claim: it is not run again but dead-lettered (its earlier holders died with it).
 */
export function isOverdue(settings: BurySettings, message: StreamMessage): boolean {
  return message.deliveries > settings.maxDeliveries;
}

function reason(settings: BurySettings, message: StreamMessage): string {
  return `delivered ${message.deliveries} times; maxDeliveries is ${settings.maxDeliveries}`;
}

/** Moves a held message to the dead letters and ends its job, in `tx`. */
export async function buryIn(
  tx: StoreTx,
  settings: BurySettings,
  message: StreamMessage,
  lastError?: ErrorRecord,
): Promise<DeadLetter | undefined> {
  const why = reason(settings, message);
  const dead = await tx.deadLetter(message.stream, message.id, settings.consumer, why, lastError);
  if (!dead) return undefined;
  if (settings.onDeadLetter) await settings.onDeadLetter(tx, dead);
  return dead;
}

/**
 * Moves a held message to the dead letters and ends its job, in a transaction of its
 * own, and logs it. When ending the job fails, the message is still dead-lettered.
 */
export async function bury(
  settings: BurySettings,
  message: StreamMessage,
  lastError?: ErrorRecord,
): Promise<void> {
  const fields = { stream: message.stream, ...(message.job ? { job: message.job } : {}) };
  try {
    const dead = await settings.store.transaction((tx) => buryIn(tx, settings, message, lastError));
    if (dead) {
      settings.logger.error(
        `message ${message.id} dead-lettered${message.job ? `; job ${message.job} ended FAILURE` : ''}`,
        deadLetterError(dead),
        fields,
      );
    }
  } catch (error) {
    if (error instanceof LeaseLostError) return;
    settings.logger.error(
      `could not end the job of dead-lettered message ${message.id}`,
      toErrorRecord(error) as ErrorRecord,
      fields,
    );
    await settings.store
      .deadLetter(
        message.stream,
        message.id,
        settings.consumer,
        reason(settings, message),
        lastError,
      )
      .catch((e: unknown) =>
        settings.logger.error(
          `could not dead-letter message ${message.id}`,
          toErrorRecord(e) as ErrorRecord,
          fields,
        ),
      );
  }
}
