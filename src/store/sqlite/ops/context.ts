/**
 * What every group of SQLite operations shares: the connection, the clock, and a place
 * to leave notices that are published after the surrounding transaction commits. Also
 * the JSON helpers the groups use to read and write JSON columns.
 */
import type Database from 'better-sqlite3';
import type { Clock } from '../../../core/clock.js';
import type { Json } from '../../records.js';
import type { Db } from '../connection.js';

/** A prepared statement. */
export type Statement = Database.Statement;

/** Shared by the operation groups of one store. */
export interface OpsContext {
  db: Db;
  clock: Clock;
  /** Queues a notice key (`stream:<name>`, `job:<id>`) for after commit. */
  notify(key: string): void;
}

/** JSON text for a column (`undefined` is stored as `null`). */
export function toJson(value: Json | undefined): string {
  return JSON.stringify(value ?? null);
}

/** Parses a JSON column. */
export function fromJson<T = Json>(text: string): T {
  return JSON.parse(text) as T;
}

/** Parses a nullable JSON column. */
export function fromJsonOrNull<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
