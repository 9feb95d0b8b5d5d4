/**
 * DBOS Transact beside weft (`npm run bench -- --dbos`): `@dbos-inc/dbos-sdk` installed
 * into a scratch folder (`external-workload.ts`) and `dbos/workload.mjs` run there on a
 * fresh database of the bench's PostgreSQL server: scenario 1's workload (workflows of 10
 * sequential no-op steps, one at a time and 50 at once), with DBOS on its defaults in one
 * process. The figures land in scenario 1's rows, in a column of their own.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ExternalSystem, runExternalLinear } from './external-workload.js';
import type { Figure } from './scenario.js';
import type { Sizes } from './sizes.js';

/** The DBOS Transact release the bench installs (the comparison was 5.3). */
export const DBOS_VERSION = '5.3.0';

const DBOS: ExternalSystem = {
  name: 'DBOS',
  code: 'BENCH_DBOS',
  package: '@dbos-inc/dbos-sdk',
  version: DBOS_VERSION,
  workload: join(fileURLToPath(new URL('.', import.meta.url)), 'dbos', 'workload.mjs'),
};

/** The scratch folder DBOS is installed in unless `--dbos-dir` says otherwise. */
export function defaultDbosDir(): string {
  return join(tmpdir(), 'weft-bench-dbos');
}

/** Runs scenario 1's workload on DBOS against `url` (a fresh database); returns its figures. */
export function runDbosLinear(
  dir: string,
  url: string,
  sizes: Sizes,
  log: (line: string) => void,
): Promise<Figure[]> {
  return runExternalLinear(DBOS, dir, { url }, sizes, log);
}
