/**
 * The package as a user meets it: `npm pack` the repository, `npm install` the tarball
 * into an empty project (dependencies from the npm cache, else the registry), then an
 * ES module imports `weft-engine` by name and runs a job, the quickstart runs in a CommonJS
 * project in its `main()` form (and its top-level await fails there as the page says),
 * `npx weft --version` prints the version, and TypeScript checks a typed `Client.start`
 * against the installed types.
 *
 * Install scripts are skipped (no native build in a test): the installed better-sqlite3
 * gets the binary this repository already built, the same version.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};

/** The environment of a plain shell: none of the test runner's or npm's own settings. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|VITEST|NODE_OPTIONS$|WEFT_)/.test(key)) env[key] = value;
  }
  return env;
}

/** Runs a command in `cwd`; resolves with its output, or rejects naming its stderr. */
async function sh(cwd: string, file: string, args: string[]) {
  return run(file, args, { cwd, env: userEnv(), maxBuffer: 16 << 20, timeout: 170_000 });
}

const APP = `import { Client, defineTask, defineWorkflow, openStore, Worker, Workflow } from 'weft-engine';

const shout = defineTask('shout', async (text) => text.toUpperCase());
const hello = defineWorkflow('hello', class extends Workflow {
  async handle(name) {
    return { text: await this.execute(shout, \`hello, \${name}\`) };
  }
});

const store = await openStore('sqlite:./jobs.db');
const worker = new Worker({ store, workflows: [hello], tasks: [shout] });
await worker.start();
const client = new Client(store);
const job = await client.start(hello, 'Ana');
const done = await client.result(job, { wait: true, timeoutMs: 30000 });
console.log(done.state, done.output.text);
await worker.stop();
await store.close();
`;

const TYPED = `import { Client, defineWorkflow, openStore, Workflow, workflow } from 'weft-engine';

const hello = defineWorkflow('hello', class extends Workflow {
  async handle(person: { name: string }) {
    return { text: \`Hello, \${person.name}\`, length: person.name.length };
  }
});
const client = new Client(await openStore());
const job = await client.start(hello, { name: 'Ana' });
const done = await client.result(job, { wait: true });
const text: string | undefined = done.output?.text;
const length: number | undefined = done.output?.length;
workflow('greeting').trigger('start').task('greet').transition('start', 'greet').compile();
export { length, text };
`;

describe('the packed package, installed into a new project', () => {
  let dir: string;
  let project: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weft-package-'));
    project = join(dir, 'project');
    mkdirSync(project);
    // dist/ is fresh: the test run's global setup built it.
    const packed = await sh(ROOT, 'npm', [
      'pack',
      '--ignore-scripts',
      '--json',
      '--pack-destination',
      dir,
    ]);
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'project', version: '1.0.0', private: true }),
    );
    await sh(project, 'npm', [
      'install',
      join(dir, filename),
      '--prefer-offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
    ]);
    const built = join(
      dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
      'build/Release/better_sqlite3.node',
    );
    const target = join(project, 'node_modules/better-sqlite3/build/Release');
    mkdirSync(target, { recursive: true });
    copyFileSync(built, join(target, 'better_sqlite3.node'));
  }, 180_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`installs as ${manifest.name}`, () => {
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules/weft-engine/package.json'), 'utf8'),
    ) as { name: string; version: string };
    expect(installed).toMatchObject({ name: 'weft-engine', version: manifest.version });
    // The editor schema is where docs/workflows.md tells editors to find it.
    const docs = readFileSync(join(ROOT, 'docs/workflows.md'), 'utf8');
    const mapped = /"yaml\.schemas": \{ "\.\/(\S+)"/.exec(docs)?.[1] as string;
    expect(mapped).toBe('node_modules/weft-engine/schema/workflow.schema.json');
    const schema = JSON.parse(readFileSync(join(project, mapped), 'utf8')) as { $schema: string };
    expect(schema.$schema).toMatch(/json-schema\.org/);
  });

  it("an ES module imports { Client, openStore, Worker } from 'weft-engine' and runs a job", async () => {
    writeFileSync(join(project, 'app.mjs'), APP);
    const { stdout } = await sh(project, process.execPath, ['app.mjs']);
    expect(stdout).toBe('SUCCESS HELLO, ANA\n');
  }, 120_000);

  it('the quickstart in a CommonJS project: top-level await fails as the page says; its main() form runs', async () => {
    // The project's package.json has no "type": a .ts file there is CommonJS to tsx.
    const doc = readFileSync(join(ROOT, 'docs/quickstart.md'), 'utf8');
    const pieces = [...doc.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
    const main = [...doc.matchAll(/^```ts commonjs\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
    expect(pieces).toHaveLength(5);
    expect(main).toHaveLength(1);
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    writeFileSync(join(project, 'quickstart.ts'), pieces.join('\n'));
    const failed = await sh(project, process.execPath, [tsx, 'quickstart.ts']).then(
      () => '',
      (error: { stderr: string }) => error.stderr,
    );
    expect(failed).toContain(
      'Top-level await is currently not supported with the "cjs" output format',
    );
    // Pieces 1–3 (after the imports) as they are, piece 4 as the page's main().
    writeFileSync(join(project, 'quickstart-cjs.ts'), [...pieces.slice(0, 4), main[0]].join('\n'));
    const ran = await sh(project, process.execPath, [tsx, 'quickstart-cjs.ts']);
    expect(ran.stdout).toBe('SUCCESS R-8\nSUCCESS {"text":"Hello, Ana!"}\n');
  }, 120_000);

  it('npx weft --version prints the version; the command is weft', async () => {
    const version = await sh(project, 'npx', ['weft', '--version']);
    expect(version.stdout).toBe(`${manifest.version}\n`);
    const help = await sh(project, 'npx', ['weft', '--help']);
    expect(help.stdout).toMatch(/^Usage: weft /);
  }, 120_000);

  it('npx weft dashboard serves the web app and elkjs from the installed package', async () => {
    const child = spawn(
      process.execPath,
      [
        'node_modules/weft-engine/bin/weft.js',
        'dashboard',
        '--port',
        '0',
        '--store',
        'sqlite:./dash.db',
      ],
      { cwd: project, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
      });
      const deadline = Date.now() + 30_000;
      while (!/on (http:\/\/\S+)/.test(out) && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = /on (http:\/\/\S+)/.exec(out)?.[1];
      expect(url).toBeDefined();
      for (const path of ['/', '/js/app.js', '/style.css', '/vendor/elk.bundled.js', '/healthz']) {
        expect((await fetch(`${url}${path}`)).status, path).toBe(200);
      }
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);

  it("TypeScript checks Client.start's input and output against the installed types", async () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const config = {
      compilerOptions: {
        module: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        typeRoots: [join(ROOT, 'node_modules/@types')],
        types: ['node'],
      },
      files: ['typed.mts', 'wrong.mts'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(config));
    writeFileSync(join(project, 'typed.mts'), TYPED);
    // A wrong input, and reading an output field the workflow does not return, are errors.
    // One tsc run checks both files (and, with skipLibCheck off, the shipped .d.ts files):
    // each run costs some 18 s of CPU here.
    writeFileSync(
      join(project, 'wrong.mts'),
      `${TYPED}await client.start(hello, { name: 42 });\ndone.output?.missing;\n`,
    );
    const failed = await sh(project, process.execPath, [tsc, '-p', '.']).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    const errors = failed.split('\n').filter((line) => /error TS/.test(line));
    // The right file and the installed types check clean: every error is one of the two.
    expect(errors, failed).toHaveLength(2);
    expect(failed).toContain("Type 'number' is not assignable to type 'string'");
    expect(failed).toMatch(/wrong\.mts\(15,\d+\): error TS2322/);
    expect(failed).toMatch(/wrong\.mts\(16,\d+\): error TS2339: Property 'missing' does not exist/);
  }, 180_000);
});
