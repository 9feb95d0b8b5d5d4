/**
 * BENCHMARKS.md: the figures of the last run as a markdown table, with everything needed
 * to read them — date, machine, versions, store and worker settings, sizes, the bar the
 * issue sets — and each repetition's raw values.
 */

import { DEFAULT_POOL_SIZE } from '../src/store/postgres/postgres-store.js';
import { WORKER_DEFAULTS } from '../src/worker/worker-options.js';
import type { SqliteSettings } from './baseline.js';
import { formatCell, formatNumber, rowTitle } from './format.js';
import type { MachineInfo } from './machine.js';
import type { ResultSet, Row } from './results.js';
import type { Sizes } from './sizes.js';
import { TARGETS, type TargetName, type WorkerSettings } from './targets.js';

/** What a run was, for the report's header. */
export interface RunInfo {
  date: Date;
  quick: boolean;
  durationMs: number;
  command: string;
  machine: MachineInfo;
  sizes: Sizes;
  settings: WorkerSettings;
  sqlite: SqliteSettings | undefined;
  postgres: Record<string, string> | undefined;
  /** Why PostgreSQL was not measured, when it was not. */
  postgresProblem: string | undefined;
  /** The Redis server's settings, when a Redis target ran. */
  redis?: Record<string, string> | undefined;
  /** Why Redis was not measured, when a Redis target was asked for and it was not. */
  redisProblem?: string | undefined;
  /** The Redis Cluster's settings (its first master's), when the `redis-cluster` target ran. */
  redisCluster?: Record<string, string> | undefined;
  /** Why the cluster was not measured, when its target was asked for and it was not. */
  redisClusterProblem?: string | undefined;
  /** 1-minute load average when the run started and when it ended. */
  load: [number, number];
}

const BAR = [
  'Measured on this machine kind (2 cores, PostgreSQL 15 on the same machine, fsync on):',
  '',
  '- DBOS Transact 5.3: about 1,440 steps/s on the 10-step sequential workflow with 50 concurrent workflows (55 workflows/s); p50 17 ms at concurrency 1.',
  '- HotMesh 0.3.32 on PostgreSQL: about 6 two-step workflows/s.',
  "- weft's goal: ten times DBOS on PostgreSQL (≈ 14,400 steps/s at concurrency 50), tens of thousands of steps/s on the embedded store, a one-step workflow's p50 latency under 1 ms embedded and under 5 ms on PostgreSQL — by design, not by weakening durability.",
];

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

function medianOf(row: Row | undefined, target: TargetName): number | undefined {
  const cell = row?.cells.get(target);
  return cell?.kind === 'value' ? cell.value : undefined;
}

function againstTheBar(results: ResultSet): string[] {
  const find = (id: string, key: string) =>
    results
      .rows(results.scenarios.find((s) => s.id === id) ?? results.scenarios[0]!)
      .find((r) => r.scenario.id === id && r.key === key);
  const lines: string[] = [];
  const steps50 = find('linear', 'c50.steps');
  const p50 = find('latency', 'p50');
  // DBOS measured in this run, when it was (`--dbos`); else the figure the bar quotes.
  const dbos = medianOf(steps50, 'dbos');
  const dbosSteps = dbos ?? 1440;
  const dbosName = dbos === undefined ? 'DBOS' : 'DBOS in this run';
  for (const t of results.targets) {
    const spec = TARGETS[t];
    if (spec.external) continue;
    const s = medianOf(steps50, t);
    const p = medianOf(p50, t);
    const parts: string[] = [];
    if (s !== undefined) {
      parts.push(
        spec.dialect === 'postgres'
          ? `10-step workflow at c=50: ${formatNumber(s)} steps/s = ${formatNumber(s / dbosSteps, 2)}× ${dbosName} (goal 10×)`
          : `10-step workflow at c=50: ${formatNumber(s)} steps/s (goal: tens of thousands)`,
      );
    }
    if (p !== undefined) {
      const goal = spec.dialect === 'postgres' ? 5 : 1;
      parts.push(
        `one-step p50 ${formatNumber(p, 2)} ms (goal < ${goal} ms${p < goal ? ', met' : ', not met'})`,
      );
    }
    if (parts.length) lines.push(`- ${spec.title}: ${parts.join('; ')}.`);
  }
  return lines;
}

function samplesSection(results: ResultSet): string[] {
  const out: string[] = [];
  for (const t of results.targets) {
    const base = results.baseline(t);
    if (base.length) {
      out.push(
        `- ${TARGETS[t].title} baseline writes/s (1 conn / ${base[0]?.connections} conn): ${base.map((b) => `${formatNumber(b.sequential)} / ${formatNumber(b.parallel)}`).join('; ')}`,
      );
    }
  }
  for (const scenario of results.scenarios) {
    for (const row of results.rows(scenario)) {
      const cells = results.targets
        .map((t) => {
          const cell = row.cells.get(t);
          return cell?.kind === 'value'
            ? `${TARGETS[t].title}: ${cell.samples.map((v) => formatNumber(v, row.digits)).join(', ')}`
            : undefined;
        })
        .filter((c) => c !== undefined);
      if (cells.length) out.push(`- ${scenario.number}. ${rowTitle(row)} — ${cells.join('; ')}`);
    }
  }
  return out;
}

/** Renders BENCHMARKS.md. */
export function renderMarkdown(results: ResultSet, info: RunInfo): string {
  const { machine, settings, sizes } = info;
  const header = ['', ...results.targets.map((t) => TARGETS[t].title)];
  const rows: string[][] = [
    [
      `**Baseline: single-row durable writes (SQL: UPDATE transactions; Redis: HINCRBY)**`,
      ...results.targets.map(() => ''),
    ],
  ];
  for (const row of results.baselineRows()) {
    rows.push([row.label, ...results.targets.map((t) => formatCell(row.cells.get(t), 0))]);
  }
  for (const scenario of results.scenarios) {
    if (!scenario.available) {
      rows.push([
        `**${scenario.number}. ${scenario.title}**: not available yet`,
        ...results.targets.map(() => ''),
      ]);
      continue;
    }
    rows.push([`**${scenario.number}. ${scenario.title}**`, ...results.targets.map(() => '')]);
    for (const row of results.rows(scenario)) {
      rows.push([
        rowTitle(row),
        ...results.targets.map((t) => formatCell(row.cells.get(t), row.digits)),
      ]);
    }
  }
  const errors: string[] = [];
  for (const scenario of results.scenarios) {
    for (const t of results.targets) {
      for (const e of results.errorsOf(scenario, t)) {
        errors.push(`- ${scenario.number}. ${scenario.title} on ${TARGETS[t].title}: ${e}`);
      }
    }
  }
  const pgSettings = info.postgres
    ? Object.entries(info.postgres)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')
    : `not measured${info.postgresProblem ? ` (${info.postgresProblem})` : ''}`;
  const redisLine = info.redis
    ? `- Redis: ${Object.entries(info.redis)
        .map(([k, v]) => `${k}=${v}`)
        .join(
          ', ',
        )}. Server on the same machine, TCP on 127.0.0.1, as the Redis store's docs ask for durability (every write in the AOF and synced before Redis answers); each run on an emptied server, in a logical database of its own. The parallel baseline runs on ${DEFAULT_POOL_SIZE} connections, as PostgreSQL's; the Redis store itself multiplexes one connection (auto-pipelined).`
    : info.redisProblem
      ? `- Redis: not measured (${info.redisProblem}).`
      : undefined;
  const clusterLine = info.redisCluster
    ? `- Redis Cluster: ${Object.entries(info.redisCluster)
        .map(([k, v]) => `${k}=${v}`)
        .join(
          ', ',
        )}. Started by the bench on loopback ports of this machine (\`redis-cli --cluster create\`), each master as durable as the single server; the store on it has its default 16 partitions, spread over the masters' slots. Every run empties every master. The baseline's connections each write a key of their own slot.`
    : info.redisClusterProblem
      ? `- Redis Cluster: not measured (${info.redisClusterProblem}).`
      : undefined;
  const sqlite = info.sqlite
    ? `SQLite ${info.sqlite.version} via better-sqlite3, journal_mode=${info.sqlite.journal_mode}, synchronous=${info.sqlite.synchronous} (the store's default: a commit is durable on power loss), wal_autocheckpoint=${info.sqlite.wal_autocheckpoint} pages`
    : 'not measured';
  return [
    '# weft benchmarks',
    '',
    `_Written by \`${info.command}\` on ${info.date.toISOString().slice(0, 16).replace('T', ' ')} UTC in ${formatNumber(info.durationMs / 60_000, 1)} min. ${
      info.quick
        ? '**Quick run**: small counts, one repetition — a smoke test, not figures to compare.'
        : `Full run: every figure is the median of ${sizes.runs} repetitions (scenario 6: ${sizes.idleRuns}).`
    } Regenerate with \`npm run bench\`; see docs/benchmarks.md for what each scenario measures and how to read the ratios._`,
    '',
    '## Machine and settings',
    '',
    `- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB memory, ${machine.os}.`,
    `- Node ${machine.node}. Load average (1 min) ${info.load[0]} at the start, ${info.load[1]} at the end, on ${machine.cores} cores${Math.max(...info.load) > machine.cores ? ' — the machine was busy with other work, so absolute figures are low and noisy; the ratios to the baseline hold up better' : ''}.`,
    `- PostgreSQL: ${pgSettings}. Server on the same machine, TCP on 127.0.0.1, durable defaults (nothing turned off; only max_connections raised).`,
    ...(redisLine ? [redisLine] : []),
    ...(clusterLine ? [clusterLine] : []),
    `- SQLite: ${sqlite}; one connection shared by the driver's Client and the in-process Worker.`,
    `- Workers: targets marked "defaults" (and the worker-process targets) run \`new Worker({ store, handlers, workflows, tasks })\` with no other option on a store URL with no \`?pool=\` — concurrency ${WORKER_DEFAULTS.concurrency} handlers, engine batch ${WORKER_DEFAULTS.batchSize} messages, ${WORKER_DEFAULTS.engineLanes} engine lanes, ${WORKER_DEFAULTS.resultLanes} result lane, lease ${WORKER_DEFAULTS.leaseMs / 1000} s, PostgreSQL pool ${DEFAULT_POOL_SIZE}; targets marked "tuned" pass concurrency ${settings.concurrency}, engine batch ${settings.batchSize} and pool ${settings.workerPool}. The driver of worker-process targets has a pool of ${settings.driverPool}. In-process targets run one Worker in the driver's process, sharing its store (on PostgreSQL its pool); \`PG, N procs\` targets run workers in separate processes (\`bench/worker-process.ts\`) while the driver only starts jobs through the Client and measures. Profile rows: statements/step counts every store call of the process plus BEGIN and COMMIT per transaction (on PostgreSQL each a statement; the pool pipelines, so several can share one round trip), commits/step the transactions that wrote, round trips/transaction the statements per transaction (an upper bound on its round trips), Node CPU/step the user and system CPU time of the process holding the Client and the Worker (\`process.cpuUsage\`; on SQLite it includes the WAL flushes, which better-sqlite3 does on the main thread) divided by the steps; in-process targets only. Machine CPU busy is the share of all cores' time not idle during the run (from /proc/stat; it includes PostgreSQL and worker processes).`,
    results.targets.includes('dbos')
      ? '- Handlers are no-ops; every figure is weft plus its store. The DBOS Transact column (`--dbos`) runs scenario 1 only: @dbos-inc/dbos-sdk installed from npm into a scratch folder, on its defaults, in one process, on a fresh database of the same server (bench/dbos.ts).'
      : '- Handlers are no-ops; every figure is weft plus its store.',
    ...(results.targets.includes('bullmq')
      ? [
          '- The BullMQ column runs scenario 1 only, in BullMQ’s own terms: bullmq installed from npm into a scratch folder, a flow (FlowProducer) of 10 no-op jobs each the parent of the next, so they run one after another, awaited through QueueEvents; one Worker in one process with 50 handlers (BullMQ’s default is 1), on a fresh database of the same Redis server (bench/bullmq.ts). Its steps/s are jobs moved per second.',
        ]
      : []),
    '',
    '## Results',
    '',
    'steps/s figures are followed by their ratio to the baseline of the same repetition on the same target (concurrency 1: the one-connection baseline; concurrency 50 and fan-out: the workers’ connection count): how many workflow steps weft completes per raw durable write.',
    '',
    ...table(header, rows),
    '',
    '## Against the bar',
    '',
    ...againstTheBar(results),
    '',
    ...BAR,
    '',
    '## Sizes',
    '',
    ...results.scenarios.flatMap((s) =>
      s.available
        ? [`- ${s.number}. ${s.title}: ${s.description} ${(s.notes?.(sizes) ?? []).join('; ')}.`]
        : [`- ${s.number}. ${s.title}: not available yet (${s.description})`],
    ),
    `- Baseline: ${sizes.baselineMs / 1000} s per loop, measured before the scenarios in every repetition on every target.`,
    ...(errors.length ? ['', '## Errors', '', ...errors] : []),
    '',
    '## Every repetition',
    '',
    ...samplesSection(results),
    '',
  ].join('\n');
}
