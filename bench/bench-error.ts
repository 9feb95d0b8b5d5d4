/**
 * The benchmark harness's own error: a scenario that could not measure (a job that
 * failed, a server that would not start, a worker process that died).
 */
import { WeftError } from '../src/core/errors.js';

/** Something the harness itself could not do; `code` says what. */
export class BenchError extends WeftError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
