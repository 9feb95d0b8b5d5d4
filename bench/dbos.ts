/**
 * DBOS Transact beside weft (`npm run bench -- --dbos`): installs `@dbos-inc/dbos-sdk`
 * from the npm registry into a scratch folder outside the package (never into its
 * package.json), copies `dbos/workload.mjs` there and runs it on a fresh database of the
 * bench's PostgreSQL server: scenario 1's workload (workflows of 10 sequential no-op
 * steps, one at a time and 50 at once), with DBOS on its defaults in one process. The
 * figures land in scenario 1's rows, in a column of their own.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchError } from './bench-error.js';
import type { Figure } from './scenario.js';
import { LINEAR_STEPS } from './scenarios/linear-graph.js';
import type { Sizes } from './sizes.js';
import { percentile, perSecond } from './stats.js';

/** The DBOS Transact release the bench installs (the comparison was 5.3). */
export const DBOS_VERSION = '5.3.0';
const PACKAGE = '@dbos-inc/dbos-sdk';
const WORKLOAD = join(fileURLToPath(new URL('.', import.meta.url)), 'dbos', 'workload.mjs');

/** The scratch folder DBOS is installed in unless `--dbos-dir` says otherwise. */
export function defaultDbosDir(): string {
  return join(tmpdir(), 'weft-bench-dbos');
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/**
 * Makes sure `dir` holds DBOS {@link DBOS_VERSION} and the workload script; installs it
 * with npm when it does not. Throws a BenchError saying why when it cannot.
 */
export async function prepareDbos(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const installed = join(dir, 'node_modules', PACKAGE, 'package.json');
  const version = existsSync(installed)
    ? (JSON.parse(readFileSync(installed, 'utf8')) as { version?: string }).version
    : undefined;
  if (version !== DBOS_VERSION) {
    if (!existsSync(join(dir, 'package.json'))) {
      writeFileSync(
        join(dir, 'package.json'),
        `${JSON.stringify({ name: 'weft-bench-dbos', private: true, type: 'module' }, null, 2)}\n`,
      );
    }
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const { code, out } = await run(
      npm,
      ['install', '--no-audit', '--no-fund', `${PACKAGE}@${DBOS_VERSION}`],
      dir,
    );
    if (code !== 0) {
      throw new BenchError(
        'BENCH_DBOS',
        `npm install ${PACKAGE}@${DBOS_VERSION} in ${dir} failed (exit ${code}): ${out.trim().split('\n').slice(-3).join(' ')}`,
      );
    }
  }
  const script = join(dir, 'workload.mjs');
  copyFileSync(WORKLOAD, script);
  return script;
}

interface PhaseResult {
  concurrency: number;
  finished: number;
  elapsedMs: number;
  latenciesMs: number[];
}

/** Runs scenario 1's workload on DBOS against `url` (a fresh database); returns its figures. */
export async function runDbosLinear(
  dir: string,
  url: string,
  sizes: Sizes,
  log: (line: string) => void,
): Promise<Figure[]> {
  const script = await prepareDbos(dir);
  const input = {
    url,
    steps: LINEAR_STEPS,
    warmup: sizes.warmupJobs,
    phases: sizes.throughput,
  };
  const { code, out } = await run(process.execPath, [script, JSON.stringify(input)], dir);
  const results = out
    .split('\n')
    .filter((line) => line.startsWith('WEFT_BENCH_RESULT '))
    .map((line) => JSON.parse(line.slice('WEFT_BENCH_RESULT '.length)) as PhaseResult);
  if (code !== 0 || results.length !== sizes.throughput.length) {
    throw new BenchError(
      'BENCH_DBOS',
      `the DBOS workload failed (exit ${code}): ${out.trim().split('\n').slice(-5).join(' ')}`,
    );
  }
  const figures: Figure[] = [];
  for (const r of results) {
    const jobsPerSecond = perSecond(r.finished, r.elapsedMs);
    log(`DBOS c=${r.concurrency}: ${r.finished} workflows in ${(r.elapsedMs / 1000).toFixed(1)} s`);
    const c = r.concurrency;
    figures.push(
      { key: `c${c}.jobs`, label: `c=${c}`, value: jobsPerSecond, unit: 'jobs/s' },
      {
        key: `c${c}.steps`,
        label: `c=${c}`,
        value: jobsPerSecond * LINEAR_STEPS,
        unit: 'steps/s',
        ratio: c === 1 ? 'sequential' : 'parallel',
      },
    );
    if (c === 1) {
      figures.push({
        key: 'c1.p50',
        label: 'c=1 p50 of a job',
        value: percentile(r.latenciesMs, 50),
        unit: 'ms',
        digits: 2,
      });
    }
  }
  return figures;
}
