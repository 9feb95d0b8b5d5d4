/**
 * The README's commands, word for word, as a user runs them: each command its own
 * process (`npx weft …` through a shell), a worker left running in the background, on
 * the store under test (set through `WEFT_STORE`, which the README says every command
 * reads). The commands are read from README.md itself, so the test breaks when the README
 * and the product drift apart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { runWeft } from '../../support/weft-cli.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The shell lines of every ```sh block in the README section headed `heading`. */
function commandsUnder(heading: string): string[] {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}" section`);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  const lines: string[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of (block[1] ?? '').split('\n')) {
      // A comment starts at "  #" (the README aligns them); a `#` inside quotes stays.
      const line = raw.replace(/\s{2,}#.*$/, '').trim();
      if (line && !line.startsWith('#')) lines.push(line);
    }
  }
  return lines;
}

interface Ran {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** What a background command prints once it runs (worker, serve, dashboard). */
const READY = /^weft (worker \S+ running on|serve listening on|dashboard on) /m;

/** A command the README runs in the background (it runs until it is stopped). */
const background = (line: string) => /^npx weft (worker|serve|dashboard)\b/.test(line);

function shell(line: string, env: NodeJS.ProcessEnv): ChildProcess {
  // Its own process group, as a terminal gives each command line: a signal reaches the
  // shell, npx and weft alike.
  return spawn('sh', ['-c', line], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

function collect(child: ChildProcess): { output: () => Ran; exited: Promise<Ran> } {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  let code: number | string = 'running';
  const exited = new Promise<Ran>((resolve) => {
    // 'close', not 'exit': the output is complete only when every process holding the
    // pipes (npx's node child too) has closed them.
    child.on('close', (c, signal) => {
      code = c ?? signal ?? 'unknown';
      resolve({ code, stdout, stderr });
    });
  });
  return { output: () => ({ code, stdout, stderr }), exited };
}

describe.skipIf(skipBackend)("the README's commands, each its own process", () => {
  let location: TestStoreLocation;
  const running: { line: string; child: ChildProcess; exited: Promise<Ran>; output: () => Ran }[] =
    [];
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    location = await freshStoreUrl();
    // The dashboard on any free port: 7070 may be taken on a shared machine.
    env = { ...process.env, WEFT_STORE: location.url, WEFT_DASHBOARD_PORT: '0' };
    // The test runner's own settings must not leak into the user's commands.
    delete env.NODE_OPTIONS;
    delete env.VITEST;
  });

  afterAll(async () => {
    for (const r of running) {
      try {
        process.kill(-(r.child.pid as number), 'SIGKILL');
      } catch {
        // the whole group is gone already
      }
    }
    await location.cleanup();
  });

  async function run(line: string, jobId: string | undefined): Promise<Ran> {
    const command = jobId === undefined ? line : line.replaceAll('<job>', jobId);
    if (command.includes('<job>')) throw new Error(`no job id yet for: ${line}`);
    const { exited } = collect(shell(command, env));
    const result = await exited;
    return result;
  }

  it('runs the set-up command after `npm install` to SUCCESS', async () => {
    const [first] = commandsUnder('Set-up');
    expect(first).toMatch(/^npm install && npx weft run /);
    // `npm install` is what CI and a fresh clone already did; the rest runs word for word.
    const r = await run((first as string).replace(/^npm install && /, ''), undefined);
    expect(r.stderr + r.stdout).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });

  it('runs the "Using it" block: deploy, worker in the background, start, signal, result, event', async () => {
    let jobId: string | undefined;
    const results: string[] = [];
    for (const line of commandsUnder('Using it')) {
      if (line.startsWith('export ')) continue;
      if (background(line)) {
        const child = shell(line, env);
        const { output, exited } = collect(child);
        running.push({ line, child, exited, output });
        // It runs once it says so; one that quits by itself fails here, not later as a
        // hung job. (`npx` takes seconds to start on a busy machine: no fixed wait.)
        await waitFor(
          () => output().code !== 'running' || READY.test(output().stdout + output().stderr),
          `${line} to run`,
          { timeoutMs: 60_000, intervalMs: 100 },
        );
        expect(output().code, `${line} exited by itself: ${output().stderr}`).toBe('running');
        continue;
      }
      if (/^npx weft event /.test(line)) {
        // A person sends the event once the order waits for it (its stock reserved): one
        // sent earlier goes to onEvent, not to the wait that starts later.
        await waitFor(
          async () => {
            const view = await runWeft(['status', jobId as string, '--json'], {
              store: location.url,
            });
            return view.code === 0 && view.out.includes('waits for event approved');
          },
          'the order to wait for its approval',
          { timeoutMs: 120_000, intervalMs: 500 },
        );
      }
      let r = await run(line, jobId);
      if (/^npx weft event /.test(line)) expect(r.stderr).not.toMatch(/warning/);
      if (/^npx weft status /.test(line)) {
        // The job reaches its hook once the worker ran its tasks: ask again until it has.
        const deadline = Date.now() + 60_000;
        while (!r.stdout.includes('waits for signal fed') && Date.now() < deadline) {
          r = await run(line, jobId);
        }
        // A person has an hour to send the signal, and the status says until when.
        expect(r.stdout).toMatch(
          /^waits for signal fed \(hook ate\), at most until \S+Z \(in (59m \d+s|1h)\)$/m,
        );
      }
      expect(r.code, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
      if (/^npx weft (start|run) /.test(line)) {
        jobId = r.stdout.trim().split('\n').at(-1)?.trim().split(/\s+/)[0];
      }
      if (/^npx weft run /.test(line)) jobId = undefined;
      if (/^npx weft result /.test(line)) results.push(r.stdout);
    }
    // What the user sent reached the jobs: the hook got the figs, the order was approved.
    expect(results).toHaveLength(2);
    expect(results[0]).toContain('figs');
    expect(results[1]).toContain('shipped');
    // SIGTERM ends each background process cleanly (exit 0).
    // SIGTERM to the process group, as a terminal's Ctrl-C or a supervisor does: the
    // worker stops gracefully. `sh` and `npx` report the signal themselves (143), so the
    // worker's own words say how it ended.
    for (const r of running) {
      // Each said it runs before the commands after it went on (above).
      process.kill(-(r.child.pid as number), 'SIGTERM');
      const ended = await r.exited;
      expect(ended.stderr, r.line).toMatch(/SIGTERM: stopping/);
      expect(ended.stderr, r.line).not.toMatch(/error/i);
      expect([0, 143, 'SIGTERM'], `${r.line}: ${ended.stderr}`).toContain(ended.code);
    }
  }, 300_000); // a dozen `npx` start-ups, each seconds on a busy machine
});
