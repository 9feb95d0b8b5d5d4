/**
 * Lays a traced job out as its hops: from `Client.start` to the first handler, from each
 * handler's start to the next one's (one workflow step), and from the last handler to
 * `Client.result` returning. Each hop's wall time is split into labelled parts — a
 * transaction's BEGIN (a connection and the BEGIN), each statement, the CPU between them,
 * its COMMIT; a handler; a direct call — and the waits between them (a notice, the event
 * loop). Parts are walked in time order and each instant counts once, so the parts of a
 * hop add up to its wall time even when the client's and the worker's calls overlap.
 */
import type { TraceEvent } from './tracing-store.js';

/** A labelled stretch of time. */
interface Part {
  label: string;
  t0: number;
  t1: number;
}

/** One hop of a job: its wall time and where it went, label → ms (in the order first seen). */
export interface Hop {
  name: string;
  ms: number;
  parts: Map<string, number>;
}

/** What a transaction is, by its first statement: `worker tx[ackMany…]`. */
function txLabel(side: string, first: string | undefined): string {
  return `${side} tx[${first ?? 'empty'}…]`;
}

function partsOf(event: TraceEvent): Part[] {
  if (event.kind === 'mark') return [{ label: `${event.side} ${event.name}`, ...event }];
  if (event.kind === 'call') return [{ label: `${event.side} ${event.name} (direct)`, ...event }];
  const tx = txLabel(event.side, event.calls[0]?.name);
  const parts: Part[] = [{ label: `${tx} BEGIN + connection`, t0: event.t0, t1: event.begun }];
  let at = event.begun;
  for (const call of event.calls) {
    if (call.t0 > at) parts.push({ label: `${tx} CPU between statements`, t0: at, t1: call.t0 });
    parts.push({ label: `${tx} ${call.name}`, t0: call.t0, t1: call.t1 });
    at = Math.max(at, call.t1);
  }
  if (event.fnEnd > at)
    parts.push({ label: `${tx} CPU between statements`, t0: at, t1: event.fnEnd });
  parts.push({ label: `${tx} COMMIT`, t0: event.fnEnd, t1: event.t1 });
  return parts;
}

/**
 * Which part an instant belongs to when several overlap: the worker's transactions (the
 * path a step takes), then the client's, then handlers, then direct calls (a client's
 * `getJob` waiting for the one connection of SQLite overlaps a worker's commit).
 */
function rank(label: string): number {
  if (label.startsWith('worker tx')) return 0;
  if (label.includes(' tx[')) return 1;
  if (label.endsWith(' handler')) return 2;
  return 3;
}

/** Splits `[from, to)` among the parts that fall in it, each instant once. */
function budget(name: string, parts: Part[], from: number, to: number): Hop {
  const out = new Map<string, number>();
  const add = (label: string, ms: number) => {
    if (ms > 0) out.set(label, (out.get(label) ?? 0) + ms);
  };
  const inside = parts.filter((p) => p.t1 > from && p.t0 < to && p.t1 > p.t0);
  const cuts = [
    ...new Set(
      [from, to, ...inside.flatMap((p) => [p.t0, p.t1])].filter((t) => t >= from && t <= to),
    ),
  ].sort((a, b) => a - b);
  for (let i = 0; i + 1 < cuts.length; i++) {
    const a = cuts[i] as number;
    const b = cuts[i + 1] as number;
    let owner: Part | undefined;
    for (const p of inside) {
      if (p.t0 <= a && p.t1 >= b && (!owner || rank(p.label) < rank(owner.label))) owner = p;
    }
    if (owner) add(owner.label, b - a);
    else {
      const next = inside.find((p) => p.t0 >= b);
      add(
        next
          ? `wait (event loop, notice) before ${next.label}`
          : 'wait (event loop) before the next hop',
        b - a,
      );
    }
  }
  return { name, ms: to - from, parts: out };
}

/**
 * The hops of one job whose events are `events`: `start` (Client.start until the first
 * handler starts), `step` for each handler until the next one starts, and `end` (the last
 * handler until Client.result returned). Handler marks are named `handler`.
 */
export function hopsOfJob(events: TraceEvent[]): Hop[] {
  const start = events.find((e) => e.kind === 'mark' && e.name === 'Client.start');
  const result = events.find((e) => e.kind === 'mark' && e.name === 'Client.result');
  if (!start || !result) return [];
  const handlers = events
    .filter((e) => e.kind === 'mark' && e.name === 'handler')
    .sort((a, b) => a.t0 - b.t0);
  const parts = events
    .filter((e) => e.kind !== 'mark' || e.name === 'handler')
    .flatMap(partsOf)
    .sort((a, b) => a.t0 - b.t0);
  const bounds = [start.t0, ...handlers.map((h) => h.t0), result.t1];
  return bounds.slice(0, -1).map((from, i) => {
    const name = i === 0 ? 'start' : i === handlers.length ? 'end' : 'step';
    return budget(name, parts, from, bounds[i + 1] as number);
  });
}

/** The mean of each part over `hops` (means add up to the mean wall time), largest first. */
export function meanBudget(hops: Hop[]): { ms: number; parts: [string, number][] } {
  const sums = new Map<string, number>();
  let total = 0;
  for (const hop of hops) {
    total += hop.ms;
    for (const [label, ms] of hop.parts) sums.set(label, (sums.get(label) ?? 0) + ms);
  }
  const n = Math.max(1, hops.length);
  return {
    ms: total / n,
    parts: [...sums]
      .map(([label, ms]) => [label, ms / n] as [string, number])
      .sort((a, b) => b[1] - a[1]),
  };
}
