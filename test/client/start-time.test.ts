/** When a job starts: `Client.start`'s `startAt` and `delayMs`, checked before anything is stored. */
import { describe, expect, it } from 'vitest';
import { isoTimeOption } from '../../src/cli/time-option.js';
import { delayedStart } from '../../src/client/start-time.js';
import { ValidationError } from '../../src/core/errors.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');

describe('delayedStart', () => {
  it('starts at once without options, with no delay, or at a time already past', () => {
    expect(delayedStart({}, NOW)).toBeUndefined();
    expect(delayedStart({ delayMs: 0 }, NOW)).toBeUndefined();
    expect(delayedStart({ startAt: NOW - 1 }, NOW)).toBeUndefined();
    expect(delayedStart({ startAt: new Date(NOW) }, NOW)).toBeUndefined();
  });

  it('delays by delayMs, or to startAt given as a Date or epoch ms', () => {
    expect(delayedStart({ delayMs: 1500 }, NOW)).toBe(NOW + 1500);
    expect(delayedStart({ startAt: new Date('2026-11-27T03:00:00Z') }, NOW)).toBe(
      Date.parse('2026-11-27T03:00:00Z'),
    );
    expect(delayedStart({ startAt: NOW + 60_000 }, NOW)).toBe(NOW + 60_000);
  });

  it('refuses both at once, a delay out of range and a time that is not one', () => {
    const refused = (options: Parameters<typeof delayedStart>[0], text: RegExp) => {
      expect(() => delayedStart(options, NOW)).toThrow(ValidationError);
      expect(() => delayedStart(options, NOW)).toThrow(text);
    };
    refused({ delayMs: 1, startAt: NOW + 5 }, /startAt or delayMs, not both/);
    refused({ delayMs: -1 }, /delayMs -1 is not a whole number of ms/);
    refused({ delayMs: 1.5 }, /delayMs 1.5/);
    refused({ startAt: new Date('nope') }, /startAt null is not a time/);
    refused({ startAt: NOW + 1001 * 86_400_000 }, /within 1000 days/);
  });
});

describe('weft start --at', () => {
  it('reads an ISO time, UTC unless it names an offset', () => {
    expect(isoTimeOption('2026-11-27T03:00:00Z')).toBe(Date.parse('2026-11-27T03:00:00Z'));
    expect(isoTimeOption('2026-11-27T03:00')).toBe(Date.parse('2026-11-27T03:00:00Z'));
    expect(isoTimeOption('2026-11-27T04:00+01:00')).toBe(Date.parse('2026-11-27T03:00:00Z'));
    expect(isoTimeOption('2026-11-27')).toBe(Date.parse('2026-11-27T00:00:00Z'));
  });

  it('refuses anything else, naming the form it wants', () => {
    for (const bad of ['tomorrow', '03:00', '2026-13-01T00:00Z', '1764126000000']) {
      expect(() => isoTimeOption(bad)).toThrow(/Expected an ISO time such as/);
    }
  });
});
