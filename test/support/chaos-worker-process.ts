/**
 * Starting chaos worker processes cheaply. A chaos run starts hundreds of them, so the
 * worker script is bundled once per run into one plain ES module (with esbuild, which tsx
 * already brings) that `node` loads in a fraction of the time `--import tsx` takes to
 * transform every source file again. When esbuild cannot be loaded, workers run through
 * tsx as usual.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCRIPT = join(ROOT, 'test', 'support', 'chaos-worker.ts');
const HOST = join(ROOT, 'src', 'engine', 'expression-host.ts');

/** How to start a worker: the node arguments before the worker's own. */
export interface WorkerLauncher {
  args: string[];
  /** Removes the bundle, if one was built. */
  dispose(): void;
}

/**
 * Bundles the worker (under node_modules/.cache, so its packages still resolve) or falls
 * back to tsx. The expression sandbox's child entry is bundled beside it, where the
 * bundled sandbox looks for it (`./expression-host.js` next to the module).
 */
export async function prepareWorkerLauncher(): Promise<WorkerLauncher> {
  const outdir = join(ROOT, 'node_modules', '.cache', 'weft-chaos', `worker-${process.pid}`);
  try {
    const esbuild = await import('esbuild');
    mkdirSync(outdir, { recursive: true });
    writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n');
    await esbuild.build({
      entryPoints: { worker: SCRIPT, 'expression-host': HOST },
      outdir,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    });
    return {
      args: [join(outdir, 'worker.js')],
      dispose: () => rmSync(outdir, { recursive: true, force: true }),
    };
  } catch {
    return { args: ['--import', 'tsx', SCRIPT], dispose: () => {} };
  }
}

/** A running worker process. */
export interface WorkerProcess {
  process: ChildProcess;
  /** When it was spawned (epoch ms). */
  spawnedAt: number;
  /** Set once a spare printed LOADED. */
  loadedAt: number | undefined;
  /** Set once it printed READY. */
  readyAt: number | undefined;
  /** Everything it printed to stderr. */
  stderr(): string;
  /** Resolves with the exit code, or the signal that ended it. */
  exited: Promise<number | string>;
}

/**
 * Starts one worker process. A `spare` loads its code and waits for {@link goWorker}
 * before it opens the store.
 */
export function spawnWorker(
  launcher: WorkerLauncher,
  args: string[],
  spare = false,
): WorkerProcess {
  const child = spawn(process.execPath, [...launcher.args, ...args, ...(spare ? ['spare'] : [])], {
    cwd: ROOT,
    stdio: [spare ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  const worker: WorkerProcess = {
    process: child,
    spawnedAt: Date.now(),
    readyAt: undefined,
    loadedAt: undefined,
    stderr: () => errors,
    exited: new Promise((resolve) => {
      child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    }),
  };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    if (worker.loadedAt === undefined && chunk.includes('LOADED')) worker.loadedAt = Date.now();
    if (worker.readyAt === undefined && chunk.includes('READY')) worker.readyAt = Date.now();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  return worker;
}

/** Lets a spare start working (counting its start-up from now). */
export function goWorker(worker: WorkerProcess): void {
  worker.spawnedAt = Date.now();
  worker.process.stdin?.end('GO\n');
}
