/**
 * Redis definitions: a hash per workflow, `weft:{g}:def:<workflow>`, version → the record
 * as JSON (the definition as its canonical text, compared by definition-version.ts), and
 * the sorted set `weft:{g}:defs` of workflows.
 */
import {
  checkSameDefinition,
  definitionText,
  type NewDefinition,
} from '../../definition-version.js';
import type { DefinitionRecord, Json } from '../../records.js';
import { globalKeys as G } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';

interface Stored {
  workflow: string;
  version: number;
  model: DefinitionRecord['model'];
  text: string;
  source: string | null;
  createdAt: number;
}

function toRecord(stored: Stored): DefinitionRecord {
  return {
    workflow: stored.workflow,
    version: stored.version,
    model: stored.model,
    definition: JSON.parse(stored.text) as Json,
    source: stored.source,
    createdAt: stored.createdAt,
  };
}

/** Stores a version once; the same definition again returns the stored record. */
export async function putDefinition(tx: RedisTx, def: NewDefinition): Promise<DefinitionRecord> {
  const key = G.definition(def.workflow);
  const existing = await tx.hget(key, String(def.version));
  if (existing !== undefined) {
    const stored = JSON.parse(existing) as Stored;
    checkSameDefinition({ model: stored.model, text: stored.text }, def);
    return toRecord(stored);
  }
  const stored: Stored = {
    workflow: def.workflow,
    version: def.version,
    model: def.model,
    text: definitionText(def),
    source: def.source ?? null,
    createdAt: tx.now(),
  };
  tx.hset(key, [[String(def.version), JSON.stringify(stored)]]);
  tx.requireNew(key, String(def.version));
  tx.member(G.definitions, def.workflow, 0);
  return { ...def, source: def.source ?? null, createdAt: stored.createdAt };
}

/** Reads one version, or the newest. */
export async function getDefinition(
  tx: RedisTx,
  workflow: string,
  version?: number,
): Promise<DefinitionRecord | undefined> {
  const all = await tx.hgetall(G.definition(workflow));
  let text: string | undefined;
  if (version !== undefined) text = all.get(String(version));
  else {
    const newest = Math.max(...[...all.keys()].map(Number));
    text = Number.isFinite(newest) ? all.get(String(newest)) : undefined;
  }
  return text === undefined ? undefined : toRecord(JSON.parse(text) as Stored);
}

/** The newest version of every workflow, by workflow name. */
export async function listDefinitions(tx: RedisTx): Promise<DefinitionRecord[]> {
  const names = new Set(await tx.redis.zrange(G.definitions, '0', '-1'));
  for (const [name, score] of tx.ownMembers(G.definitions)) if (score !== null) names.add(name);
  const sorted = [...names].sort();
  const records = await Promise.all(sorted.map((name) => getDefinition(tx, name)));
  return records.filter((r): r is DefinitionRecord => r !== undefined);
}
