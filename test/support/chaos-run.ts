/**
 * The chaos driver: deploys the chaos workloads, starts N jobs while K worker processes
 * run them, SIGKILLs a random worker every few hundred milliseconds (a random delay
 * around `killEveryMs`) and starts a replacement, until every job has ended or the
 * deadline passes; then stops the workers gracefully (SIGTERM) and runs the checks of
 * chaos-check.ts. `scripts/chaos.ts` and the crash tests both call {@link runChaos}.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '../../src/client/client.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { type ChaosFacts, checkChaosRun, type Violation } from './chaos-check.js';
import {
  goWorker,
  prepareWorkerLauncher,
  spawnWorker,
  type WorkerProcess,
} from './chaos-worker-process.js';
import type { ChaosWorkerSettings } from './chaos-worker-settings.js';
import { CHAOS_WORKLOADS } from './chaos-workloads.js';

/** How a chaos run goes. */
export interface ChaosOptions {
  /** The store every process shares. */
  url: string;
  /** Top-level jobs to start (default 1000). */
  jobs?: number;
  /** Worker processes alive at once (default 4). */
  workers?: number;
  /**
   * Mean delay between kills in ms, each drawn from [0.5, 1.5] × this (default 300;
   * 0 = no kills). Only a worker that has been running jobs for at least this long is
   * killed, so each one does some work before it dies.
   */
  killEveryMs?: number;
  /**
   * Stop killing after this many kills and let the jobs finish (default: never stop). A
   * bounded chaos phase keeps a short run's length independent of how slow the machine
   * is, since every job must still end after it.
   */
  maxKills?: number;
  /** Seed of the kill schedule's random choices (default: from the clock). */
  seed?: number;
  /** Give up waiting for the jobs after this long (default 10 minutes). */
  deadlineMs?: number;
  /** Settings of each worker process. */
  worker?: Partial<ChaosWorkerSettings>;
  /** Where the handler logs go (default: a new temp dir, removed after a clean run). */
  logDir?: string;
  /** Prefix of the job ids (default `chaos-`). */
  jobPrefix?: string;
  /** Called with a progress line every few seconds. */
  onProgress?: (line: string) => void;
  /**
   * Restarts of the store's server while jobs run (PostgreSQL), mixed with the kills:
   * one every `minMs`–`maxMs` (uniform), at most `max` of them (default: until the kills
   * stop, or the jobs end when they never do).
   */
  storeRestarts?: StoreRestarts;
}

/** How the driver takes the store's server away and brings it back. */
export interface StoreRestarts {
  minMs: number;
  maxMs: number;
  max?: number;
  /** Stops the server and starts it again; resolves once it accepts connections. */
  restart(): Promise<void>;
}

/** What a chaos run did and found. */
export interface ChaosResult {
  facts: ChaosFacts;
  violations: Violation[];
  kills: number;
  /** Times the store's server was restarted under the workers. */
  storeRestarts: number;
  workersStarted: number;
  /** Mean time from spawning a worker process to its READY, in ms. */
  meanStartupMs: number;
  /** Lines workers wrote to stderr (errors they logged and recovered from, mostly). */
  workerErrors: string[];
  durationMs: number;
  seed: number;
  /** The store's URL without its password. */
  storeUrl: string;
  logDir: string;
  settings: Required<
    Omit<ChaosOptions, 'onProgress' | 'logDir' | 'worker' | 'seed' | 'storeRestarts'>
  > & {
    worker: Partial<ChaosWorkerSettings>;
  };
}

/** A small seeded random source (mulberry32), so a kill schedule can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `operation` until it works: while the store's server restarts, the driver's own
 * calls fail like the workers' do. Starting a job again by its id is a no-op, so a start
 * whose commit was lost with the connection is simply tried again.
 */
async function persist<T>(operation: () => Promise<T>, giveUpMs = 120_000): Promise<T> {
  const since = Date.now();
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      if (Date.now() - since > giveUpMs) throw error;
      await sleep(100);
    }
  }
}

async function startJobs(store: Store, ids: string[], count: number, prefix: string) {
  const client = new Client(store);
  for (const workload of CHAOS_WORKLOADS) await persist(() => workload.deploy(client));
  for (let i = 0; i < count; i++) {
    const workload = CHAOS_WORKLOADS[i % CHAOS_WORKLOADS.length];
    const id = `${prefix}${String(i).padStart(6, '0')}`;
    await persist(async () => workload?.start(client, i, id));
    ids.push(id);
  }
}

async function runningJobs(store: Store): Promise<number> {
  const running = await persist(() =>
    store.listJobs({ state: ['RUNNING', 'PENDING'], limit: 100_000 }),
  );
  return running.length;
}

/** Runs one chaos experiment and checks it. */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const settings = {
    url: options.url,
    jobs: options.jobs ?? 1000,
    workers: options.workers ?? 4,
    killEveryMs: options.killEveryMs ?? 300,
    maxKills: options.maxKills ?? Number.POSITIVE_INFINITY,
    deadlineMs: options.deadlineMs ?? 600_000,
    jobPrefix: options.jobPrefix ?? 'chaos-',
    worker: options.worker ?? {},
  };
  const seed = options.seed ?? Date.now() % 1_000_000;
  const random = seededRandom(seed);
  const logDir = options.logDir ?? mkdtempSync(join(tmpdir(), 'weft-chaos-'));
  const launcher = await prepareWorkerLauncher();
  const store = await openStore(settings.url);
  const began = Date.now();
  const live = new Map<number, WorkerProcess>();
  const kills = new Map<number, number>();
  const violations: Violation[] = [];
  const workerErrors: string[] = [];
  const startups: number[] = [];
  let nextNumber = 1;
  let done = false;

  // A warm spare (code loaded, store not yet opened) replaces a killed worker at once.
  let spare: { number: number; worker: WorkerProcess } | undefined;
  const spawnNumbered = (asSpare: boolean) => {
    const number = nextNumber++;
    const args = [settings.url, String(number), logDir, JSON.stringify(settings.worker)];
    const worker = spawnWorker(launcher, args, asSpare);
    void worker.exited.then((how) => {
      if (worker.readyAt !== undefined) startups.push(worker.readyAt - worker.spawnedAt);
      workerErrors.push(...worker.stderr().split('\n').filter(Boolean));
      const wasSpare = spare?.worker === worker;
      if (live.get(number) !== worker && !wasSpare) return;
      // Neither killed nor stopped by the driver: the worker died on its own.
      if (wasSpare) spare = undefined;
      live.delete(number);
      violations.push({
        check: 'worker died by itself',
        detail: `w${number} (${how}): ${worker.stderr().slice(-500)}`,
      });
      if (!done && !wasSpare) start();
    });
    return { number, worker };
  };
  const start = () => {
    let entry = spare;
    spare = undefined;
    if (entry) goWorker(entry.worker);
    else entry = spawnNumbered(false);
    live.set(entry.number, entry.worker);
    if (settings.killEveryMs > 0 && !done) spare = spawnNumbered(true);
  };
  for (let i = 0; i < settings.workers; i++) start();

  const jobIds: string[] = [];
  let startError: unknown;
  const starting = startJobs(store, jobIds, settings.jobs, settings.jobPrefix).catch((error) => {
    startError = error;
  });

  const killing = (async () => {
    if (settings.killEveryMs <= 0) return;
    while (!done && kills.size < settings.maxKills) {
      await sleep(settings.killEveryMs * (0.5 + random()));
      if (done) return;
      const now = Date.now();
      const ready = [...live.entries()].filter(
        ([, w]) => w.readyAt !== undefined && now - w.readyAt >= settings.killEveryMs,
      );
      const victim = ready[Math.floor(random() * ready.length)];
      if (!victim) continue;
      const [number, worker] = victim;
      live.delete(number);
      kills.set(number, Date.now());
      worker.process.kill('SIGKILL');
      start();
      await worker.exited;
    }
  })();

  let restarts = 0;
  const restarting = (async () => {
    const plan = options.storeRestarts;
    if (!plan) return;
    // A schedule of its own, so the kill schedule of a seed stays what it was.
    const next = seededRandom(seed + 1);
    const max = plan.max ?? Number.POSITIVE_INFINITY;
    while (!done && restarts < max) {
      await sleep(plan.minMs + next() * (plan.maxMs - plan.minMs));
      // With a bounded chaos phase, the restarts end with the kills.
      if (done || (settings.killEveryMs > 0 && kills.size >= settings.maxKills)) return;
      restarts++;
      await plan.restart();
    }
  })();

  let lastProgress = Date.now();
  let timedOut = false;
  for (;;) {
    await sleep(200);
    const startedAll = jobIds.length === settings.jobs || startError !== undefined;
    const running = await runningJobs(store);
    if (startedAll && running === 0) break;
    if (Date.now() - began > settings.deadlineMs) {
      timedOut = true;
      break;
    }
    if (options.onProgress && Date.now() - lastProgress >= 5000) {
      lastProgress = Date.now();
      const seconds = ((Date.now() - began) / 1000).toFixed(1);
      options.onProgress(
        `${seconds} s: ${jobIds.length} jobs started, ${running} running, ${kills.size} kills${options.storeRestarts ? `, ${restarts} store restarts` : ''}`,
      );
    }
  }
  done = true;
  await killing;
  await restarting;
  await starting;
  if (startError) violations.push({ check: 'starting jobs failed', detail: String(startError) });
  if (timedOut) {
    violations.push({
      check: 'deadline',
      detail: `jobs still running after ${settings.deadlineMs} ms`,
    });
  }
  if (spare) {
    const { worker } = spare;
    spare = undefined;
    worker.process.kill('SIGKILL');
    await worker.exited;
  }
  await stopAll(live, violations);
  launcher.dispose();
  const durationMs = Date.now() - began;

  const check = await checkChaosRun({ store, jobIds, logDir, kills });
  await store.close();
  const result: ChaosResult = {
    facts: check.facts,
    violations: [...violations, ...check.violations],
    kills: kills.size,
    storeRestarts: restarts,
    workersStarted: nextNumber - 1,
    meanStartupMs: Math.round(startups.reduce((a, b) => a + b, 0) / Math.max(1, startups.length)),
    workerErrors,
    durationMs,
    seed,
    storeUrl: store.url,
    logDir,
    settings,
  };
  if (result.violations.length > 0) {
    const lines = result.violations.map((v) => `${v.check}: ${v.detail}`);
    writeFileSync(join(logDir, 'violations.txt'), `${lines.join('\n')}\n`);
    writeFileSync(join(logDir, 'worker-errors.txt'), `${workerErrors.join('\n')}\n`);
  } else if (!options.logDir) {
    rmSync(logDir, { recursive: true, force: true });
  }
  return result;
}

/** SIGTERMs every live worker and waits for each to stop; one that hangs is killed and reported. */
async function stopAll(live: Map<number, WorkerProcess>, violations: Violation[]): Promise<void> {
  const workers = [...live.entries()];
  live.clear();
  await Promise.all(
    workers.map(async ([number, worker]) => {
      worker.process.kill('SIGTERM');
      const how = await Promise.race([worker.exited, sleep(30_000).then(() => 'hung' as const)]);
      if (how === 'hung') {
        worker.process.kill('SIGKILL');
        await worker.exited;
        violations.push({
          check: 'worker hung on SIGTERM',
          detail: `w${number} still ran after 30 s`,
        });
      } else if (how !== 0 && worker.readyAt !== undefined) {
        violations.push({
          check: 'worker stopped badly',
          detail: `w${number} (${how}): ${worker.stderr().slice(-500)}`,
        });
      }
    }),
  );
}
