/**
 * Job and message ids that sort by creation time: 10 characters of millisecond
 * timestamp and 16 of randomness, both in Crockford's base 32 (the ULID layout), so
 * plain string order is creation order. Within one millisecond a generator counts up
 * from its last id, so ids from one generator are strictly increasing.
 */
import type { Clock } from './clock.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_LENGTH = 10;
const RANDOM_LENGTH = 16;

/** Fills a buffer with random bytes; injected so `core/` stays free of I/O. */
export type RandomBytes = (size: number) => Uint8Array;

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < TIME_LENGTH; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function incrementBase32(value: string): string {
  const chars = value.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const index = ALPHABET.indexOf(chars[i] as string);
    if (index < 31) {
      chars[i] = ALPHABET[index + 1] as string;
      return chars.join('');
    }
    chars[i] = '0';
  }
  return chars.join('');
}

/** Makes time-sortable ids from a clock and a source of random bytes. */
export function createIdGenerator(clock: Clock, randomBytes: RandomBytes): () => string {
  let lastTime = -1;
  let lastRandom = '';
  return () => {
    const time = clock.now();
    if (time <= lastTime) {
      const next = incrementBase32(lastRandom);
      // The random part wrapped (all Z): move the time part on one millisecond instead,
      // so ids keep increasing.
      if (next < lastRandom) lastTime += 1;
      lastRandom = next;
      return encodeTime(lastTime) + lastRandom;
    }
    const bytes = randomBytes(RANDOM_LENGTH);
    let random = '';
    for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[(bytes[i] ?? 0) % 32];
    lastTime = time;
    lastRandom = random;
    return encodeTime(time) + random;
  };
}

/** The creation time, in epoch milliseconds, encoded in an id made by {@link createIdGenerator}. */
export function idTime(id: string): number {
  let ms = 0;
  for (const ch of id.slice(0, TIME_LENGTH)) ms = ms * 32 + ALPHABET.indexOf(ch);
  return ms;
}
