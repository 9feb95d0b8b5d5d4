/**
 * The PostgreSQL migrations, in order. Each is a TS module exporting its SQL, so `tsc`
 * ships them in `dist/`. Add a migration as a new numbered file and list it here; never
 * edit one that has shipped.
 */
import type { Migration } from '../../migration-plan.js';
import { initial } from './0001-initial.js';
import { activityTimes } from './0002-activity-times.js';
import { messageErrors } from './0003-message-errors.js';
import { history } from './0004-history.js';
import { instanceJournal } from './0005-instance-journal.js';
import { newestActivity } from './0006-newest-activity.js';
import { threadIndex } from './0007-thread-index.js';
import { workers } from './0008-workers.js';
import { newestPartial } from './0009-newest-partial.js';
import { schedules } from './0010-schedules.js';
import { queues } from './0011-queues.js';
import { idempotency } from './0012-idempotency.js';
import { debounce } from './0013-debounce.js';
import { queueLimits } from './0014-queue-limits.js';
import { taskQueues } from './0015-task-queues.js';
import { retention } from './0016-retention.js';
import { traceContext } from './0017-trace-context.js';

/** Every PostgreSQL migration, oldest first. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  initial,
  activityTimes,
  messageErrors,
  history,
  instanceJournal,
  newestActivity,
  threadIndex,
  workers,
  newestPartial,
  schedules,
  queues,
  idempotency,
  debounce,
  queueLimits,
  taskQueues,
  retention,
  traceContext,
];
