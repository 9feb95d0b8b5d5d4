import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  activeActivities,
  applyMove,
  collationDigits,
  createCollationLayout,
  digitOf,
  formatCollationKey,
  hasError,
  initialCollationKey,
  isComplete,
  moveDelta,
} from '../../src/core/collation.js';
import {
  COLLATION_MOVES,
  type CollationDigit,
  type CollationMove,
} from '../../src/core/collation-digits.js';
import { InvalidStateError } from '../../src/core/errors.js';

const MOVES = Object.keys(COLLATION_MOVES) as CollationMove[];

/** The naive model: an array of digits, one per sorted id, moved one digit at a time. */
function naiveStep(digits: number[], index: number, move: CollationMove): boolean {
  const rule = COLLATION_MOVES[move];
  const current = digits[index] as CollationDigit;
  if (!rule.from.includes(current)) return false;
  digits[index] = rule.to;
  return true;
}

const scenario = fc
  .uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 40 })
  .chain((ids) =>
    fc.record({
      ids: fc.constant(ids),
      steps: fc.array(
        fc.record({ index: fc.nat(ids.length - 1), move: fc.constantFrom(...MOVES) }),
        { maxLength: 120 },
      ),
    }),
  );

describe('collation key against a per-digit model', () => {
  it('any sequence of moves keeps digits valid and readings equal to the model', () => {
    fc.assert(
      fc.property(scenario, ({ ids, steps }) => {
        const layout = createCollationLayout(ids);
        const model = layout.ids.map(() => 9);
        let key = initialCollationKey(layout);
        for (const { index, move } of steps) {
          const id = layout.ids[index] as string;
          const before = key;
          const legal = naiveStep(model, index, move);
          if (legal) {
            key = applyMove(layout, key, id, move);
            expect(key - before).toBe(moveDelta(layout, id, move, digitOf(layout, before, id)));
          } else {
            expect(() => applyMove(layout, key, id, move)).toThrow(InvalidStateError);
          }
          const text = formatCollationKey(layout, key);
          expect(text).toMatch(/^[0-9]+$/);
          expect(text).toBe(model.join('').padEnd(layout.width, '0'));
        }
        expect(collationDigits(layout, key)).toEqual(model);
        expect(activeActivities(layout, key)).toEqual(
          layout.ids.filter((_, i) => [9, 8, 5].includes(model[i] as number)),
        );
        expect(isComplete(layout, key)).toBe(!model.some((d) => d === 9 || d === 8 || d === 5));
        expect(hasError(layout, key)).toBe(model.includes(7));
      }),
      { numRuns: 300 },
    );
  });

  it('a refused move leaves the key unchanged and the error names the digits', () => {
    fc.assert(
      fc.property(scenario, ({ ids, steps }) => {
        const layout = createCollationLayout(ids);
        let key = initialCollationKey(layout);
        for (const { index, move } of steps) {
          const id = layout.ids[index] as string;
          const from = digitOf(layout, key, id);
          try {
            key = applyMove(layout, key, id, move);
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidStateError);
            expect(error).toMatchObject({
              machine: `collation:${id}`,
              from: String(from),
              to: String(COLLATION_MOVES[move].to),
            });
            expect(digitOf(layout, key, id)).toBe(from);
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
