/** Times as a job's view shows them: ISO 8601 strings, and how long until a wait ends. */

/** An epoch-millisecond time as ISO 8601, or null. */
export const isoTime = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString();

/** "2h 5m", "3m 20s", "45s": how long until a wait ends. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const [d, h, m, sec] = [
    Math.floor(s / 86_400),
    Math.floor(s / 3600) % 24,
    Math.floor(s / 60) % 60,
    s % 60,
  ];
  const parts = d
    ? [`${d}d`, h && `${h}h`]
    : h
      ? [`${h}h`, m && `${m}m`]
      : m
        ? [`${m}m`, sec && `${sec}s`]
        : [`${sec}s`];
  return parts.filter(Boolean).join(' ');
}

/** `2026-01-31T12:00:00.000Z (in 2h 5m)`, or `(due)` once the time has come. */
export function until(at: number, now: number): string {
  const left = at - now;
  return `${new Date(at).toISOString()} (${left > 0 ? `in ${humanDuration(left)}` : 'due'})`;
}
