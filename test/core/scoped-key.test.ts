/** The compositional rendering of a key whose workflow has scopes. */
import { describe, expect, it } from 'vitest';
import { createCollationLayout } from '../../src/core/collation.js';
import { renderScopedKey } from '../../src/core/scoped-key.js';
import { childThread, reentryParent, threadOf } from '../../src/engine/threads.js';

describe('renderScopedKey', () => {
  it('puts a scope’s members between 1 and 2 right after its digit', () => {
    const layout = createCollationLayout(['a', 'pay', 'pay.charge', 'pay.hold', 'z']);
    const scopeOf = new Map([
      ['pay.charge', 'pay'],
      ['pay.hold', 'pay'],
    ]);
    expect(renderScopedKey(layout, 686690000000000n, scopeOf)).toBe('6816629');
  });

  it('nests scopes the same way', () => {
    const layout = createCollationLayout([
      'outer',
      'outer.first',
      'outer.inner',
      'outer.inner.deep',
      'start',
    ]);
    const scopeOf = new Map([
      ['outer.first', 'outer'],
      ['outer.inner', 'outer'],
      ['outer.inner.deep', 'outer.inner'],
    ]);
    expect(renderScopedKey(layout, 689980000000000n, scopeOf)).toBe('618919228');
  });
});

describe('threads', () => {
  it('names a thread under its parent and finds it back', () => {
    const t = childThread(childThread('', 'fan', 3), 'pay', 1);
    expect(t).toBe('fan#3/pay#1');
    expect(threadOf(`${t}/again#2`, 'pay')).toEqual({ thread: 'fan#3/pay#1', parent: 'fan#3' });
    expect(threadOf(t, 'nope')).toBeUndefined();
    // A cycle's next iteration is a sibling of its previous one, not nested in it.
    expect(reentryParent('pay#1/again#1', 'again')).toBe('pay#1');
    expect(reentryParent('pay#1', 'again')).toBe('pay#1');
  });
});
