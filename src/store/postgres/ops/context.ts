/**
 * What every group of PostgreSQL operations shares: a {@link Db} to run named prepared
 * statements on (one pooled client inside a transaction, the pool for a direct call), the
 * clock, and a set of notice keys published in this process after the commit. Also the
 * JSON helpers the groups use.
 */
import type { Clock } from '../../../core/clock.js';
import type { Json } from '../../records.js';

/** A named prepared statement: PostgreSQL parses and plans it once per connection. */
export interface Statement {
  name: string;
  text: string;
}

/** Something that runs statements: a pooled client or the pool. */
export interface Queryable {
  query<R>(config: {
    name: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** Where one operation runs. */
export interface Db {
  /** Runs a named statement and returns its rows. */
  rows<R>(statement: Statement, values: unknown[]): Promise<R[]>;
  /** Runs a named statement and returns how many rows it touched. */
  count(statement: Statement, values: unknown[]): Promise<number>;
  /** Queues a notice key (`stream:<name>`, `job:<id>`) for this process, after commit. */
  notify(key: string): void;
  readonly clock: Clock;
}

/**
 * Makes a {@link Db} over a client or pool, collecting notices into `notices`; `wrap`
 * turns a driver failure into a typed error.
 */
export function createDb(
  q: Queryable,
  clock: Clock,
  notices: Set<string>,
  wrap: (error: unknown) => unknown,
): Db {
  const run = async <R>(statement: Statement, values: unknown[]) => {
    try {
      return await q.query<R>({ name: statement.name, text: statement.text, values });
    } catch (error) {
      throw wrap(error);
    }
  };
  return {
    clock,
    async rows<R>(statement: Statement, values: unknown[]): Promise<R[]> {
      return (await run<R>(statement, values)).rows;
    },
    async count(statement: Statement, values: unknown[]): Promise<number> {
      return (await run(statement, values)).rowCount ?? 0;
    },
    notify(key: string) {
      notices.add(key);
    },
  };
}

/** Declares a statement; `name` must be unique across the backend. */
export function sql(name: string, text: string): Statement {
  return { name: `weft_${name}`, text };
}

/** JSON text for a json column (`undefined` is stored as `null`). */
export function toJson(value: Json | undefined): string {
  return JSON.stringify(value ?? null);
}

/** A time or duration for a `bigint` column: whole milliseconds. */
export function ms(value: number): number {
  return Math.round(value);
}

/** A message id as a bigint row id (in text), or undefined when it cannot be one. */
export function toRowId(id: string): string | undefined {
  return /^[1-9][0-9]{0,17}$/.test(id) ? id : undefined;
}
