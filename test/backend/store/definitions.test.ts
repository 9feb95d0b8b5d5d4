/** Conformance: workflow definitions — idempotent by content, conflicts typed, newest wins. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DefinitionConflictError } from '../../../src/core/errors.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const def = (workflow: string, version: number, definition: object) => ({
  workflow,
  version,
  model: 'graph' as const,
  definition: definition as { [k: string]: never },
  source: null,
});

describe('definitions', () => {
  it('stores a version and reads it back, by version and as the newest', async () => {
    const stored = await store.putDefinition(def('order', 1, { activities: { a: { type: 'x' } } }));
    expect(stored).toMatchObject({ workflow: 'order', version: 1, source: null });
    expect(typeof stored.createdAt).toBe('number');
    expect(await store.getDefinition('order', 1)).toEqual(stored);
    expect(await store.getDefinition('order')).toEqual(stored);
    expect(await store.getDefinition('order', 2)).toBeUndefined();
    expect(await store.getDefinition('missing')).toBeUndefined();
  });

  it('storing the same definition again is a no-op, whatever its key order', async () => {
    const first = await store.putDefinition(def('order', 1, { a: 1, b: { c: 2, d: 3 } }));
    const again = await store.putDefinition(def('order', 1, { b: { d: 3, c: 2 }, a: 1 }));
    expect(again).toEqual(first);
  });

  it('a different definition for a stored version is a DefinitionConflictError', async () => {
    await store.putDefinition(def('order', 1, { a: 1 }));
    const error = await store.putDefinition(def('order', 1, { a: 2 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DefinitionConflictError);
    expect(error).toMatchObject({ code: 'DEFINITION_CONFLICT', workflow: 'order', version: 1 });
    expect((await store.getDefinition('order', 1))?.definition).toEqual({ a: 1 });
  });

  it('the newest version is the one read without a version and listed', async () => {
    await store.putDefinition(def('order', 1, { v: 1 }));
    await store.putDefinition(def('order', 3, { v: 3 }));
    await store.putDefinition(def('order', 2, { v: 2 }));
    await store.putDefinition({ ...def('billing', 7, { v: 7 }), source: 'name: billing' });
    expect((await store.getDefinition('order'))?.version).toBe(3);
    const listed = await store.listDefinitions();
    expect(listed.map((d) => [d.workflow, d.version, d.source])).toEqual([
      ['billing', 7, 'name: billing'],
      ['order', 3, null],
    ]);
  });
});
