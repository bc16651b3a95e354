import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, localDate, parseTimestamp } from '../../src/core/time.js';
import { TIMESTAMP } from '../../src/schema/card.js';

// vitest.config.ts pins TZ=UTC, so "local" is UTC here.
describe('parseTimestamp', () => {
  it.each([
    ['2026-08-20', Date.UTC(2026, 7, 20)],
    ['2026-08-20 13:56', Date.UTC(2026, 7, 20, 13, 56)],
    ['2026-08-20T13:56', Date.UTC(2026, 7, 20, 13, 56)],
    ['2026-08-20 13:56:07', Date.UTC(2026, 7, 20, 13, 56, 7)],
    ['2026-08-20T13:56:07.250', Date.UTC(2026, 7, 20, 13, 56, 7, 250)],
    ['2026-08-20T13:56:07.1234', Date.UTC(2026, 7, 20, 13, 56, 7, 123)],
    ['2026-08-20T13:56:07.9996Z', Date.UTC(2026, 7, 20, 13, 56, 8, 0)],
    ['2026-08-20T13:56:07Z', Date.UTC(2026, 7, 20, 13, 56, 7)],
    ['2026-08-20T13:56Z', Date.UTC(2026, 7, 20, 13, 56)],
    ['2026-08-20T13:56:07.000Z', Date.UTC(2026, 7, 20, 13, 56, 7)],
    ['2026-08-20T13:56:07+02:00', Date.UTC(2026, 7, 20, 11, 56, 7)],
    ['2026-08-20T13:56:07+0200', Date.UTC(2026, 7, 20, 11, 56, 7)],
    ['2026-08-20T13:56:07-05:30', Date.UTC(2026, 7, 20, 19, 26, 7)],
    ['2026-08-20 00:30+01:00', Date.UTC(2026, 7, 19, 23, 30)],
    ['2026-08-20T13:56:07+00:00', Date.UTC(2026, 7, 20, 13, 56, 7)],
    ['2026-08-20T13:56:07-00:00', Date.UTC(2026, 7, 20, 13, 56, 7)],
  ])('parseTimestamp(%j)', (text, expected) => {
    expect(parseTimestamp(text)).toBe(expected);
  });

  it("reads exactly the schema's timestamps", () => {
    const piece = fc.constantFrom('2026', '-', '08', '20', ' ', 'T', '13', ':', '56', '07', '.', '250', 'Z', 'z', '+', '02', '00', '0200', '1', 'x');
    const shaped = fc
      .tuple(fc.constantFrom('2026-08-20', '2026-8-20', '26-08-20'), fc.constantFrom('', ' 13:56', 'T13:56', 'T13:56:07', 'T13:56:07.25', 'T13', ' 1:56'), fc.constantFrom('', 'Z', 'z', '+02:00', '+0200', '-05:30', ' +02:00', '+2'))
      .map((p) => p.join(''));
    fc.assert(fc.property(fc.oneof(shaped, fc.array(piece, { maxLength: 14 }).map((p) => p.join(''))), (text) => TIMESTAMP.test(text) === !Number.isNaN(parseTimestamp(text))), { numRuns: 5000 });
  });

  it.each(['', 'now', '2026-8-20', '20-08-2026', '2026-08-20 1:56', '2026-08-20T13', '2026-08-20T13:56:07 +02:00', '2026-08-20T13:56:07z', ' 2026-08-20'])(
    '%j is not a timestamp',
    (text) => {
      expect(parseTimestamp(text)).toBeNaN();
    },
  );

  it('round-trips Date#toISOString', () => {
    const d = new Date(Date.UTC(2027, 1, 28, 23, 59, 59, 999));
    expect(parseTimestamp(d.toISOString())).toBe(d.getTime());
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [999, '0s'],
    [45_000, '45s'],
    [59_999, '59s'],
    [60_000, '1m'],
    [59 * 60_000, '59m'],
    [60 * 60_000, '1h'],
    [90 * 60_000, '1h30m'],
    [47 * 3_600_000 + 59 * 60_000, '47h59m'],
    [48 * 3_600_000, '2d'],
    [71 * 3_600_000, '2d'],
    [72 * 3_600_000, '3d'],
  ])('formatDuration(%i) = %j', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});

describe('localDate', () => {
  it.each([
    [new Date(2026, 0, 5, 23, 59), '2026-01-05'],
    [new Date(2028, 1, 29), '2028-02-29'],
  ])('%s -> %s', (date, expected) => {
    expect(localDate(date)).toBe(expected);
  });
});
