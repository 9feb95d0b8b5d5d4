/**
 * `npm run bench`: runs every scenario on the embedded SQLite store and on PostgreSQL
 * with 1 and 4 worker processes, with a baseline of raw durable writes measured in the
 * same run on the same store, prints a table and rewrites BENCHMARKS.md.
 *
 *   tsx bench/run.ts [--quick] [--runs N] [--only linear,latency] [--targets sqlite,pg]
 *                    [--dbos [--dbos-dir DIR]] [--postgres-url URL] [--redis-url URL]
 *                    [--out FILE] [--no-write]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import {
  type BaselineResult,
  postgresBaseline,
  redisBaseline,
  type SqliteSettings,
  sqliteBaseline,
} from './baseline.js';
import { BenchError } from './bench-error.js';
import { defaultBullmqDir, runBullmqLinear } from './bullmq.js';
import { defaultDbosDir, runDbosLinear } from './dbos.js';
import { describeMachine, loadAverage } from './machine.js';
import { type BenchPostgres, startBenchPostgres } from './postgres-server.js';
import { startBenchRedisCluster } from './redis-cluster.js';
import { type BenchRedis, startBenchRedis } from './redis-server.js';
import { renderMarkdown } from './report-markdown.js';
import { renderTable } from './report-table.js';
import { ResultSet } from './results.js';
import type { Scenario } from './scenario.js';
import { SCENARIOS } from './scenarios/index.js';
import { FULL_SIZES, QUICK_SIZES, type Sizes } from './sizes.js';
import {
  type BenchEnv,
  DEFAULT_TARGETS,
  redisOf,
  startTarget,
  TARGET_NAMES,
  TARGETS,
  type TargetName,
  TUNED_SETTINGS,
  workerPoolOf,
} from './targets.js';

interface CliOptions {
  quick?: boolean;
  dbos?: boolean;
  dbosDir?: string;
  runs?: string;
  only?: string;
  targets?: string;
  postgresUrl?: string;
  redisUrl?: string;
  out: string;
  write: boolean;
}

function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

function parseList<T extends string>(
  text: string | undefined,
  allowed: readonly T[],
  what: string,
): T[] | undefined {
  if (text === undefined) return undefined;
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!allowed.includes(item as T)) {
      throw new BenchError(
        'BENCH_USAGE',
        `unknown ${what} ${JSON.stringify(item)}; use ${allowed.join(', ')}`,
      );
    }
  }
  return items as T[];
}

/** How the run was asked for, without the options that only say where the report goes. */
function commandLine(args: string[]): string {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--no-write' || arg.startsWith('--out=')) continue;
    if (arg === '--out') {
      i++;
      continue;
    }
    kept.push(arg);
  }
  return `npm run bench${kept.length ? ` -- ${kept.join(' ')}` : ''}`;
}

async function measureBaseline(
  target: TargetName,
  env: BenchEnv,
  sizes: Sizes,
  rep: number,
): Promise<{ result: BaselineResult; sqlite?: SqliteSettings }> {
  const spec = TARGETS[target];
  if (spec.dialect === 'sqlite') {
    const { result, settings } = sqliteBaseline(
      join(env.dir, `baseline-${target}-${rep}.db`),
      sizes.baselineMs,
    );
    return { result, sqlite: settings };
  }
  const connections = Math.max(1, spec.processes) * workerPoolOf(spec, env.settings);
  if (spec.dialect === 'redis') {
    const url = await redisOf(spec, env).createDatabase(`baseline_${target}_${rep}`);
    return { result: await redisBaseline(url, connections, sizes.baselineMs) };
  }
  if (!env.postgres) throw new BenchError('BENCH_PG', 'no PostgreSQL server');
  const url = await env.postgres.createDatabase(
    `bench_baseline_${target.replace('-', '_')}_${rep}`,
  );
  return { result: await postgresBaseline(url, connections, sizes.baselineMs) };
}

async function runScenario(
  scenario: Scenario,
  target: TargetName,
  env: BenchEnv,
  sizes: Sizes,
  rep: number,
  results: ResultSet,
  baseline: BaselineResult | undefined,
): Promise<void> {
  const label = `bench_${scenario.id.replace('-', '_')}_${target.replace('-', '_')}_${rep}`;
  log(`${scenario.number}. ${scenario.title} on ${TARGETS[target].title} (repetition ${rep + 1})`);
  let running: Awaited<ReturnType<typeof startTarget>> | undefined;
  try {
    running = await startTarget(TARGETS[target], env, label);
    const figures = await scenario.run({
      target: running,
      sizes,
      log: (line) => log(`  ${line}`),
    });
    results.addFigures(scenario, target, figures, baseline);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`  failed: ${message}`);
    results.addError(scenario, target, message);
  } finally {
    await running?.stop().catch((error) => log(`  stopping failed: ${String(error)}`));
  }
}

/**
 * Scenario 1 on another system (the `dbos` target: DBOS Transact on a fresh database of the
 * same PostgreSQL server; `bullmq`: BullMQ on a fresh database of the same Redis server).
 */
async function runExternal(
  target: 'dbos' | 'bullmq',
  env: BenchEnv,
  options: CliOptions,
  sizes: Sizes,
  rep: number,
  results: ResultSet,
  baseline: BaselineResult | undefined,
): Promise<void> {
  const scenario = results.scenarios.find((s) => s.id === 'linear');
  if (!scenario) return;
  log(`${scenario.number}. ${scenario.title} on ${TARGETS[target].title} (repetition ${rep + 1})`);
  const say = (line: string) => log(`  ${line}`);
  try {
    let figures: Awaited<ReturnType<typeof runDbosLinear>>;
    if (target === 'dbos') {
      if (!env.postgres) throw new BenchError('BENCH_PG', 'no PostgreSQL server for this run');
      const url = await env.postgres.createDatabase(`bench_dbos_${rep}`);
      figures = await runDbosLinear(options.dbosDir ?? defaultDbosDir(), url, sizes, say);
    } else {
      if (!env.redis) throw new BenchError('BENCH_REDIS', 'no Redis server for this run');
      const url = await env.redis.createDatabase(`bench_bullmq_${rep}`);
      figures = await runBullmqLinear(defaultBullmqDir(), url, sizes, say);
    }
    results.addFigures(scenario, target, figures, baseline);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`  failed: ${message}`);
    results.addError(scenario, target, message);
  }
}

/** The targets asked for, with `dbos` after the PostgreSQL columns on defaults when `--dbos`. */
function chosenTargets(options: CliOptions): TargetName[] {
  const targets = parseList(options.targets, TARGET_NAMES, 'target') ?? [...DEFAULT_TARGETS];
  if (!options.dbos || targets.includes('dbos')) return targets;
  const at = targets.indexOf('pg');
  if (at < 0) return [...targets, 'dbos'];
  return [...targets.slice(0, at + 1), 'dbos', ...targets.slice(at + 1)];
}

async function main(): Promise<void> {
  const program = new Command('bench')
    .description('weft benchmarks: prints a table and rewrites BENCHMARKS.md')
    .option('--quick', 'small counts, one repetition')
    .option('--runs <n>', 'repetitions (default 3, --quick 1)')
    .option('--only <ids>', `comma-separated scenarios: ${SCENARIOS.map((s) => s.id).join(', ')}`)
    .option('--targets <names>', `comma-separated targets: ${TARGET_NAMES.join(', ')}`)
    .option(
      '--postgres-url <url>',
      'use this PostgreSQL server (superuser URL) instead of starting one',
    )
    .option(
      '--dbos',
      `also run scenario 1 on DBOS Transact, installed from npm into a scratch folder`,
    )
    .option('--dbos-dir <dir>', 'the scratch folder for DBOS (default: <tmpdir>/weft-bench-dbos)')
    .option(
      '--redis-url <url>',
      'use this Redis server instead of starting one (ITS DATA IS DELETED: FLUSHALL per run)',
    )
    .option('--out <file>', 'where to write the report', 'BENCHMARKS.md')
    .option('--no-write', 'print the table only');
  program.parse();
  const options = program.opts<CliOptions>();
  const base = options.quick ? QUICK_SIZES : FULL_SIZES;
  const sizes: Sizes = {
    ...base,
    runs: options.runs ? Math.max(1, Number(options.runs)) : base.runs,
  };
  const ids = SCENARIOS.map((s) => s.id);
  const only = parseList(options.only, ids, 'scenario');
  const scenarios = SCENARIOS.filter((s) => !only || only.includes(s.id));
  const targets = chosenTargets(options);
  const startedAt = Date.now();
  const loadAtStart = loadAverage();
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-'));
  let postgres: BenchPostgres | undefined;
  let postgresProblem: string | undefined;
  let postgresSettings: Record<string, string> | undefined;
  let redis: BenchRedis | undefined;
  let redisProblem: string | undefined;
  let redisSettings: Record<string, string> | undefined;
  let cluster: BenchRedis | undefined;
  let clusterProblem: string | undefined;
  let clusterSettings: Record<string, string> | undefined;
  let sqliteSettings: SqliteSettings | undefined;
  const results = new ResultSet(scenarios, targets);
  const onSignal = () => process.exit(130);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    if (targets.some((t) => TARGETS[t].dialect === 'postgres')) {
      try {
        postgres = await startBenchPostgres(
          options.postgresUrl ?? process.env.WEFT_BENCH_POSTGRES_URL,
        );
        postgresSettings = await postgres.settings();
        log(`PostgreSQL ${postgresSettings.server_version} at ${postgres.adminUrl}`);
      } catch (error) {
        postgresProblem = error instanceof Error ? error.message : String(error);
        log(`PostgreSQL unavailable: ${postgresProblem}`);
      }
    }
    if (targets.some((t) => TARGETS[t].dialect === 'redis' && !TARGETS[t].cluster)) {
      try {
        redis = await startBenchRedis(options.redisUrl ?? process.env.WEFT_BENCH_REDIS_URL);
        redisSettings = await redis.settings();
        log(`Redis ${redisSettings.redis_version} at ${redis.url}`);
      } catch (error) {
        redisProblem = error instanceof Error ? error.message : String(error);
        log(`Redis unavailable: ${redisProblem}`);
      }
    }
    if (targets.some((t) => TARGETS[t].cluster)) {
      try {
        cluster = await startBenchRedisCluster();
        clusterSettings = await cluster.settings();
        log(`Redis Cluster (${clusterSettings.masters} masters) at ${cluster.url}`);
      } catch (error) {
        clusterProblem = error instanceof Error ? error.message : String(error);
        log(`Redis Cluster unavailable: ${clusterProblem}`);
      }
    }
    const env: BenchEnv = { dir, postgres, redis, redisCluster: cluster, settings: TUNED_SETTINGS };
    for (let rep = 0; rep < sizes.runs; rep++) {
      for (const target of targets) {
        if (TARGETS[target].dialect === 'postgres' && !postgres) continue;
        if (TARGETS[target].dialect === 'redis' && !(TARGETS[target].cluster ? cluster : redis)) {
          continue;
        }
        let baseline: BaselineResult | undefined;
        try {
          const measured = await measureBaseline(target, env, sizes, rep);
          baseline = measured.result;
          sqliteSettings ??= measured.sqlite;
          results.addBaseline(target, baseline);
          log(
            `baseline on ${TARGETS[target].title}: ${baseline.sequential.toFixed(0)} writes/s (1 conn), ${baseline.parallel.toFixed(0)} writes/s (${baseline.connections} conn)`,
          );
        } catch (error) {
          log(`baseline on ${TARGETS[target].title} failed: ${String(error)}`);
        }
        if (target === 'dbos' || target === 'bullmq') {
          await runExternal(target, env, options, sizes, rep, results, baseline);
          continue;
        }
        for (const scenario of scenarios) {
          if (!scenario.available) continue;
          if (rep >= (scenario.repetitions?.(sizes) ?? sizes.runs)) continue;
          await runScenario(scenario, target, env, sizes, rep, results, baseline);
        }
      }
    }
    for (const scenario of scenarios) {
      if (!scenario.available) log(`${scenario.number}. ${scenario.title}: not available yet`);
    }
    const table = renderTable(results);
    process.stdout.write(`${table}\n`);
    if (options.write) {
      const markdown = renderMarkdown(results, {
        date: new Date(startedAt),
        quick: Boolean(options.quick),
        durationMs: Date.now() - startedAt,
        command: commandLine(process.argv.slice(2)),
        machine: describeMachine(),
        sizes,
        settings: TUNED_SETTINGS,
        sqlite: sqliteSettings,
        postgres: postgresSettings,
        postgresProblem,
        redis: redisSettings,
        redisProblem,
        redisCluster: clusterSettings,
        redisClusterProblem: clusterProblem,
        load: [loadAtStart, loadAverage()],
      });
      writeFileSync(options.out, markdown);
      log(`wrote ${options.out}`);
    }
  } finally {
    await postgres?.stop();
    await redis?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
