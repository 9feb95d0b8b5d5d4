/**
 * A worker's presence in the store: what it serves — task names, engine streams,
 * code-first workflows — written when it starts and refreshed every third of the
 * presence window (`WEFT_WORKER_WINDOW_MS`, 30 s by default), and removed when it stops
 * cleanly. A worker that dies stops refreshing, and after a window no longer counts; its
 * row is pruned a day later.
 *
 * With `watch`, each window the worker also looks for task messages that have waited a
 * whole window on a task no live worker serves, and logs a warning naming a job and the
 * task — the misspelt task name or the missing handler that would otherwise leave a job
 * waiting in silence. It repeats one every 5 minutes while it lasts.
 */
import type { Clock } from '../core/clock.js';
import { toErrorRecord } from '../core/errors.js';
import { servedSince, windowWords } from '../models/served-work.js';
import type { ErrorRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { WAITING_COUNT_CAP } from '../store/stream-prefix.js';
import { logWarning, type WorkerLogger } from './worker-options.js';

/** What a worker serves, read at each heartbeat (an agent server's grows as agents register). */
export interface Served {
  tasks: readonly string[];
  streams: readonly string[];
  workflows: readonly string[];
}

/** How a {@link Presence} runs. */
export interface PresenceOptions {
  store: Store;
  /** The worker's consumer id. */
  id: string;
  serves: () => Served;
  /** The presence window, in ms. */
  windowMs: number;
  clock: Clock;
  logger: WorkerLogger;
  /** Look for work waiting on tasks nobody serves, and log it. */
  watch: boolean;
}

/** Rows of workers not heard from for this long are deleted (they died). */
const PRUNE_AFTER_MS = 24 * 3600_000;
/** A task nobody serves is logged again after this long while it lasts. */
const LOG_AGAIN_MS = 5 * 60_000;
/** The prefix of every task stream (`engine/messages.ts` `taskStream`). */
const TASK_PREFIX = 'task:';

/** Heartbeats for one worker, until stopped. */
export class Presence {
  private timer: ReturnType<typeof setInterval> | undefined;
  private beating: Promise<void> | undefined;
  private lastWatch = Number.NEGATIVE_INFINITY;
  private readonly logged = new Map<string, number>();
  private failing = false;

  constructor(private readonly options: PresenceOptions) {}

  /** Records the worker (and prunes long-dead ones), then refreshes it every third of the window. */
  async start(): Promise<void> {
    const { store, clock, windowMs } = this.options;
    await this.beat();
    await store.pruneWorkers(clock.now() - PRUNE_AFTER_MS).catch(() => 0);
    this.timer = setInterval(
      () => {
        this.beating ??= this.tick().finally(() => {
          this.beating = undefined;
        });
      },
      Math.max(50, Math.floor(windowMs / 3)),
    );
    this.timer.unref?.();
  }

  /** Stops refreshing and removes the worker's row (a store that fails to answer is left to the window). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    await this.options.store.removeWorker(this.options.id).catch(() => false);
  }

  private async beat(): Promise<void> {
    const served = this.options.serves();
    await this.options.store.putWorker({
      id: this.options.id,
      tasks: [...served.tasks],
      streams: [...served.streams],
      workflows: [...served.workflows],
      at: this.options.clock.now(),
    });
  }

  private async tick(): Promise<void> {
    try {
      await this.beat();
      const now = this.options.clock.now();
      if (this.options.watch && now - this.lastWatch >= this.options.windowMs) {
        this.lastWatch = now;
        await this.watch(now);
      }
      this.failing = false;
    } catch (error) {
      // The worker's loops report a store that went away; say it once here too.
      if (!this.failing) {
        logWarning(
          this.options.logger,
          'could not refresh this worker’s heartbeat; retrying',
          toErrorRecord(error) as ErrorRecord,
        );
      }
      this.failing = true;
    }
  }

  /** Logs each task stream whose work has waited a whole window with no live worker serving it. */
  private async watch(now: number): Promise<void> {
    const { store, windowMs, logger } = this.options;
    const since = now - windowMs;
    const served = await servedSince(store, since);
    // Served streams are skipped, however long their backlog.
    const skip = [...served.tasks].map((task) => `${TASK_PREFIX}${task}`);
    const waiting = await store.waitingStreams(TASK_PREFIX, since, skip);
    const unserved = new Set(waiting.map((w) => w.stream.slice(TASK_PREFIX.length)));
    for (const task of this.logged.keys()) if (!unserved.has(task)) this.logged.delete(task);
    for (const stream of waiting) {
      const task = stream.stream.slice(TASK_PREFIX.length);
      if (now - (this.logged.get(task) ?? Number.NEGATIVE_INFINITY) < LOG_AGAIN_MS) continue;
      this.logged.set(task, now);
      const job = stream.job ? `job ${stream.job}` : 'a job';
      const count =
        stream.messages >= WAITING_COUNT_CAP ? `${stream.messages} or more` : stream.messages;
      const others = stream.messages > 1 ? ` (${count} messages wait for it)` : '';
      logWarning(
        logger,
        `${job} waits for task ${task} — no worker has served task ${task} in the last ${windowWords(windowMs)}${others}`,
        undefined,
        {
          task,
          ...(stream.job ? { job: stream.job } : {}),
          messages: stream.messages,
          waitingSince: new Date(stream.since).toISOString(),
        },
      );
    }
  }
}
