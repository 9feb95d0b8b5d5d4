import { describe, expect, it } from 'vitest';
import {
  type CompositionalChild,
  type CompositionalNode,
  composeKey,
  trimCollationKey,
} from '../../src/core/compositional-key.js';
import { ValidationError } from '../../src/core/errors.js';

function compositionalNode(
  key: bigint | string,
  children: CompositionalChild[] = [],
): CompositionalNode {
  return { key: String(key), children };
}

const flowA = 999969000000000n;
const flowB = 466366000000000n;

describe('compositional keys', () => {
  it("compose seed 000's example", () => {
    const tree = compositionalNode(flowA, [{ position: 4, node: compositionalNode(flowB) }]);
    expect(composeKey(tree)).toBe('99996146636629');
  });

  it('nest three levels deep', () => {
    const flowC = 36600000000000000000n; // a 20-activity child
    const tree = compositionalNode(flowA, [
      {
        position: 4,
        node: compositionalNode(flowB, [{ position: 1, node: compositionalNode(flowC) }]),
      },
    ]);
    expect(composeKey(tree)).toBe('9999614613662636629');
  });

  it('hold several children at different positions, and two after one activity', () => {
    const tree = compositionalNode('966', [
      { position: 0, node: compositionalNode('6') },
      { position: 2, node: compositionalNode('73') },
      { position: 2, node: compositionalNode('4') },
    ]);
    expect(composeKey(tree)).toBe('9162661732142');
  });

  it('reject bad input with a ValidationError', () => {
    expect(() => composeKey(compositionalNode('9126'))).toThrow(ValidationError);
    expect(() => composeKey(compositionalNode('0'))).toThrow(ValidationError);
    expect(() =>
      composeKey(compositionalNode('96', [{ position: 2, node: compositionalNode('6') }])),
    ).toThrow(ValidationError);
    expect(() => trimCollationKey('99x6')).toThrow(ValidationError);
  });

  it('trim trailing zeros only', () => {
    expect(trimCollationKey(flowA)).toBe('999969');
    expect(trimCollationKey('906000')).toBe('906');
  });
});
