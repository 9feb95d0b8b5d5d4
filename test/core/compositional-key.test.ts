import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CompositionalNode,
  composeKey,
  compositionalNode,
  parseCompositionalKey,
  restoreCollationKey,
  trimCollationKey,
} from '../../src/core/compositional-key.js';
import { ValidationError } from '../../src/core/errors.js';

const flowA = 999969000000000n;
const flowB = 466366000000000n;

describe('compositional keys', () => {
  it("compose seed 000's example", () => {
    const tree = compositionalNode(flowA, [{ position: 4, node: compositionalNode(flowB) }]);
    expect(composeKey(tree)).toBe('99996146636629');
  });

  it("parse seed 000's example back to exactly the two keys", () => {
    const tree = parseCompositionalKey('99996146636629');
    expect(tree).toEqual({
      key: '999969',
      children: [{ position: 4, node: { key: '466366', children: [] } }],
    });
    expect(restoreCollationKey(tree.key)).toBe(flowA);
    expect(restoreCollationKey(tree.children[0]?.node.key as string)).toBe(flowB);
  });

  it('nest three levels deep', () => {
    const flowC = 36600000000000000000n; // a 20-activity child
    const tree = compositionalNode(flowA, [
      {
        position: 4,
        node: compositionalNode(flowB, [{ position: 1, node: compositionalNode(flowC) }]),
      },
    ]);
    const text = composeKey(tree);
    expect(text).toBe('9999614613662636629');
    const back = parseCompositionalKey(text);
    expect(back).toEqual(tree);
    const c = back.children[0]?.node.children[0]?.node as CompositionalNode;
    expect(restoreCollationKey(c.key, 20)).toBe(flowC);
  });

  it('hold several children at different positions, and two after one activity', () => {
    const tree = compositionalNode('966', [
      { position: 0, node: compositionalNode('6') },
      { position: 2, node: compositionalNode('73') },
      { position: 2, node: compositionalNode('4') },
    ]);
    const text = composeKey(tree);
    expect(text).toBe('9162661732142');
    expect(parseCompositionalKey(text)).toEqual(tree);
  });

  it('round-trip any tree', () => {
    const key = fc.stringMatching(/^[3-9]{1,8}$/);
    const tree = (depth: number): fc.Arbitrary<CompositionalNode> =>
      key.chain((k) =>
        fc.record({
          key: fc.constant(k),
          children:
            depth === 0
              ? fc.constant([])
              : fc
                  .array(fc.record({ position: fc.nat(k.length - 1), node: tree(depth - 1) }), {
                    maxLength: 3,
                  })
                  .map((children) => children.sort((a, b) => a.position - b.position)),
        }),
      );
    const node = tree(3);
    fc.assert(
      fc.property(node, (tree) => {
        expect(parseCompositionalKey(composeKey(tree))).toEqual(tree);
      }),
    );
  });

  it('reject bad input with a ValidationError', () => {
    expect(() => composeKey(compositionalNode('9126'))).toThrow(ValidationError);
    expect(() => composeKey(compositionalNode('0'))).toThrow(ValidationError);
    expect(() =>
      composeKey(compositionalNode('96', [{ position: 2, node: compositionalNode('6') }])),
    ).toThrow(ValidationError);
    for (const bad of ['', '16629', '9916', '99122', '9962', '99x6', '9912', '9901662']) {
      expect(() => parseCompositionalKey(bad), bad).toThrow(ValidationError);
    }
    expect(() => restoreCollationKey('9'.repeat(16))).toThrow(ValidationError);
  });

  it('trim trailing zeros only', () => {
    expect(trimCollationKey(flowA)).toBe('999969');
    expect(trimCollationKey('906000')).toBe('906');
  });
});
