/**
 * Builds the JavaScript of the package: `npm run build` runs `tsc` for the type
 * declarations, then this. esbuild bundles the library's entry (`src/index.ts`), the
 * CLI's (`src/cli/main.ts`, `src/cli/exit-after-output.ts`) and the expression
 * sandbox's child (`src/engine/expression-host.ts`) into `dist/bundle/`, with the code
 * they share split into chunks, so that the CLI and the handlers modules a user loads
 * into it share one copy of weft's classes (`instanceof` holds across them).
 *
 * Why: every `weft` command is a new Node process, and Node 20 loading some 340 module
 * files (weft's, zod's, yaml's) was most of what a short command cost. A few chunks
 * instead cut `weft start` from 483 to 297 ms of CPU on SQLite (docs/architecture.md,
 * "The package runs from a bundle").
 *
 * Every output sits two folders below the package root, as every module with a path
 * from `import.meta.url` does in `src/` (`src/cli/package-version.ts`, the dashboard's
 * `web/`, the sandbox's `./expression-host.js`): those paths hold in both.
 *
 * `dist/index.js` re-exports the library's bundle, and `dist/bundle/inputs.json` says
 * which source files each output holds (test/cli/start-up-modules.test.ts reads it).
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = 'dist/bundle';

/**
 * Dependencies that stay files of their own in node_modules: native code
 * (better-sqlite3, and pg's optional pg-native), what is loaded by path or in worker
 * threads (pino's transports, elkjs's browser bundle the dashboard serves, tsx's
 * loader), what is shared with the user's own copy (@opentelemetry/api's global tracer),
 * and what the commands that need it load with `require` when they need it (jsonata,
 * ioredis, cluster-key-slot). Every other dependency (zod, yaml, commander, pg, hono,
 * prom-client, …) is pure JavaScript, bundled into the chunks.
 */
const EXTERNAL = [
  'better-sqlite3',
  'pino',
  'pino-pretty',
  'elkjs',
  'tsx',
  '@opentelemetry/api',
  'jsonata',
  'ioredis',
  'cluster-key-slot',
  'pg-native',
];

const result = await build({
  absWorkingDir: ROOT,
  entryPoints: [
    'src/index.ts',
    'src/cli/main.ts',
    'src/cli/exit-after-output.ts',
    'src/engine/expression-host.ts',
  ],
  outdir: OUT,
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Bundled CommonJS dependencies (yaml, commander) call `require` for Node's own
  // modules; an ES module has none unless it makes one.
  banner: {
    js: "import { createRequire as weftCreateRequire } from 'node:module'; const require = weftCreateRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  metafile: true,
  write: false,
  logLevel: 'warning',
});

/**
 * Each file is replaced whole (written beside it, then renamed over it), and only the
 * files this build did not make are deleted: a `weft` process running while `dist/` is
 * built again from the same sources (a test run, an editor's build) finds every chunk it
 * imports, each either as it was or as it is now, which is the same.
 */
function replace(file: string, contents: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, contents);
  renameSync(next, file);
}

const inputs: Record<string, string[]> = {};
for (const file of result.outputFiles) replace(file.path, file.contents);
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (file.endsWith('.js')) inputs[relative(OUT, file)] = Object.keys(output.inputs).sort();
}
replace(join(ROOT, 'dist/index.js'), "export * from './bundle/index.js';\n");
const made = new Set(result.outputFiles.map((f) => f.path));
made.add(join(ROOT, OUT, 'inputs.json'));
// One pass over `dist/`: in the bundle's folder what this build did not make goes; beside
// the declarations, the JavaScript (and source maps) `tsc` wrote before the package ran
// from a bundle goes too (nothing imports it, but `npm pack` would ship it).
for (const name of readdirSync(join(ROOT, 'dist'), { recursive: true, encoding: 'utf8' })) {
  const file = join(ROOT, 'dist', name);
  const stale = name.startsWith('bundle/')
    ? !name.slice('bundle/'.length).includes('/') && !made.has(file)
    : name !== 'index.js' && /\.js(\.map)?$/.test(name);
  if (stale) rmSync(file, { force: true });
}
// Last: the mark the test run's set-up reads as "built" (test/support/build-dist.ts).
replace(join(ROOT, OUT, 'inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);
