/**
 * The README's spread/collect commands, word for word, each its own process: the orders
 * example prices every line in its own thread and gathers them (SUCCESS); with no lines
 * the collect ends under its `min`, and the job fails with UnreachableError naming it.
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

it('runs the crossflow example from the README: SUCCESS with lines, UnreachableError without', async () => {
  const [withLines, withoutLines, ...rest] = readmeCommands('Spread, collect and scopes');
  expect(rest).toEqual([]);
  const ok = await runWeft(withLines as string[], { store });
  expect(ok.code, ok.err).toBe(0);
  expect(ok.out).toMatch(/SUCCESS/);
  expect(ok.out).toContain('gift: pot wrapped');
  const none = await runWeft(withoutLines as string[], { store });
  expect(none.code).toBe(1);
  expect(none.out + none.err).toMatch(/UnreachableError: job can no longer reach its end "report"/);
  expect(none.out + none.err).toMatch(/collect gather under its min/);
});
