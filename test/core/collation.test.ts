import { describe, expect, it } from 'vitest';
import {
  activeActivities,
  applyMove,
  type CollationLayout,
  checkedDeltaTo,
  checkedMoveDelta,
  collationDigits,
  collationTable,
  compareIds,
  createCollationLayout,
  digitAt,
  digitDelta,
  digitOf,
  digitsById,
  formatCollationKey,
  hasError,
  initialCollationKey,
  isComplete,
  moveDelta,
  parseCollationKey,
  positionOf,
  renderCollationTable,
} from '../../src/core/collation.js';
import type { CollationMove } from '../../src/core/collation-digits.js';
import { InvalidStateError, NotFoundError, ValidationError } from '../../src/core/errors.js';

// quick => brown => fox => (jumped|(slept => ate)), in graph order.
const GRAPH_ORDER = ['quick', 'brown', 'fox', 'jumped', 'slept', 'ate'];
const layout = createCollationLayout(GRAPH_ORDER);

function run(from: bigint, moves: [string, CollationMove][]): bigint {
  return moves.reduce((key, [id, move]) => applyMove(layout, key, id, move), from);
}
const show = (key: bigint) => formatCollationKey(layout, key);
const table = (key: bigint) =>
  collationTable(layout, key, GRAPH_ORDER).map((r) => [r.activity, r.state, r.digit]);

// Seed 000's example keys, reached by applying moves.
const triggerDone = run(initialCollationKey(layout), [
  ['quick', 'start'],
  ['quick', 'complete'],
]);
const example1 = run(triggerDone, [
  ['brown', 'start'],
  ['brown', 'complete'],
  ['fox', 'start'],
]);
const example2 = run(example1, [
  ['fox', 'complete'],
  ['jumped', 'start'],
  ['slept', 'skip'],
  ['ate', 'skip'],
]);
const example3 = run(example2, [['jumped', 'complete']]);
const ateRan = run(example1, [
  ['fox', 'complete'],
  ['jumped', 'skip'],
  ['slept', 'start'],
  ['slept', 'complete'],
  ['ate', 'start'],
]);
const example4 = run(ateRan, [
  ['ate', 'complete'],
  ['ate', 'pause'],
]);
const example5 = run(example4, [['ate', 'release']]);
const errorExample = run(ateRan, [['ate', 'error']]);

describe('collation layout', () => {
  it('sorts ids in plain code-unit order, as the seed lists them', () => {
    expect(layout.ids).toEqual(['ate', 'brown', 'fox', 'jumped', 'quick', 'slept']);
    expect(positionOf(layout, 'quick')).toBe(4);
    expect(layout.width).toBe(15);
  });

  it('uses code-unit order, not locale order', () => {
    const l = createCollationLayout(['b', 'B', 'a', 'Z', 'é', 'e']);
    expect(l.ids).toEqual(['B', 'Z', 'a', 'b', 'e', 'é']);
    expect(['b', 'a'].sort(compareIds)).toEqual(['a', 'b']);
  });

  it('rejects duplicate ids and unknown ids', () => {
    expect(() => createCollationLayout(['a', 'b', 'a'])).toThrow(ValidationError);
    expect(() => positionOf(layout, 'dog')).toThrow(NotFoundError);
  });

  it('starts with every activity pending and zeros past the last one', () => {
    expect(show(initialCollationKey(layout))).toBe('999999000000000');
  });
});

describe('seed 000 keys, reached by applying moves', () => {
  it('the trigger completes', () => {
    expect(show(triggerDone)).toBe('999969000000000');
  });

  it('Example 1', () => {
    expect(show(example1)).toBe('968969000000000');
    expect(table(example1)).toEqual([
      ['quick', 'Completed', 6],
      ['brown', 'Completed', 6],
      ['fox', 'Started', 8],
      ['jumped', 'Pending', 9],
      ['slept', 'Pending', 9],
      ['ate', 'Pending', 9],
    ]);
    expect(isComplete(layout, example1)).toBe(false);
  });

  it('Example 2', () => {
    expect(show(example2)).toBe('366863000000000');
    expect(table(example2)).toEqual([
      ['quick', 'Completed', 6],
      ['brown', 'Completed', 6],
      ['fox', 'Completed', 6],
      ['jumped', 'Started', 8],
      ['slept', 'Skipped', 3],
      ['ate', 'Skipped', 3],
    ]);
    expect(activeActivities(layout, example2)).toEqual(['jumped']);
  });

  it('Example 3: jumped completes by subtracting 2 at its digit, and the job is complete', () => {
    expect(moveDelta(layout, 'jumped', 'complete')).toBe(-200_000_000_000n);
    expect(show(example3)).toBe('366663000000000');
    expect(table(example3)).toEqual([
      ['quick', 'Completed', 6],
      ['brown', 'Completed', 6],
      ['fox', 'Completed', 6],
      ['jumped', 'Completed', 6],
      ['slept', 'Skipped', 3],
      ['ate', 'Skipped', 3],
    ]);
    expect(isComplete(layout, example3)).toBe(true);
    expect(hasError(layout, example3)).toBe(false);
  });

  it('Example 4: ate paused keeps the job open', () => {
    expect(show(example4)).toBe('566366000000000');
    expect(table(example4)).toEqual([
      ['quick', 'Completed', 6],
      ['brown', 'Completed', 6],
      ['fox', 'Completed', 6],
      ['jumped', 'Skipped', 3],
      ['slept', 'Completed', 6],
      ['ate', 'Paused', 5],
    ]);
    expect(activeActivities(layout, example4)).toEqual(['ate']);
    expect(isComplete(layout, example4)).toBe(false);
  });

  it('Example 5: ate released (−1 at its digit), complete', () => {
    expect(moveDelta(layout, 'ate', 'release')).toBe(-100_000_000_000_000n);
    expect(show(example5)).toBe('466366000000000');
    expect(table(example5).at(-1)).toEqual(['ate', 'Released', 4]);
    expect(isComplete(layout, example5)).toBe(true);
    expect(hasError(layout, example5)).toBe(false);
  });

  it('ERROR example: ate errored, complete with an error', () => {
    expect(show(errorExample)).toBe('766366000000000');
    expect(table(errorExample)).toEqual([
      ['quick', 'Completed', 6],
      ['brown', 'Completed', 6],
      ['fox', 'Completed', 6],
      ['jumped', 'Skipped', 3],
      ['slept', 'Completed', 6],
      ['ate', 'Errored', 7],
    ]);
    expect(isComplete(layout, errorExample)).toBe(true);
    expect(hasError(layout, errorExample)).toBe(true);
  });

  it('renders a table the CLI can print', () => {
    expect(renderCollationTable(collationTable(layout, example2, GRAPH_ORDER))).toBe(
      [
        '| Activity | State     | Numeric Value |',
        '| -------- | --------- | ------------- |',
        '| quick    | Completed | 6             |',
        '| brown    | Completed | 6             |',
        '| fox      | Completed | 6             |',
        '| jumped   | Started   | 8             |',
        '| slept    | Skipped   | 3             |',
        '| ate      | Skipped   | 3             |',
      ].join('\n'),
    );
    expect(collationTable(layout, example2).map((r) => r.activity)).toEqual(layout.ids);
    expect(() => collationTable(layout, example2, ['dog'])).toThrow(NotFoundError);
  });
});

describe('moves', () => {
  it('re-entering a finished activity moves it back up to pending', () => {
    const again = applyMove(layout, example5, 'ate', 'reenter');
    expect(show(again)).toBe('966366000000000');
    expect(activeActivities(layout, again)).toEqual(['ate']);
    const cases: [bigint, string, number][] = [
      [example3, 'quick', 6],
      [errorExample, 'ate', 7],
      [example3, 'ate', 3],
    ];
    for (const [key, id, from] of cases) {
      expect(digitOf(layout, key, id)).toBe(from);
      expect(digitOf(layout, applyMove(layout, key, id, 'reenter'), id)).toBe(9);
    }
  });

  it('a move from the wrong digit throws InvalidStateError naming the activity and digits', () => {
    const error = (() => {
      try {
        checkedMoveDelta(layout, example1, 'fox', 'pause');
      } catch (e) {
        return e;
      }
    })() as InvalidStateError;
    expect(error).toBeInstanceOf(InvalidStateError);
    expect(error).toMatchObject({ machine: 'collation:fox', from: '8', to: '5' });
    expect(() => applyMove(layout, example1, 'jumped', 'complete')).toThrow(InvalidStateError);
    expect(() => applyMove(layout, example3, 'quick', 'start')).toThrow(InvalidStateError);
    expect(() => applyMove(layout, example4, 'ate', 'reenter')).toThrow(InvalidStateError);
  });

  it('moveDelta needs no key, checks the starting digit, and needs it for multi-start moves', () => {
    expect(moveDelta(layout, 'quick', 'start')).toBe(-10_000_000_000n);
    expect(moveDelta(layout, 'ate', 'reenter', 4)).toBe(500_000_000_000_000n);
    expect(() => moveDelta(layout, 'ate', 'reenter')).toThrow(InvalidStateError);
    expect(() => moveDelta(layout, 'ate', 'reenter', 8)).toThrow(InvalidStateError);
    expect(digitDelta(layout, 'slept', 9, 6)).toBe(-3n * 10n ** 9n);
  });

  it('checkedDeltaTo finds the move by target digit', () => {
    expect(checkedDeltaTo(layout, example1, 'fox', 6)).toBe(moveDelta(layout, 'fox', 'complete'));
    expect(() => checkedDeltaTo(layout, example1, 'fox', 4)).toThrow(InvalidStateError);
  });

  it('adds on different activities commute, so concurrent workers agree', () => {
    const one = run(example1, [
      ['jumped', 'start'],
      ['slept', 'skip'],
    ]);
    const other = run(example1, [
      ['slept', 'skip'],
      ['jumped', 'start'],
    ]);
    expect(one).toBe(other);
    expect(one).toBe(
      example1 + moveDelta(layout, 'jumped', 'start') + moveDelta(layout, 'slept', 'skip'),
    );
  });
});

describe('key validation and readings', () => {
  it('parses and rejects keys that do not fit the layout', () => {
    expect(parseCollationKey(layout, '968969000000000')).toBe(example1);
    for (const bad of [
      '96896900000000x',
      '9689690000000001',
      '968969000000100',
      '968929000000000',
    ]) {
      expect(() => parseCollationKey(layout, bad)).toThrow(ValidationError);
    }
    expect(() => collationDigits(layout, -1n)).toThrow(ValidationError);
  });

  it('digitAt reads by width and position', () => {
    expect(digitAt(example1, 15, 2)).toBe(8);
    expect(digitAt(example1, 15, 14)).toBe(0);
    expect(() => digitAt(example1, 15, 15)).toThrow(ValidationError);
  });

  it('digitsById maps every id', () => {
    expect(Object.fromEntries(digitsById(layout, example4))).toEqual({
      ate: 5,
      brown: 6,
      fox: 6,
      jumped: 3,
      quick: 6,
      slept: 6,
    });
  });
});

describe('wide keys', () => {
  const ids = Array.from({ length: 200 }, (_, i) => `a${String(i).padStart(3, '0')}`);
  const wide: CollationLayout = createCollationLayout([...ids].reverse());

  it('a 200-activity graph gets a 200-digit key, exact beyond 2^53', () => {
    expect(wide.width).toBe(200);
    let key = initialCollationKey(wide);
    expect(formatCollationKey(wide, key)).toBe('9'.repeat(200));
    key = applyMove(wide, key, 'a000', 'start');
    key = applyMove(wide, key, 'a199', 'skip');
    key = applyMove(wide, key, 'a100', 'start');
    key = applyMove(wide, key, 'a100', 'error');
    const text = formatCollationKey(wide, key);
    expect(text).toBe(`8${'9'.repeat(99)}7${'9'.repeat(98)}3`);
    expect(digitOf(wide, key, 'a100')).toBe(7);
    expect(hasError(wide, key)).toBe(true);
    expect(activeActivities(wide, key)).toHaveLength(198);
    for (const id of ids.slice(1, 199)) {
      if (id !== 'a100') key = applyMove(wide, key, id, 'skip');
    }
    key = applyMove(wide, key, 'a000', 'complete');
    key = applyMove(wide, key, 'a100', 'reenter');
    expect(activeActivities(wide, key)).toEqual(['a100']);
    key = applyMove(wide, applyMove(wide, key, 'a100', 'start'), 'a100', 'complete');
    expect(isComplete(wide, key)).toBe(true);
    expect(formatCollationKey(wide, key)).toBe(`6${'3'.repeat(99)}6${'3'.repeat(99)}`);
  });

  it('fewer than 15 activities still use 15 digits; an empty workflow is complete', () => {
    const empty = createCollationLayout([]);
    expect(formatCollationKey(empty, initialCollationKey(empty))).toBe('0'.repeat(15));
    expect(isComplete(empty, 0n)).toBe(true);
  });
});
