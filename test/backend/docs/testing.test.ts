/**
 * The testing page (docs/testing.md): its code blocks are examples/testing.test.ts piece
 * by piece, and that example's tests pass on the store under test (it reads the store
 * from `WEFT_STORE`, as every weft command does; its tests are collected into this file).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freshStoreUrl, skipBackend } from '../../support/store-under-test.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('docs/testing.md', () => {
  it('its TypeScript blocks, in order, are examples/testing.test.ts', () => {
    const doc = read('docs/testing.md');
    const blocks = [...doc.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    expect(blocks.join('\n')).toBe(read('examples/testing.test.ts'));
  });
});

const location = skipBackend ? undefined : await freshStoreUrl();
const before = process.env.WEFT_STORE;
if (location) process.env.WEFT_STORE = location.url;
afterAll(async () => {
  // Test files share their process (vitest.config.ts): leave the variable as it was.
  if (before === undefined) delete process.env.WEFT_STORE;
  else process.env.WEFT_STORE = before;
  await location?.cleanup();
});

describe.skipIf(skipBackend)('examples/testing.test.ts on the store under test', async () => {
  await import('../../../examples/testing.test.js');
});
