/**
 * An {@link Instance} as the store keeps it: a small head (its scalar fields, rewritten
 * on each step) and an append-only journal of entries, one per item of its collections —
 * branches, executions, statuses, properties versions, waits and buffered actions. A step
 * writes only what it added or replaced, so a long instance costs the same per step as a
 * short one.
 *
 * Entries are `(kind, key, data)`. For the collections that only grow (branches,
 * executions, statuses, properties) `key` is the item's index and a later entry for the
 * same index replaces the item (a status completing, a branch ending). For waits (by
 * uuid) and the buffer (by reception seq), which also shrink, a `null` data removes the
 * item. Folding every entry in order rebuilds the instance.
 *
 * Pure: the runtime (`instance-store.ts`) reads and writes the head and the entries.
 */
import { InvalidStateError } from '../core/errors.js';
import type { Json } from '../store/records.js';
import type {
  Branch,
  BufferedAction,
  Instance,
  PropertiesEntry,
  Status,
  Wait,
} from './instance.js';

/** What an entry records. */
export type EntryKind = 'branch' | 'execution' | 'status' | 'properties' | 'wait' | 'buffer';

/** One entry, before the store numbers it. */
export interface InstanceEntry {
  kind: EntryKind;
  key: string;
  data: Json;
}

/** The instance's collections, kept as entries. */
type Journaled = 'branches' | 'executions' | 'statuses' | 'properties' | 'waits' | 'buffer';

/** The instance without its collections, as kept in the job's `context`. */
export type InstanceHead = Omit<Instance, Journaled> & {
  /** (weft) how many entries the journal has: the seq of the last one. */
  journal: number;
  /**
   * (weft) a new value on every write, so a copy of the instance held in memory is known
   * current exactly when its rev is the stored one (a rolled-back write's rev never is).
   */
  rev: string;
};

const GROWING = [
  ['branches', 'branch'],
  ['executions', 'execution'],
  ['statuses', 'status'],
  ['properties', 'properties'],
] as const;

/** True when `context` is an instance head (a code-first job's context). */
export function isInstanceHead(context: Json): boolean {
  return (
    typeof context === 'object' &&
    context !== null &&
    !Array.isArray(context) &&
    typeof context.journal === 'number' &&
    typeof context.rev === 'string'
  );
}

/** The head of `instance`, once its journal holds `journal` entries, under `rev`. */
export function headOf(instance: Instance, journal: number, rev: string): InstanceHead {
  const {
    branches: _b,
    executions: _e,
    statuses: _s,
    properties: _p,
    waits: _w,
    buffer: _q,
    ...head
  } = instance;
  return { ...head, journal, rev };
}

/** Rebuilds an instance from its head and its journal's entries, in seq order. */
export function foldJournal(head: InstanceHead, entries: readonly InstanceEntry[]): Instance {
  const { journal: _journal, rev: _rev, properties_pending, ...scalars } = head;
  const branches: Branch[] = [];
  const executions: number[] = [];
  const statuses: Status[] = [];
  const properties: PropertiesEntry[] = [];
  const waits = new Map<string, Wait>();
  const buffer = new Map<string, BufferedAction>();
  const byIndex: Record<string, unknown[]> = {
    branch: branches,
    execution: executions,
    status: statuses,
    properties,
  };
  for (const entry of entries) {
    const list = byIndex[entry.kind];
    if (list) {
      list[Number(entry.key)] = entry.data;
    } else if (entry.kind === 'wait' || entry.kind === 'buffer') {
      const items = (entry.kind === 'wait' ? waits : buffer) as Map<string, unknown>;
      if (entry.data === null) items.delete(entry.key);
      else items.set(entry.key, entry.data);
    } else {
      throw new InvalidStateError('instance journal', entry.kind, 'folded', `of ${head.id}`);
    }
  }
  return {
    ...scalars,
    ...(properties_pending === true ? { properties_pending: true } : {}),
    branches,
    executions,
    statuses,
    properties,
    waits: [...waits.values()],
    buffer: [...buffer.values()],
  };
}

/** Entries for the items of a keyed collection that `after` added, replaced or removed. */
function keyedChanges<T>(
  kind: 'wait' | 'buffer',
  before: readonly T[],
  after: readonly T[],
  keyOf: (item: T) => string,
  out: InstanceEntry[],
): void {
  if (before === after) return;
  const old = new Map(before.map((item) => [keyOf(item), item]));
  for (const item of after) {
    const key = keyOf(item);
    if (old.get(key) !== item) out.push({ kind, key, data: item as unknown as Json });
    old.delete(key);
  }
  for (const key of old.keys()) out.push({ kind, key, data: null });
}

/**
 * The entries that turn `before`'s journal into `after`'s: every item `after` added or
 * replaced (the engine's functions copy on write, so an unchanged item is the same
 * object) and every wait or buffered action it removed. `before` null: a new instance,
 * every item.
 */
export function journalChanges(before: Instance | null, after: Instance): InstanceEntry[] {
  const out: InstanceEntry[] = [];
  for (const [field, kind] of GROWING) {
    const was: readonly unknown[] = before?.[field] ?? [];
    const now: readonly unknown[] = after[field];
    if (was === now) continue;
    if (now.length < was.length) {
      throw new InvalidStateError(
        `instance ${after.id} ${field}`,
        `${was.length} items`,
        `${now.length}`,
      );
    }
    for (let i = 0; i < now.length; i++) {
      if (now[i] !== was[i]) out.push({ kind, key: String(i), data: now[i] as Json });
    }
  }
  keyedChanges('wait', before?.waits ?? [], after.waits, (w) => w.uuid, out);
  keyedChanges('buffer', before?.buffer ?? [], after.buffer, (a) => String(a.seq), out);
  return out;
}
