/**
 * A lenient reading of a workflow document for the graph rules: whatever activities and
 * transitions can be made out, even when other parts of the document are malformed, so
 * one run of the compiler reports shape problems and graph problems together.
 */
import type { TransitionOn } from './compiled-workflow.js';

/** An activity as far as it could be read. */
export interface DraftActivity {
  id: string;
  /** Its kind, when it is one the compiler knows. */
  kind?: string;
  /** Its raw fields. */
  fields: Record<string, unknown>;
}

/** A transition as far as it could be read. */
export interface DraftTransition {
  from: string;
  to: string;
  /** Its outcome; `undefined` when the `on:` value is not a valid outcome. */
  on?: TransitionOn;
  when?: string;
  /** Where the list item is: `['transitions', from, index]`. */
  path: (string | number)[];
  /** True when the item is a map (`{ to, … }`) rather than a bare id. */
  detailed: boolean;
}

/** The readable parts of a workflow document. */
export interface Draft {
  workflow?: string;
  /** True when `activities:` is a map (possibly empty). */
  hasActivityMap: boolean;
  activities: Map<string, DraftActivity>;
  /** Source ids of the `transitions:` map, in file order. */
  sources: string[];
  transitions: DraftTransition[];
  /** The scopes, by qualified id (set by the compiler after flattening). */
  scopes: ReadonlyMap<string, { members: readonly string[]; entries: readonly string[] }>;
  /** The enclosing scope of each inner activity. */
  scopeOf: ReadonlyMap<string, string>;
}

const OUTCOMES: readonly string[] = ['success', 'error', 'timeout'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Reads what it can of `value`, knowing the activity kinds `kinds`; never throws. */
export function readDraft(value: unknown, kinds: ReadonlySet<string>): Draft {
  const draft: Draft = {
    hasActivityMap: false,
    activities: new Map(),
    sources: [],
    transitions: [],
    scopes: new Map(),
    scopeOf: new Map(),
  };
  if (!isPlainObject(value)) return draft;
  if (typeof value.workflow === 'string') draft.workflow = value.workflow;
  if (isPlainObject(value.activities)) {
    draft.hasActivityMap = true;
    for (const [id, raw] of Object.entries(value.activities)) {
      const fields = isPlainObject(raw) ? raw : {};
      const kind =
        typeof fields.kind === 'string' && kinds.has(fields.kind) ? fields.kind : undefined;
      draft.activities.set(id, { id, ...(kind && { kind }), fields });
    }
  }
  if (isPlainObject(value.transitions)) {
    for (const [from, list] of Object.entries(value.transitions)) {
      draft.sources.push(from);
      if (!Array.isArray(list)) continue;
      list.forEach((item: unknown, index) => {
        const path = ['transitions', from, index];
        if (typeof item === 'string') {
          draft.transitions.push({ from, to: item, on: 'success', path, detailed: false });
        } else if (isPlainObject(item) && typeof item.to === 'string') {
          const on =
            item.on === undefined
              ? 'success'
              : OUTCOMES.includes(item.on as string)
                ? item.on
                : undefined;
          draft.transitions.push({
            from,
            to: item.to,
            ...(on !== undefined && { on: on as TransitionOn }),
            ...(typeof item.when === 'string' && { when: item.when }),
            path,
            detailed: true,
          });
        }
      });
    }
  }
  return draft;
}
