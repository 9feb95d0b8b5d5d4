/**
 * Claims messages from one engine stream and runs them in batches: a whole batch in one
 * transaction (one commit for many jobs' steps), falling back to one transaction per
 * message when the batch fails, so one bad message can't hold the others back. A
 * message that keeps failing is released with a growing delay and, after
 * `maxDeliveries`, moved to the dead-letter stream by the store.
 */
import { LeaseLostError, toErrorRecord } from '../core/errors.js';
import type { Store, StoreTx, StreamMessage } from '../store/store.js';
import type { WorkerLogger } from './worker-options.js';

/** Runs one message inside a transaction. */
export type MessageHandler = (tx: StoreTx, message: StreamMessage) => Promise<void>;

/** Settings shared by the stream processors of one worker. */
export interface ProcessorSettings {
  store: Store;
  consumer: string;
  leaseMs: number;
  batchSize: number;
  maxDeliveries: number;
  logger: WorkerLogger;
  onCommit?: ((jobs: readonly string[]) => void) | undefined;
}

async function runOne(
  tx: StoreTx,
  settings: ProcessorSettings,
  message: StreamMessage,
  handler: MessageHandler,
) {
  await handler(tx, message);
  if (!(await tx.ack(message.stream, message.id, settings.consumer))) {
    throw new LeaseLostError(message.stream, message.id, settings.consumer);
  }
}

/** Claims and runs one batch; returns how many messages it claimed. */
export async function processBatch(
  settings: ProcessorSettings,
  stream: string,
  handler: MessageHandler,
): Promise<number> {
  const { store } = settings;
  const messages = await store.claim(stream, {
    consumer: settings.consumer,
    max: settings.batchSize,
    leaseMs: settings.leaseMs,
    maxDeliveries: settings.maxDeliveries,
  });
  if (messages.length === 0) return 0;
  // Lock jobs in one order so concurrent batches can't deadlock.
  messages.sort((x, y) => (x.job ?? '').localeCompare(y.job ?? '') || Number(x.id) - Number(y.id));
  try {
    await store.transaction(async (tx) => {
      for (const message of messages) await runOne(tx, settings, message, handler);
    });
    committed(settings, messages);
    return messages.length;
  } catch (error) {
    if (messages.length === 1) {
      await giveBack(settings, messages[0] as StreamMessage, error);
      return 1;
    }
  }
  for (const message of messages) {
    try {
      await store.transaction((tx) => runOne(tx, settings, message, handler));
      committed(settings, [message]);
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
  settings.logger.error(
    `message ${message.id} on ${message.stream} failed (delivery ${message.deliveries})`,
    toErrorRecord(error),
  );
  const delay = Math.min(30_000, 100 * 2 ** Math.min(message.deliveries, 10));
  try {
    await settings.store.release(message.stream, message.id, settings.consumer, delay);
  } catch (releaseError) {
    settings.logger.error('could not release a failed message', toErrorRecord(releaseError));
  }
}
