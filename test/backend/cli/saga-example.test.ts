/**
 * The README's saga commands, word for word, each its own process: the graph and the
 * code-first saga both fail at `ship`, undo what finished newest first, and end REVERTED.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { freshStoreUrl } from '../../support/store-under-test.js';
import { readmeCommands, runWeft } from '../../support/weft-cli.js';

let store: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ url: store, cleanup } = await freshStoreUrl());
});
afterEach(async () => cleanup());

it('runs both sagas from the README to REVERTED, undoing newest first', async () => {
  const commands = readmeCommands('Undoing on failure (sagas)');
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
