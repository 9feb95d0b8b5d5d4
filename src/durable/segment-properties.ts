/**
 * What a branch run writes into the properties timeline: the keys its last segment
 * changed (compared with the properties that segment started from), laid over the
 * properties current at the run's index. Keys the segment did not touch keep whatever
 * other branches wrote meanwhile.
 */
import { type JsonObject, jsonEqual } from './stable-json.js';

/**
 * The new properties, or null when nothing changes. `base` is `properties(index)`,
 * `start` the segment's starting properties, `end` the properties when the run stopped.
 */
export function mergeSegmentChanges(
  base: JsonObject,
  start: JsonObject,
  end: JsonObject,
): JsonObject | null {
  const merged: JsonObject = { ...base };
  let touched = false;
  for (const key of new Set([...Object.keys(start), ...Object.keys(end)])) {
    const before = start[key];
    const after = end[key];
    if (jsonEqual(before, after)) continue;
    touched = true;
    if (after === undefined) delete merged[key];
    else merged[key] = after;
  }
  if (!touched || jsonEqual(merged, base)) return null;
  return merged;
}
