/**
 * The SQLite migrations, in order. Each is a TS module exporting its SQL, so `tsc` ships
 * them in `dist/`. Add a migration as a new numbered file and list it here; never edit
 * one that has shipped.
 */
import { initial } from './0001-initial.js';
import { activityTimes } from './0002-activity-times.js';
import { messageErrors } from './0003-message-errors.js';
import { instanceJournal } from './0005-instance-journal.js';

/** One numbered schema change. */
export interface Migration {
  /** 1, 2, 3…: applied in this order, each once. */
  version: number;
  /** A short name, recorded in `weft_migrations`. */
  name: string;
  /** The statements, run in one transaction. */
  sql: string;
}

/** Every SQLite migration, oldest first. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  initial,
  activityTimes,
  messageErrors,
  instanceJournal,
];
