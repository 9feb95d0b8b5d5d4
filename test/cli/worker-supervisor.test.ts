/**
 * A worker under a supervisor (docker, systemd, a process manager) is stopped by a
 * signal to the pid the supervisor started. Run as `npx weft worker`, that pid is npm's:
 * npm exits and the worker runs on, orphaned, until a SIGKILL. Run as
 * `node node_modules/.bin/weft worker` — directly, through `exec` in a shell, or as
 * examples/Dockerfile's CMD (run here as the exact command line it names) — the pid is
 * the worker's, and SIGTERM or SIGINT stops it cleanly: the "stopping" line, exit 0.
 *
 * Each runs in a scratch project laid out as `npm install weft-engine` lays it out
 * (node_modules/weft-engine, node_modules/.bin/weft), on a SQLite file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processEnd } from '../support/process-end.js';
import { waitFor } from '../support/wait-for.js';
import { REPO_ROOT, weftEnv } from '../support/weft-cli.js';

const GRACE_MS = 5000;

let project: string;
let store: string;
const orphans: number[] = [];

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'weft-supervisor-'));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(REPO_ROOT, join(project, 'node_modules', 'weft-engine'), 'dir');
  symlinkSync('../weft-engine/bin/weft.js', join(project, 'node_modules', '.bin', 'weft'));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'my-worker', type: 'module', dependencies: { 'weft-engine': '*' } }),
  );
  writeFileSync(
    join(project, 'handlers.js'),
    'export default { greet: async (input) => ({ hello: input.name }) };\n',
  );
  store = `sqlite://${join(project, 'weft.db')}`;
});

afterAll(() => {
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(project, { recursive: true, force: true });
});

interface Supervised {
  child: ChildProcess;
  err(): string;
  exited: Promise<number | string>;
}

/** Starts `command args` in the project as a supervisor would, stderr read as it comes. */
function supervise(command: string, args: string[]): Supervised {
  const child = spawn(command, args, {
    cwd: project,
    env: weftEnv(store),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  // Its end once its stderr is all read (the "stopping" line can come after 'exit'), or
  // soon after its exit when an orphaned worker still holds the pipe (the npx case).
  const exited = processEnd(child);
  return { child, err: () => err, exited };
}

/** The worker's own pid, read from its consumer id (`<host>:<pid>:<random>`). */
async function workerPid(run: Supervised): Promise<number> {
  await waitFor(() => /weft worker \S+ running on/.test(run.err()), 'the worker to start', {
    timeoutMs: 60_000,
    intervalMs: 25,
  });
  return Number(/weft worker [^:\s]+:(\d+):/.exec(run.err())?.[1]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to the pid the supervisor started; expects a clean stop of the worker. */
async function expectCleanStop(run: Supervised, signal: NodeJS.Signals): Promise<void> {
  const pid = await workerPid(run);
  run.child.kill(signal);
  const sent = Date.now();
  expect(await run.exited).toBe(0);
  // No handler was running: it stops at once, well inside the grace period.
  expect(Date.now() - sent).toBeLessThan(GRACE_MS + 1000);
  expect(run.err()).toContain(`weft worker: ${signal}: stopping`);
  expect(isAlive(pid)).toBe(false);
}

const WORKER = ['worker', '--handlers', 'handlers.js', '--grace-ms', String(GRACE_MS)];

describe('a worker under a supervisor', () => {
  it('run as `node node_modules/.bin/weft worker`, stops on SIGTERM and on SIGINT', async () => {
    const run = supervise(process.execPath, ['node_modules/.bin/weft', ...WORKER]);
    expect(await workerPid(run)).toBe(run.child.pid);
    await expectCleanStop(run, 'SIGTERM');
    await expectCleanStop(
      supervise(process.execPath, ['node_modules/.bin/weft', ...WORKER]),
      'SIGINT',
    );
  });

  it('started from a shell with `exec`, stops on SIGTERM sent to the shell’s pid', async () => {
    const run = supervise('sh', ['-c', `exec node node_modules/.bin/weft ${WORKER.join(' ')}`]);
    expect(await workerPid(run)).toBe(run.child.pid);
    await expectCleanStop(run, 'SIGTERM');
  });

  it('started by examples/Dockerfile’s CMD, word for word, stops on SIGTERM', async () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'examples', 'Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(cmd, 'the Dockerfile has an exec-form CMD').toBeDefined();
    const [command, ...args] = JSON.parse(cmd ?? '[]') as string[];
    expect(command).toBe('node');
    // Its grace period stays under docker stop's 10 s before SIGKILL.
    const grace = Number(args[args.indexOf('--grace-ms') + 1]);
    expect(grace).toBeGreaterThan(0);
    expect(grace).toBeLessThan(10_000);
    const run = supervise(process.execPath, args);
    expect(await workerPid(run)).toBe(run.child.pid);
    await expectCleanStop(run, 'SIGTERM');
  });

  it('run as `npx weft worker`, outlives SIGTERM sent to npx’s pid (why the above)', async () => {
    const run = supervise('npx', ['weft', ...WORKER]);
    const pid = await workerPid(run);
    orphans.push(pid);
    expect(pid).not.toBe(run.child.pid);
    run.child.kill('SIGTERM');
    await run.exited;
    // npm has gone; the worker never heard of it and runs on.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(isAlive(pid)).toBe(true);
    expect(run.err()).not.toContain('stopping');
    process.kill(pid, 'SIGTERM');
    await waitFor(() => !isAlive(pid), 'the orphaned worker to stop', { timeoutMs: 10_000 });
  });
});
