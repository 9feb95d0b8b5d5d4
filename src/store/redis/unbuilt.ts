/**
 * The Store operations the Redis store does not implement yet (phase 1 of issue 23,
 * docs/store-redis.md, section 7). Each one throws {@link NotImplementedError} naming
 * itself, never a silent stub. The list is checked by the compiler: it must name exactly
 * the operations `RedisOps` lacks.
 */
import { NotImplementedError } from '../../core/errors.js';
import type { StoreTx } from '../store.js';
import type { RedisOps } from './redis-ops.js';

/** The names of the operations not built yet. */
export type UnbuiltOperation = Exclude<keyof StoreTx, keyof RedisOps>;

const UNBUILT: Record<UnbuiltOperation, true> = {
  pruneJobs: true,
};

/** The operations not built yet, by name. */
export const UNBUILT_OPERATIONS: readonly UnbuiltOperation[] = Object.keys(
  UNBUILT,
) as UnbuiltOperation[];

/** A method for each operation not built yet, each rejecting with NotImplementedError. */
export function unbuiltOperations(): Record<UnbuiltOperation, () => Promise<never>> {
  const out = {} as Record<UnbuiltOperation, () => Promise<never>>;
  for (const name of UNBUILT_OPERATIONS) {
    out[name] = () => Promise.reject(new NotImplementedError(name, 'redis'));
  }
  return out;
}
