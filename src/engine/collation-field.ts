/**
 * The job-level counter holding a graph job's collation key: the engine adds to it as
 * activities move, and a job's view reads it, with nothing else of the engine loaded.
 */
export const COLLATION_FIELD = 'collation';
