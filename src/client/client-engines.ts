/**
 * What a {@link Client} loads when a method first needs an engine: starting, cancelling,
 * pausing, resuming or rerunning a job, sending an event, firing a schedule, requeueing
 * a dead letter. Both engines come with their kinds' schemas and the expression
 * language, most of what a `weft` process loads; a client that only reads jobs
 * (`status`, `list`, `result`, `history`) or deploys never loads them.
 */
import type { Clock } from '../core/clock.js';
import { DurableEngine } from '../durable/durable-engine.js';
import { GraphEngine } from '../engine/graph-engine.js';
import { Models } from '../models/models.js';

export { settledTransaction } from '../engine/expression-plan.js';
export { rerunGraphJob } from '../engine/rerun-job.js';

/** The runtimes of a client's jobs, over engines of its own. */
export function clientModels(clock: Clock): Models {
  return new Models({
    graph: new GraphEngine({ clock }),
    durable: new DurableEngine({ clock }),
  });
}
