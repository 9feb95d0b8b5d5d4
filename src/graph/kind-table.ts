/**
 * The kinds a compiler knows, indexed once: each kind's spec, its allowed fields (for
 * "unknown key" messages), and every field name that holds a duration.
 */
import type { KindSpec } from './kind-spec.js';

/** The activity kinds of one compiler, indexed. */
export interface KindTable {
  /** Specs by kind. */
  specs: ReadonlyMap<string, KindSpec>;
  /** Kind names, in table order. */
  names: readonly string[];
  /** The fields each kind allows, read from its document shape. */
  fields: Readonly<Record<string, readonly string[]>>;
  /** Names of the fields, at any depth of an activity, that hold durations. */
  durationFields: ReadonlySet<string>;
  /** Names of the fields, of any kind, that name a sibling activity. */
  references: readonly string[];
}

/** Indexes a list of kind specs; two specs of one kind are a programming error. */
export function kindTable(specs: readonly KindSpec[]): KindTable {
  const byKind = new Map<string, KindSpec>();
  const name = (spec: KindSpec) => spec.kind as string;
  for (const spec of specs) {
    if (byKind.has(name(spec))) throw new Error(`activity kind ${name(spec)} is declared twice`);
    byKind.set(name(spec), spec);
  }
  return {
    specs: byKind,
    names: [...byKind.keys()],
    fields: Object.fromEntries(specs.map((s) => [name(s), Object.keys(s.document.shape)])),
    durationFields: new Set(specs.flatMap((s) => s.durations ?? [])),
    references: [...new Set(specs.flatMap((s) => s.references ?? []))],
  };
}
