/**
 * Cron expressions in a time zone: the ticks a schedule waits for, daylight saving in
 * both directions as docs/flow-control.md says, and the errors a bad expression or zone
 * gets.
 */
import { describe, expect, it } from 'vitest';
import { CronTimes } from '../../src/core/cron.js';
import { ValidationError } from '../../src/core/errors.js';

const iso = (ms: number[]) => ms.map((t) => new Date(t).toISOString());
const at = (text: string) => Date.parse(text);

describe('cron times', () => {
  it('lists the next ticks strictly after a time, in UTC by default', () => {
    const cron = new CronTimes('0 3 * * *');
    expect(iso(cron.upcoming(3, at('2026-11-26T03:00:00Z')))).toEqual([
      '2026-11-27T03:00:00.000Z',
      '2026-11-28T03:00:00.000Z',
      '2026-11-29T03:00:00.000Z',
    ]);
  });

  it('reads six fields with seconds first, and nicknames', () => {
    const everySecond = new CronTimes('* * * * * *');
    expect(everySecond.next(at('2026-01-01T00:00:00.500Z'))).toBe(at('2026-01-01T00:00:01Z'));
    expect(new CronTimes('@daily').next(at('2026-01-01T00:00:00Z'))).toBe(
      at('2026-01-02T00:00:00Z'),
    );
  });

  it('lists the ticks of a range, both ends included, up to a cap', () => {
    const cron = new CronTimes('*/15 * * * *');
    expect(
      iso(cron.between(at('2026-01-01T00:00:00Z'), at('2026-01-01T00:30:00Z'), 10).ticks),
    ).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-01T00:15:00.000Z', '2026-01-01T00:30:00.000Z']);
    expect(cron.between(at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z'), 10)).toMatchObject({
      more: true,
      ticks: { length: 10 },
    });
  });

  it('runs a time that spring-forward skips at the first time after the gap (Berlin, 29 March 2026)', () => {
    // 02:30 does not exist on 29 March in Berlin: clocks go from 02:00 CET to 03:00 CEST.
    const cron = new CronTimes('30 2 * * *', 'Europe/Berlin');
    expect(iso(cron.upcoming(3, at('2026-03-27T12:00:00Z')))).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST, the first time after the gap
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('runs a fixed time that fall-back repeats once, and keeps an interval through the repeated hour (Berlin, 25 October 2026)', () => {
    const daily = new CronTimes('30 2 * * *', 'Europe/Berlin');
    expect(iso(daily.upcoming(3, at('2026-10-23T12:00:00Z')))).toEqual([
      '2026-10-24T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, the first of the two; not again at 02:30 CET
      '2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
    const halfHourly = new CronTimes('*/30 * * * *', 'Europe/Berlin');
    expect(
      iso(halfHourly.between(at('2026-10-25T00:00:00Z'), at('2026-10-25T02:00:00Z'), 10).ticks),
    ).toEqual([
      '2026-10-25T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T01:00:00.000Z', // 02:00 CET
      '2026-10-25T01:30:00.000Z', // 02:30 CET
      '2026-10-25T02:00:00.000Z', // 03:00 CET
    ]);
  });

  it('refuses a bad expression, an unknown zone and a date that never comes, naming them', () => {
    const refusal = (expression: string, zone?: string) => {
      try {
        new CronTimes(expression, zone, 'schedule nightly');
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('61 * * * *')).toMatch(
      /^schedule nightly: cron expression "61 \* \* \* \*" is not valid: .*minute/,
    );
    expect(refusal('* * * *')).toMatch(/"\* \* \* \*" is not valid: .*five, six, or seven/);
    expect(refusal('0 3 * * *', 'Mars/Olympus')).toBe(
      'schedule nightly: time zone "Mars/Olympus" is not an IANA time zone (for example UTC, Europe/Berlin, America/New_York)',
    );
    expect(refusal('0 0 31 2 *')).toBe(
      'schedule nightly: cron expression "0 0 31 2 *" never matches a date',
    );
  });
});
