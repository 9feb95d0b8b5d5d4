/**
 * The quickstart (docs/quickstart.md) as a user runs it: its code blocks are
 * examples/quickstart.ts piece by piece, and that file runs in its own process
 * (`npx tsx examples/quickstart.ts`, importing the package by name) to two successful
 * jobs on the store under test, printing what the page says it prints.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processEnd } from '../../support/process-end.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The bodies of the fenced blocks of `lang` in a Markdown text, in order. */
function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(
    (m) => m[1] as string,
  );
}

describe('docs/quickstart.md', () => {
  it('its TypeScript blocks, in order, are examples/quickstart.ts', () => {
    expect(blocks(read('docs/quickstart.md'), 'ts').join('\n')).toBe(
      read('examples/quickstart.ts'),
    );
  });
});

describe.skipIf(skipBackend)('examples/quickstart.ts, run as a user runs it', () => {
  let location: TestStoreLocation;
  beforeAll(async () => {
    location = await freshStoreUrl();
  });
  afterAll(async () => {
    await location?.cleanup();
  });

  it('prints the two results the page shows and exits 0', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, WEFT_STORE: location.url };
    // The test runner's own settings must not leak into the user's process.
    delete env.NODE_OPTIONS;
    delete env.VITEST;
    const child = spawn('npx', ['tsx', 'examples/quickstart.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    // Once its output is all read: the last line can come after the 'exit' event.
    const code = await processEnd(child);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(blocks(read('docs/quickstart.md'), 'text')[0]);
    expect(stdout).toBe('SUCCESS R-8\nSUCCESS {"text":"Hello, Ana!"}\n');
  });
});
