/**
 * Fuzz of the CLI's JSON inputs: random and mutated `--input` and `--data` values end in
 * a clean exit (0, or 1 with a typed error message), never a crash or a hang, and a
 * refused input stores nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

let dir: string;
let store: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-fuzz-'));
  store = `sqlite:${join(dir, 'weft.db')}`;
  const code = await weft('deploy', 'examples/quick-brown-fox.yaml');
  expect(code.code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function weft(...args: string[]) {
  const lines: string[] = [];
  const code = await main(['node', 'weft', ...args, '--store', store], {
    out: (t) => lines.push(t),
    err: (t) => lines.push(t),
  });
  return { code, text: lines.join('\n') };
}

const texts = fc.oneof(
  fc.string(),
  fc.json(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .tuple(fc.json(), fc.nat(), fc.string({ maxLength: 3 }))
    .map(
      ([json, at, junk]) =>
        json.slice(0, at % (json.length + 1)) + junk + json.slice(at % (json.length + 1)),
    ),
);

describe('CLI JSON inputs under fuzzing', () => {
  it('weft start --input: a job or a typed refusal, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(texts, async (input) => {
        const before = (await weft('list', '--json')).text;
        const r = await weft('start', 'quick-brown-fox', '--input', input);
        expect([0, 1]).toContain(r.code);
        if (r.code === 1) {
          expect(r.text).toMatch(/^error: (--input|input)/);
          expect((await weft('list', '--json')).text).toBe(before);
        }
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('weft signal --data: delivered or a typed refusal, never a crash', async () => {
    const id = (await weft('start', 'quick-brown-fox', '--input', '{}')).text.trim();
    await fc.assert(
      fc.asyncProperty(texts, async (data) => {
        const r = await weft('signal', id, 'fed', '--data', data);
        expect([0, 1]).toContain(r.code);
        if (r.code === 1) expect(r.text).toMatch(/^error: --data/);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
