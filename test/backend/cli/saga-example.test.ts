/**
 * The README's saga commands, word for word, each its own process: the graph and the
 * code-first saga both fail at `ship`, undo what finished newest first, and end REVERTED.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { freshStoreUrl } from '../../support/store-under-test.js';
import { REPO_ROOT, runWeft } from '../../support/weft-cli.js';

let store: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ url: store, cleanup } = await freshStoreUrl());
});
afterEach(async () => cleanup());

/** The `npx weft …` lines of the README's saga section, as argument lists. */
function sagaCommands(): string[][] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Undoing on failure (sagas)\n');
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

it('runs both sagas from the README to REVERTED, undoing newest first', async () => {
  const commands = sagaCommands();
  expect(commands).toHaveLength(2);
  for (const args of commands) {
    const run = await runWeft(args, { store });
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/REVERTED/);
    const undo = run.out.split('\n').filter((l) => /^(release|refund|unship): undoing/.test(l));
    const order = undo.map((l) => l.split(':')[0]);
    expect(order).toEqual(
      order.includes('unship') ? ['unship', 'refund', 'release'] : ['refund', 'release'],
    );
  }
});
