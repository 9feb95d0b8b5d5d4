/**
 * The clocks one task attempt runs under, as its message carries them: its start-to-close
 * timeout (`timeoutMs`), the schedule-to-close deadline of all its attempts (`deadline`,
 * which cuts the attempt short when it comes first) and its heartbeat timeout (the
 * longest it may go without `ctx.heartbeat()`). The first to pass aborts the attempt with
 * a {@link TimeoutError} naming it; the attempt is then a failed one, retried by its
 * policy (a deadline leaves no time for another).
 */
import { TimeoutError } from '../core/errors.js';
import type { TaskMessage } from '../engine/messages.js';

/** Watches one running attempt. */
export class AttemptWatch {
  /** Rejects with the {@link TimeoutError} of the first limit to pass; never resolves. */
  readonly expired: Promise<never>;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];
  private heartbeatTimer: ReturnType<typeof setTimeout> | undefined;
  private fail: (error: TimeoutError) => void = () => {};
  private done = false;

  constructor(
    private readonly task: TaskMessage,
    controller: AbortController,
    /** Now, epoch ms (the worker's clock), to read the deadline against. */
    now: number,
  ) {
    this.expired = new Promise<never>((_, reject) => {
      this.fail = (error) => {
        if (this.done) return;
        this.stop();
        controller.abort(error);
        reject(error);
      };
    });
    // Nobody may be listening yet (the deadline already passed, say): no unhandled rejection.
    this.expired.catch(() => {});
    const { timeoutMs, deadline } = task;
    const left = deadline === undefined ? undefined : deadline - now;
    if (left !== undefined && (timeoutMs === undefined || left < timeoutMs)) {
      this.after(Math.max(0, left), () => this.deadlineError());
    } else if (timeoutMs !== undefined) {
      this.after(timeoutMs, () =>
        this.error(`timed out after ${timeoutMs} ms (its timeout)`, 'start_to_close'),
      );
    }
    this.heartbeat();
  }

  /**
   * The error of an attempt whose deadline passed before it started (it waited for a
   * worker that long): it fails at once, without running.
   */
  static late(task: TaskMessage, now: number): TimeoutError | undefined {
    if (task.deadline === undefined || now < task.deadline) return undefined;
    return new TimeoutError(
      `task ${task.task} attempt ${task.attempt} did not start before its schedule_to_close deadline (${new Date(task.deadline).toISOString()})`,
      'schedule_to_close',
    );
  }

  /** The handler is alive: its heartbeat timeout starts over. */
  heartbeat(): void {
    const ms = this.task.heartbeatTimeoutMs;
    if (ms === undefined || this.done) return;
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = setTimeout(
      () =>
        this.fail(
          this.error(`sent no heartbeat for ${ms} ms (its heartbeat_timeout)`, 'heartbeat'),
        ),
      ms,
    );
    this.heartbeatTimer.unref?.();
  }

  /** The attempt ended: its clocks stop. */
  stop(): void {
    this.done = true;
    for (const timer of this.timers) clearTimeout(timer);
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
  }

  private after(ms: number, make: () => TimeoutError): void {
    const timer = setTimeout(() => this.fail(make()), ms);
    timer.unref?.();
    this.timers.push(timer);
  }

  private error(what: string, kind: 'start_to_close' | 'heartbeat'): TimeoutError {
    return new TimeoutError(`task ${this.task.task} attempt ${this.task.attempt} ${what}`, kind);
  }

  private deadlineError(): TimeoutError {
    return new TimeoutError(
      `task ${this.task.task} attempt ${this.task.attempt} was cut at its schedule_to_close deadline (${new Date(this.task.deadline as number).toISOString()})`,
      'schedule_to_close',
    );
  }
}
