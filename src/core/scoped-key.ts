/**
 * The compositional rendering of a key whose workflow has scopes (seed 000's bookends,
 * used for scopes as for child jobs): the stored key stays one flat number over every
 * qualified id, and this writes it so a reader sees the nesting. After a scope's digit
 * come `1`, its members' digits (a nested scope rendered the same way), `2`; top-level
 * activities follow in collation order and trailing zeros are trimmed. A key without
 * scopes is printed flat, unchanged.
 *
 * Example: activities `a`, `pay` (a scope of `pay.charge` and `pay.hold`) and `z`, key
 * `686690000000000` (`a` 6, `pay` 8, `pay.charge` 6, `pay.hold` 6, `z` 9) renders as
 * `6816629`.
 */
import { type CollationLayout, collationDigits } from './collation.js';

/** Renders `key` with each scope's members between bookends after the scope's digit. */
export function renderScopedKey(
  layout: CollationLayout,
  key: bigint,
  scopeOf: ReadonlyMap<string, string>,
): string {
  const digits = collationDigits(layout, key);
  const children = new Map<string | undefined, string[]>();
  for (const id of layout.ids) {
    const parent = scopeOf.get(id);
    const list = children.get(parent) ?? [];
    list.push(id);
    children.set(parent, list);
  }
  const render = (parent: string | undefined): string => {
    let out = '';
    for (const id of children.get(parent) ?? []) {
      out += String(digits[layout.positions.get(id) as number]);
      if (children.has(id)) out += `1${render(id)}2`;
    }
    return out;
  };
  return render(undefined);
}
