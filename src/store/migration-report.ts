/**
 * What a backend's migration step found and did when a store opened.
 */

/** What opening found and did. */
export interface MigrationReport {
  /** The schema version before. */
  from: number;
  /** The schema version now. */
  to: number;
  applied: string[];
}
