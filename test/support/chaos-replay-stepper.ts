/**
 * A single-threaded driver for the duplicate-delivery test. It runs a store's work one
 * delivery at a time, the way a worker would (an engine message: its step and its ack in
 * one transaction; a task message: the handler, then ack + Leg2 in one transaction; when
 * nothing is claimable, the simulated clock moves to the next timer or delayed message),
 * and remembers every delivery it ran, so the test can
 * deliver an exact copy of any of them again later with {@link ReplayStepper.replay}.
 */

import type { SimulatedClock } from '../../src/core/clock.js';
import { GraphEngine, type StepResult } from '../../src/engine/graph-engine.js';
import {
  ENGINE_STREAM,
  type EngineMessage,
  type TaskMessage,
  taskStream,
} from '../../src/engine/messages.js';
import type { Json, StreamMessage } from '../../src/store/records.js';
import type { Store } from '../../src/store/store.js';
import type { TaskHandlers } from '../../src/worker/task-handler.js';
import { runHandler } from './engine-stepper.js';

const CONSUMER = 'replay-stepper';
const LEASE_MS = 60_000;
/** Copies are appended to streams of their own, so claiming one never picks up other pending work. */
const REPLAY_PREFIX = 'replay:';

/** A delivery the stepper ran: the message's stream and payload, exactly as claimed. */
export interface Delivery {
  stream: string;
  payload: Json;
  job: string | null;
}

/** Runs deliveries one at a time and replays copies of them. */
export class ReplayStepper {
  readonly engine: GraphEngine;
  /** Every delivery run so far, in order. */
  readonly deliveries: Delivery[] = [];

  constructor(
    readonly store: Store,
    readonly handlers: TaskHandlers,
    readonly clock: SimulatedClock,
  ) {
    this.engine = new GraphEngine({ clock });
  }

  /** Runs the next delivery (engine first, then tasks, then a due timer); false when idle. */
  async step(): Promise<boolean> {
    const [engine] = await this.store.claim(ENGINE_STREAM, {
      consumer: CONSUMER,
      leaseMs: LEASE_MS,
    });
    if (engine) {
      this.remember(engine);
      await this.runEngine(engine);
      return true;
    }
    for (const name of Object.keys(this.handlers)) {
      const [task] = await this.store.claim(taskStream(name), {
        consumer: CONSUMER,
        leaseMs: LEASE_MS,
      });
      if (!task) continue;
      this.remember(task);
      await this.runTask(task);
      return true;
    }
    // Nothing claimable now: move the clock to the next timer or delayed message (a retry
    // waiting out its backoff), whichever comes first.
    const waits: number[] = [];
    const timer = await this.store.nextTimerAt();
    if (timer !== undefined) waits.push(timer);
    for (const stream of [ENGINE_STREAM, ...Object.keys(this.handlers).map(taskStream)]) {
      for (const m of await this.store.peek(stream, 1000)) waits.push(m.availableAt);
    }
    if (waits.length === 0) return false;
    const next = Math.min(...waits);
    if (next > this.clock.now()) await this.clock.advance(next - this.clock.now());
    await this.store.fireDueTimers(this.clock.now());
    return true;
  }

  /**
   * Delivers an exact copy of `delivery` again: appended to a stream of its own, claimed
   * and run as a worker runs that kind of message. Returns what the engine said.
   */
  async replay(delivery: Delivery): Promise<StepResult> {
    const stream = `${REPLAY_PREFIX}${delivery.stream}`;
    await this.store.append([{ stream, payload: delivery.payload, job: delivery.job }]);
    const [copy] = await this.store.claim(stream, { consumer: CONSUMER, leaseMs: LEASE_MS });
    if (!copy) throw new Error(`the copy appended to ${stream} could not be claimed`);
    return delivery.stream === ENGINE_STREAM ? this.runEngine(copy) : this.runTask(copy);
  }

  private remember(message: StreamMessage): void {
    this.deliveries.push({ stream: message.stream, payload: message.payload, job: message.job });
  }

  private runEngine(message: StreamMessage): Promise<StepResult> {
    return this.store.transaction(async (tx) => {
      const result = await this.engine.handle(tx, message.payload as unknown as EngineMessage);
      await tx.ack(message.stream, message.id, CONSUMER);
      return result;
    });
  }

  private async runTask(message: StreamMessage): Promise<StepResult> {
    const response = await runHandler(
      this.store,
      this.handlers,
      message.payload as unknown as TaskMessage,
    );
    return this.store.transaction(async (tx) => {
      await tx.ack(message.stream, message.id, CONSUMER);
      return this.engine.respond(tx, response);
    });
  }
}
