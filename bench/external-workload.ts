/**
 * Another system beside weft (`dbos.ts`, `bullmq.ts`): its package installed from the npm
 * registry into a scratch folder outside weft's package (never into its package.json; an
 * installed copy of the right version is reused), a workload script copied there and run
 * with Node, and scenario 1's figures read from the `WEFT_BENCH_RESULT <json>` lines it
 * prints, one per phase (lanes of 1, then 50, each running a 10-step job after another).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { BenchError } from './bench-error.js';
import type { Figure } from './scenario.js';
import { LINEAR_STEPS } from './scenarios/linear-graph.js';
import type { Sizes } from './sizes.js';
import { percentile, perSecond } from './stats.js';

/** A package to install and the workload that drives it. */
export interface ExternalSystem {
  /** For messages and the log: "DBOS", "BullMQ". */
  name: string;
  /** The BenchError code of its failures. */
  code: string;
  package: string;
  version: string;
  /** Other packages the workload imports (`name@version`), installed beside it. */
  also?: string[];
  /** The workload script (an .mjs file in bench/), copied next to the installed package. */
  workload: string;
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
 * Makes sure `dir` holds the system's package at its version and the workload script;
 * installs it with npm when it does not. Throws a BenchError saying why when it cannot.
 */
export async function prepareExternal(system: ExternalSystem, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const installed = join(dir, 'node_modules', system.package, 'package.json');
  const version = existsSync(installed)
    ? (JSON.parse(readFileSync(installed, 'utf8')) as { version?: string }).version
    : undefined;
  const missing = (system.also ?? []).some((spec) => {
    const at = spec.lastIndexOf('@');
    const file = join(dir, 'node_modules', spec.slice(0, at), 'package.json');
    return !existsSync(file);
  });
  if (version !== system.version || missing) {
    if (!existsSync(join(dir, 'package.json'))) {
      writeFileSync(
        join(dir, 'package.json'),
        `${JSON.stringify({ name: `weft-bench-${basename(dir)}`, private: true, type: 'module' }, null, 2)}\n`,
      );
    }
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const spec = `${system.package}@${system.version}`;
    const { code, out } = await run(
      npm,
      ['install', '--no-audit', '--no-fund', spec, ...(system.also ?? [])],
      dir,
    );
    if (code !== 0) {
      throw new BenchError(
        system.code,
        `npm install ${spec} in ${dir} failed (exit ${code}): ${out.trim().split('\n').slice(-3).join(' ')}`,
      );
    }
  }
  const script = join(dir, basename(system.workload));
  copyFileSync(system.workload, script);
  return script;
}

interface PhaseResult {
  concurrency: number;
  finished: number;
  elapsedMs: number;
  latenciesMs: number[];
}

/**
 * Runs scenario 1's workload of `system` with `connection` (its server's URL) and returns
 * scenario 1's figures: jobs/s and steps/s per phase, the p50 of a job at c=1.
 */
export async function runExternalLinear(
  system: ExternalSystem,
  dir: string,
  connection: Record<string, unknown>,
  sizes: Sizes,
  log: (line: string) => void,
): Promise<Figure[]> {
  const script = await prepareExternal(system, dir);
  const input = {
    ...connection,
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
      system.code,
      `the ${system.name} workload failed (exit ${code}): ${out.trim().split('\n').slice(-5).join(' ')}`,
    );
  }
  const figures: Figure[] = [];
  for (const r of results) {
    const jobsPerSecond = perSecond(r.finished, r.elapsedMs);
    log(
      `${system.name} c=${r.concurrency}: ${r.finished} jobs in ${(r.elapsedMs / 1000).toFixed(1)} s`,
    );
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
