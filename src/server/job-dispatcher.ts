/**
 * The job endpoint's logic (the seed's `/env/{envId}/lang/{lang}/job`): claim the next
 * decision or task an agent can run, decisions first (each kind rotating over its
 * streams, so one busy stream cannot starve the others), or answer `{ action: 'None' }`.
 * With a wait, an empty answer is held back until a store notice says one of the streams
 * may have work (or every `pollMs`, for leases that ran out, which send no notice).
 */
import type { AgentRegistry, AgentSource, SourceFilter } from './agent-registry.js';
import type { DecisionDesk, DecisionOffer } from './decision-desk.js';
import type { TaskDesk, TaskOffer } from './task-desk.js';

/** What the job endpoint answers. */
export type JobAnswer = DecisionOffer | TaskOffer | { action: 'None' };

/** Hands out decisions and tasks. */
export class JobDispatcher {
  private readonly rotation = { decision: 0, task: 0 };

  constructor(
    private readonly registry: AgentRegistry,
    private readonly decisions: DecisionDesk,
    private readonly tasks: TaskDesk,
    /** Longest a waiting request sleeps without a notice before looking again. */
    private readonly pollMs: number,
  ) {}

  /**
   * The next decision or task among `filter`'s sources; waits up to `waitMs` (real time)
   * for one, or until `signal` aborts (the client went away, the server is closing).
   */
  async next(filter: SourceFilter, waitMs: number, signal: AbortSignal): Promise<JobAnswer> {
    const deadline = performance.now() + waitMs;
    for (;;) {
      if (signal.aborted) return { action: 'None' };
      const offer = await this.once(filter);
      if (offer) return offer;
      const left = deadline - performance.now();
      if (left <= 0) return { action: 'None' };
      await this.sleep(Math.min(left, this.pollMs), signal);
    }
  }

  private async once(filter: SourceFilter): Promise<JobAnswer | null> {
    const sources = this.registry.sources(filter);
    for (const kind of ['decision', 'task'] as const) {
      const list = sources.filter((s) => s.kind === kind);
      const start = this.rotation[kind] % Math.max(1, list.length);
      for (let i = 0; i < list.length; i++) {
        const source = list[(start + i) % list.length] as AgentSource;
        const offer =
          kind === 'decision'
            ? await this.decisions.claim(source.stream)
            : await this.tasks.claim(source.stream);
        if (offer) {
          this.rotation[kind] = start + i + 1;
          return offer;
        }
      }
    }
    return null;
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.registry.wake.wait(ms).then(done, done);
    });
  }
}
