/**
 * Where the `redis-server` binary is: `WEFT_REDIS_SERVER` when set, else the first on
 * PATH. Read by the vitest config (whether the `redis` project runs) and by the Redis test
 * harness (which server it starts), so both agree.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The `redis-server` to start, or undefined when there is none. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.WEFT_REDIS_SERVER;
  if (named) return executable(named) ? named : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir || '.', 'redis-server');
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
