/**
 * Running the CLI as a user does, in its own process (`node bin/weft.js …`, from the
 * `dist/` the global set-up builds), against the store under test: to its end
 * (`runWeft`), or left running in the background (`launchWeft`), with its output read as
 * it comes and a way to stop it.
 *
 * The child gets this process's environment with WEFT_STORE set to the given store,
 * NODE_OPTIONS removed (vitest's loader hooks have no place in a user's `weft`) and the
 * caller's `env` on top; a variable given as `undefined` is left out altogether.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processEnd } from './process-end.js';
import { waitFor } from './wait-for.js';

/** The repository's root folder. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The CLI's entry point, as `npx weft` runs it. */
export const WEFT_BIN = join(REPO_ROOT, 'bin', 'weft.js');

/** How a `weft` process ended: its exit code (-1 when killed) and what it printed. */
export interface WeftRun {
  code: number;
  out: string;
  err: string;
}

/** Where and how a `weft` process runs. */
export interface WeftOptions {
  /** The store URL the process gets as WEFT_STORE. */
  store: string;
  /** Its working folder; the repository root unless given. */
  cwd?: string;
  /** Variables set on top of the environment; `undefined` unsets one. */
  env?: NodeJS.ProcessEnv;
}

/** Options of a `weft` run to its end. */
export interface WeftRunOptions extends WeftOptions {
  /** How long it may run before it is killed (code -1); a minute unless given. */
  timeoutMs?: number;
  /** Text written to its standard input, which is then closed. */
  input?: string;
  /** Whether `out` and `err` are trimmed of leading and trailing white space (default). */
  trim?: boolean;
}

/** The environment a `weft` process runs with (see the file's comment). */
export function weftEnv(store: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, WEFT_STORE: store, ...extra };
  delete env.NODE_OPTIONS;
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return env;
}

/** Runs `weft …args` to its end. */
export function runWeft(args: string[], options: WeftRunOptions): Promise<WeftRun> {
  const trim = options.trim ?? true;
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [WEFT_BIN, ...args],
      {
        cwd: options.cwd ?? REPO_ROOT,
        env: weftEnv(options.store, options.env),
        timeout: options.timeoutMs ?? 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve(
          trim
            ? { code, out: stdout.trim(), err: stderr.trim() }
            : { code, out: stdout, err: stderr },
        );
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** A `weft` process left running: its output so far, and how it ended. */
export interface RunningWeft {
  child: ChildProcess;
  /** Everything printed to stdout so far. */
  out(): string;
  /** Everything printed to stderr so far. */
  err(): string;
  /** Resolves with the exit code (or signal name) once it ended and its output is read. */
  exited: Promise<number | string>;
  /** Whether it has not ended yet. */
  alive(): boolean;
  /** Sends `signal` (SIGTERM unless given) if it still runs, and waits for it to end. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Starts `weft …args` and leaves it running. */
export function launchWeft(args: string[], options: WeftOptions): RunningWeft {
  const child = spawn(process.execPath, [WEFT_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: weftEnv(options.store, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  let ended = false;
  child.once('exit', () => {
    ended = true;
  });
  // Its end once its output is all read: the last lines come after the 'exit' event.
  const exited = processEnd(child);
  return {
    child,
    out: () => out,
    err: () => err,
    exited,
    alive: () => !ended,
    stop(signal = 'SIGTERM') {
      if (!ended) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Waits until a `weft worker` has said it runs (`weft worker … running on …`); rejects
 * when it exits first. Its signal handlers are in place from then on: a SIGTERM or SIGINT
 * sent earlier, while Node still loads it, meets the default action and kills it (no
 * clean stop, no exit 0), so a test that expects a clean stop waits for this first.
 */
export async function workerRunning(weft: RunningWeft): Promise<void> {
  await waitFor(
    () => {
      if (!weft.alive()) throw new Error(`weft worker exited before running: ${weft.err()}`);
      return / running on /.test(weft.err());
    },
    'the worker to say it runs',
    { timeoutMs: 60_000, intervalMs: 50 },
  );
}

/**
 * The `http://…` URL a server command (`weft dashboard`, `weft serve`) printed once it
 * listens; rejects when the process exits first.
 */
export async function listeningUrl(weft: RunningWeft): Promise<string> {
  let url = '';
  await waitFor(
    () => {
      if (!weft.alive()) throw new Error(`weft exited before listening: ${weft.err()}`);
      url = / on (http:\/\/\S+)/.exec(weft.out())?.[1] ?? '';
      return url !== '';
    },
    'weft to listen',
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  return url;
}

/**
 * The `npx weft …` lines of the first `sh` block in the README's section `## <heading>`,
 * as argument lists (a trailing `# comment` dropped, single quotes unwrapped): what a test
 * runs word for word through {@link runWeft}.
 */
export function readmeCommands(heading: string): string[][] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('npx weft '))
    .map((line) =>
      (line.slice('npx weft '.length).match(/'[^']*'|\S+/g) ?? []).map((a) =>
        a.startsWith("'") ? a.slice(1, -1) : a,
      ),
    );
}
