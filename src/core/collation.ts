/**
 * The collation key of a job (seed 000): one decimal digit per activity, held as a single
 * `bigint`. Positions come from the activity ids sorted ascending in plain UTF-16 code-unit
 * order (`a < b`, never `localeCompare`, so every process and database agrees); the i-th
 * sorted id owns digit i counted from the left; positions past the last activity are 0.
 *
 * Every state change is one signed add of `(to − from) × 10^(width−1−position)` to the whole
 * number, so a store applies it atomically (HINCRBY-style) without reading the key first,
 * and adds from different workers commute. Whether the job is finished is read off the number.
 */
import {
  ACTIVE_DIGITS,
  ACTIVITY_DIGITS,
  COLLATION_DIGITS,
  COLLATION_MOVES,
  type CollationDigit,
  type CollationMove,
  DIGIT_LABELS,
  findMove,
  isMoveAllowed,
} from './collation-digits.js';
import { InvalidStateError, NotFoundError, ValidationError } from './errors.js';

/** The smallest key width: seed 000's 15 digits. */
export const MIN_COLLATION_WIDTH = 15;

/** How one workflow's activities map onto digits. Build once per workflow version. */
export interface CollationLayout {
  /** Activity ids in ascending code-unit order; index = digit position. */
  readonly ids: readonly string[];
  /** Number of digits in the key: max(15, activity count). */
  readonly width: number;
  /** Position of each id. */
  readonly positions: ReadonlyMap<string, number>;
}

/** Plain code-unit order (`a < b` on strings), the order collation positions follow. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Builds the layout of a workflow from its activity ids (any order; duplicates rejected). */
export function createCollationLayout(ids: Iterable<string>): CollationLayout {
  const sorted = [...ids].sort(compareIds);
  const positions = new Map<string, number>();
  sorted.forEach((id, index) => {
    if (positions.has(id)) throw new ValidationError(`duplicate activity id ${JSON.stringify(id)}`);
    positions.set(id, index);
  });
  return { ids: sorted, width: Math.max(MIN_COLLATION_WIDTH, sorted.length), positions };
}

/** The digit position of an activity; {@link NotFoundError} for an id not in the layout. */
export function positionOf(layout: CollationLayout, id: string): number {
  const position = layout.positions.get(id);
  if (position === undefined) throw new NotFoundError('activity', id);
  return position;
}

/** The value of one unit at a position: `10^(width−1−position)`. */
export function placeValue(layout: CollationLayout, position: number): bigint {
  return 10n ** BigInt(layout.width - 1 - position);
}

/** The starting key: every activity pending (9), every other position 0. */
export function initialCollationKey(layout: CollationLayout): bigint {
  return BigInt('9'.repeat(layout.ids.length).padEnd(layout.width, '0'));
}

/** The key as exactly `width` decimal digits. */
export function formatCollationKey(layout: CollationLayout, key: bigint): string {
  return keyText(layout, key);
}

/** Parses and validates a key written as decimal digits (see {@link collationDigits}). */
export function parseCollationKey(layout: CollationLayout, text: string): bigint {
  if (!/^[0-9]+$/.test(text)) {
    throw new ValidationError(`collation key ${JSON.stringify(text)} is not decimal digits`);
  }
  const key = BigInt(text);
  collationDigits(layout, key);
  return key;
}

function keyText(layout: CollationLayout, key: bigint): string {
  if (key < 0n) throw new ValidationError(`collation key ${key} is negative`);
  const text = key.toString();
  if (text.length > layout.width) {
    throw new ValidationError(`collation key ${text} has more than ${layout.width} digits`);
  }
  return text.padStart(layout.width, '0');
}

/**
 * The digit of every activity, in sorted order. Throws {@link ValidationError} when the key
 * does not fit the layout: negative, too wide, an activity digit outside 3–9, or a non-zero
 * digit past the last activity.
 */
export function collationDigits(layout: CollationLayout, key: bigint): CollationDigit[] {
  const text = keyText(layout, key);
  const digits: CollationDigit[] = [];
  for (let i = 0; i < layout.width; i++) {
    const digit = Number(text[i]) as CollationDigit;
    if (i < layout.ids.length) {
      if (!ACTIVITY_DIGITS.includes(digit)) {
        throw new ValidationError(
          `collation key ${text}: digit ${digit} is not an activity state`,
          layout.ids[i],
        );
      }
      digits.push(digit);
    } else if (digit !== COLLATION_DIGITS.none) {
      throw new ValidationError(`collation key ${text}: position ${i} is past the last activity`);
    }
  }
  return digits;
}

/**
 * The digit at a position, by plain arithmetic and without validating the rest of the key:
 * `(key / 10^(width−1−position)) mod 10`. For callers that hold a width and a position
 * rather than a layout.
 */
export function digitAt(key: bigint, width: number, position: number): CollationDigit {
  if (key < 0n || position < 0 || position >= width) {
    throw new ValidationError(`no digit ${position} in a ${width}-digit collation key ${key}`);
  }
  return Number((key / 10n ** BigInt(width - 1 - position)) % 10n) as CollationDigit;
}

/** The digit of one activity. */
export function digitOf(layout: CollationLayout, key: bigint, id: string): CollationDigit {
  return collationDigits(layout, key)[positionOf(layout, id)] as CollationDigit;
}

/** The digit of every activity, by id (in sorted order). */
export function digitsById(layout: CollationLayout, key: bigint): Map<string, CollationDigit> {
  const digits = collationDigits(layout, key);
  return new Map(layout.ids.map((id, i) => [id, digits[i] as CollationDigit]));
}

/**
 * The add that moves an activity's digit from `from` to `to`: `(to − from) × 10^(width−1−position)`.
 * Unchecked: any pair of digits is accepted. Prefer {@link moveDelta}.
 */
export function digitDelta(
  layout: CollationLayout,
  id: string,
  from: CollationDigit,
  to: CollationDigit,
): bigint {
  return BigInt(to - from) * placeValue(layout, positionOf(layout, id));
}

function refuse(id: string, move: CollationMove, from: CollationDigit): InvalidStateError {
  const rule = COLLATION_MOVES[move];
  return new InvalidStateError(
    `collation:${id}`,
    String(from),
    String(rule.to),
    `move ${move} starts from ${rule.from.join('|')}`,
  );
}

/**
 * The signed add for a named move, computed without reading the key, so a store can apply
 * it atomically. `from` is the digit the caller knows the activity holds; it may be left out
 * when the move has one starting digit. Throws {@link InvalidStateError} when the move cannot
 * start from `from` (or `from` is needed and missing).
 */
export function moveDelta(
  layout: CollationLayout,
  id: string,
  move: CollationMove,
  from?: CollationDigit,
): bigint {
  const rule = COLLATION_MOVES[move];
  const start = from ?? (rule.from.length === 1 ? rule.from[0] : undefined);
  if (start === undefined) {
    throw new InvalidStateError(
      `collation:${id}`,
      '?',
      String(rule.to),
      `move ${move} needs the current digit`,
    );
  }
  if (!isMoveAllowed(move, start)) throw refuse(id, move, start);
  return digitDelta(layout, id, start, rule.to);
}

/**
 * Like {@link moveDelta} but reads the activity's current digit from `key` and throws
 * {@link InvalidStateError} (machine `collation:<id>`, from-digit, to-digit) when the move is
 * not allowed from it.
 */
export function checkedMoveDelta(
  layout: CollationLayout,
  key: bigint,
  id: string,
  move: CollationMove,
): bigint {
  const from = digitOf(layout, key, id);
  if (!isMoveAllowed(move, from)) throw refuse(id, move, from);
  return digitDelta(layout, id, from, COLLATION_MOVES[move].to);
}

/**
 * The checked add that takes an activity to digit `to` from the digit it holds in `key`,
 * whichever named move that is. Throws {@link InvalidStateError} when no move goes there.
 */
export function checkedDeltaTo(
  layout: CollationLayout,
  key: bigint,
  id: string,
  to: CollationDigit,
): bigint {
  const from = digitOf(layout, key, id);
  if (findMove(from, to) === undefined) {
    throw new InvalidStateError(`collation:${id}`, String(from), String(to), 'no such move');
  }
  return digitDelta(layout, id, from, to);
}

/** Applies a checked move and returns the new key. */
export function applyMove(
  layout: CollationLayout,
  key: bigint,
  id: string,
  move: CollationMove,
): bigint {
  return key + checkedMoveDelta(layout, key, id, move);
}

/** Activities still active (pending 9, started 8 or paused 5), in sorted order. */
export function activeActivities(layout: CollationLayout, key: bigint): string[] {
  const digits = collationDigits(layout, key);
  return layout.ids.filter((_, i) => ACTIVE_DIGITS.includes(digits[i] as CollationDigit));
}

/** True when no activity is active: the job can finish. */
export function isComplete(layout: CollationLayout, key: bigint): boolean {
  return activeActivities(layout, key).length === 0;
}

/** True when some activity errored (7). */
export function hasError(layout: CollationLayout, key: bigint): boolean {
  return collationDigits(layout, key).includes(COLLATION_DIGITS.errored);
}

/** One row of a per-activity table. */
export interface CollationRow {
  activity: string;
  /** The digit's name: Pending, Started, Errored, Completed, Paused, Released, Skipped. */
  state: string;
  digit: CollationDigit;
}

/**
 * The per-activity table of a key, like seed 000's. Rows follow `order` when given (the
 * graph order, say: every id must be in the layout, a subset is allowed), otherwise the
 * sorted order.
 */
export function collationTable(
  layout: CollationLayout,
  key: bigint,
  order?: readonly string[],
): CollationRow[] {
  const digits = collationDigits(layout, key);
  return (order ?? layout.ids).map((activity) => {
    const digit = digits[positionOf(layout, activity)] as CollationDigit;
    return { activity, state: DIGIT_LABELS[digit], digit };
  });
}

/** Renders rows as an aligned text table with the seed's headers (the CLI prints it). */
export function renderCollationTable(rows: readonly CollationRow[]): string {
  const header = ['Activity', 'State', 'Numeric Value'];
  const body = rows.map((row) => [row.activity, row.state, String(row.digit)]);
  const widths = header.map((title, col) =>
    Math.max(title.length, ...body.map((cells) => (cells[col] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, col) => cell.padEnd(widths[col] ?? 0)).join(' | ')} |`;
  const rule = `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`;
  return [line(header), rule, ...body.map(line)].join('\n');
}
