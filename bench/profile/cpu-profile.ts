/**
 * CPU profiling of a stretch of the driver process with the inspector's sampling
 * profiler, summarised as self time by function and by area of the code (weft's layers,
 * the SQLite driver, pg, JSONata, Node internals, garbage collection).
 */
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Self time of one function or area, in ms and as a share of the profile. */
export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

/** A summarised profile. */
export interface CpuSummary {
  totalMs: number;
  byFunction: SelfTime[];
  byArea: SelfTime[];
}

/** Which part of the code a URL belongs to. */
export function areaOf(url: string, functionName: string): string {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(idle)' || functionName === '(program)') return functionName;
  const src = /\/src\/([a-z-]+)\/(?:([a-z-]+)\/)?/.exec(url);
  if (src) return src[1] === 'store' && src[2] ? `src/store/${src[2]}` : `src/${src[1]}`;
  if (url.includes('/bench/')) return 'bench driver';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return `node_modules/${module[1]}`;
  if (url.startsWith('node:') || url === '') return 'node internals / native';
  return 'other';
}

function summarise(profile: Profile, top: number): CpuSummary {
  const interval =
    profile.samples && profile.samples.length > 0
      ? (profile.endTime - profile.startTime) / 1000 / profile.samples.length
      : 1;
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const ms = hits * interval;
    total += ms;
    const where = url
      ? `${url.replace(/^.*\/(src|bench|node_modules)\//, '$1/')}:${lineNumber + 1}`
      : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const area = areaOf(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + ms);
  }
  const rank = (map: Map<string, number>) =>
    [...map]
      .map(([name, ms]) => ({ name, ms, share: total > 0 ? ms / total : 0 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top);
  return { totalMs: total, byFunction: rank(byFunction), byArea: rank(byArea) };
}

/** Profiles `fn` in this process; returns its result and the summary. */
export async function profileCpu<T>(
  fn: () => Promise<T>,
  top = 25,
): Promise<{ result: T; summary: CpuSummary; profile: unknown }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const result = await fn();
    const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
    return { result, summary: summarise(profile, top), profile };
  } finally {
    session.disconnect();
  }
}
