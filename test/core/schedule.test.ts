import { describe, expect, it } from 'vitest';
import { currentPeriod, dueInstance, previousPeriod } from '../../src/core/schedule.js';
import { triggerSchema, type Trigger } from '../../src/schema/card.js';

// TZ=UTC (vitest.config.ts): local time is UTC, so Date.UTC builds the expected instants.
const at = (y: number, m: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => new Date(y, m - 1, d, h, mi, s, ms);
const trig = (t: Record<string, unknown>): Trigger => triggerSchema.parse(t);
const iso = (p: { start: Date; due: Date; end: Date }) => ({ start: p.start.toISOString(), due: p.due.toISOString(), end: p.end.toISOString() });

describe('currentPeriod', () => {
  it.each([
    // every: day
    ['day, no time', { every: 'day' }, at(2026, 8, 20, 13, 56), ['2026-08-20T00:00', '2026-08-20T00:00', '2026-08-21T00:00']],
    ['day with time', { every: 'day', time: '07:30' }, at(2026, 8, 20, 0, 0), ['2026-08-20T00:00', '2026-08-20T07:30', '2026-08-21T00:00']],
    ['day, single-digit hour', { every: 'day', time: '7:05' }, at(2026, 8, 20), ['2026-08-20T00:00', '2026-08-20T07:05', '2026-08-21T00:00']],
    ['day, year end', { every: 'day', time: '23:59' }, at(2026, 12, 31, 23, 59, 59, 999), ['2026-12-31T00:00', '2026-12-31T23:59', '2027-01-01T00:00']],
    // every: week (ISO: Monday first)
    ['week on a Wednesday, default Monday', { every: 'week' }, at(2026, 8, 19, 12), ['2026-08-17T00:00', '2026-08-17T00:00', '2026-08-24T00:00']],
    ['week on Monday 00:00', { every: 'week', day: 'friday' }, at(2026, 8, 17), ['2026-08-17T00:00', '2026-08-21T00:00', '2026-08-24T00:00']],
    ['week on Sunday 23:59 still the same week', { every: 'week', day: 'sunday', time: '20:00' }, at(2026, 8, 23, 23, 59), ['2026-08-17T00:00', '2026-08-23T20:00', '2026-08-24T00:00']],
    ['week: capitalised weekday', { every: 'week', day: 'Thursday', time: '09:00' }, at(2026, 8, 23), ['2026-08-17T00:00', '2026-08-20T09:00', '2026-08-24T00:00']],
    ['week across a month end', { every: 'week', day: 'tuesday' }, at(2026, 9, 2), ['2026-08-31T00:00', '2026-09-01T00:00', '2026-09-07T00:00']],
    ['week across a year end (ISO week 1 of 2027 starts 2027-01-04)', { every: 'week', day: 'sunday' }, at(2027, 1, 3, 10), ['2026-12-28T00:00', '2027-01-03T00:00', '2027-01-04T00:00']],
    ['week starting in the previous year', { every: 'week', day: 'saturday' }, at(2026, 1, 1), ['2025-12-29T00:00', '2026-01-03T00:00', '2026-01-05T00:00']],
    // every: month
    ['month, default day 1', { every: 'month' }, at(2026, 8, 20), ['2026-08-01T00:00', '2026-08-01T00:00', '2026-09-01T00:00']],
    ['month day 15 at 08:00', { every: 'month', day: 15, time: '08:00' }, at(2026, 8, 3), ['2026-08-01T00:00', '2026-08-15T08:00', '2026-09-01T00:00']],
    ['month day 31 clamped in February 2027', { every: 'month', day: 31 }, at(2027, 2, 10), ['2027-02-01T00:00', '2027-02-28T00:00', '2027-03-01T00:00']],
    ['month day 31 clamped in leap February 2028', { every: 'month', day: 31 }, at(2028, 2, 10), ['2028-02-01T00:00', '2028-02-29T00:00', '2028-03-01T00:00']],
    ['month day 30 clamped in February 2028', { every: 'month', day: 30 }, at(2028, 2, 29, 23), ['2028-02-01T00:00', '2028-02-29T00:00', '2028-03-01T00:00']],
    ['month day 31 in a 30-day month', { every: 'month', day: 31, time: '12:00' }, at(2026, 4, 1), ['2026-04-01T00:00', '2026-04-30T12:00', '2026-05-01T00:00']],
    ['month day 31 in a 31-day month', { every: 'month', day: 31 }, at(2026, 12, 31), ['2026-12-01T00:00', '2026-12-31T00:00', '2027-01-01T00:00']],
  ])('%s', (_label, trigger, now, [start, due, end]) => {
    expect(iso(currentPeriod(trig(trigger), now))).toEqual({ start: `${start}:00.000Z`, due: `${due}:00.000Z`, end: `${end}:00.000Z` });
  });
});

describe('dueInstance', () => {
  it.each([
    // [label, trigger, now, expected]
    ['day: before time', { every: 'day', time: '07:30' }, at(2026, 8, 20, 7, 29, 59, 999), undefined],
    ['day: exactly at time', { every: 'day', time: '07:30' }, at(2026, 8, 20, 7, 30), '2026-08-20-digest.md'],
    ['day: later that day', { every: 'day', time: '07:30' }, at(2026, 8, 20, 23, 59), '2026-08-20-digest.md'],
    ['day: no time means due at midnight', { every: 'day' }, at(2026, 8, 20), '2026-08-20-digest.md'],
    ['day: inactive', { every: 'day', active: false }, at(2026, 8, 20, 12), undefined],
    ['week: before the weekday', { every: 'week', day: 'friday', time: '09:00' }, at(2026, 8, 20, 23), undefined],
    ['week: on the weekday before time', { every: 'week', day: 'friday', time: '09:00' }, at(2026, 8, 21, 8, 59), undefined],
    ['week: on the weekday at time', { every: 'week', day: 'friday', time: '09:00' }, at(2026, 8, 21, 9), '2026-08-21-digest.md'],
    ['week: later in the week, named after the due day', { every: 'week', day: 'friday', time: '09:00' }, at(2026, 8, 23, 22), '2026-08-21-digest.md'],
    ['week: Sunday -> Monday starts a new period', { every: 'week', day: 'friday', time: '09:00' }, at(2026, 8, 24, 0, 0), undefined],
    ['week: Sunday due, Sunday 23:59', { every: 'week', day: 'sunday', time: '23:00' }, at(2026, 8, 23, 23, 59), '2026-08-23-digest.md'],
    ['week: Sunday due, Monday after', { every: 'week', day: 'sunday', time: '23:00' }, at(2026, 8, 24, 0, 1), undefined],
    ['week: Monday default, Monday morning', { every: 'week' }, at(2026, 8, 24, 0, 1), '2026-08-24-digest.md'],
    ['week: inactive', { every: 'week', day: 'monday', active: false }, at(2026, 8, 25), undefined],
    ['month: before the day', { every: 'month', day: 15 }, at(2026, 8, 14, 23, 59), undefined],
    ['month: on the day', { every: 'month', day: 15 }, at(2026, 8, 15), '2026-08-15-digest.md'],
    ['month: end of month', { every: 'month', day: 15 }, at(2026, 8, 31, 23, 59), '2026-08-15-digest.md'],
    ['month: next month before the day: no catch-up', { every: 'month', day: 15 }, at(2026, 9, 1), undefined],
    ['month: day 31 in February 2027', { every: 'month', day: 31, time: '06:00' }, at(2027, 2, 28, 6), '2027-02-28-digest.md'],
    ['month: day 31 in February 2027 before time', { every: 'month', day: 31, time: '06:00' }, at(2027, 2, 28, 5, 59), undefined],
    ['month: day 31 in leap February 2028', { every: 'month', day: 31 }, at(2028, 2, 29, 0, 0), '2028-02-29-digest.md'],
    ['month: day 31 on 2028-02-28 not yet', { every: 'month', day: 31 }, at(2028, 2, 28, 23, 59), undefined],
    ['month: inactive', { every: 'month', day: 1, active: false }, at(2026, 8, 20), undefined],
  ])('%s', (_label, trigger, now, expected) => {
    expect(dueInstance('digest', trig(trigger), now)).toBe(expected);
  });

  it('names the instance with the slug as given', () => {
    expect(dueInstance('weekly-review-2', trig({ every: 'day' }), at(2026, 1, 1, 1))).toBe('2026-01-01-weekly-review-2.md');
  });

  it('treats a trigger without active (schema default) as active', () => {
    expect(triggerSchema.parse({ every: 'day' }).active).toBe(true);
  });
});

describe('previousPeriod', () => {
  it.each([
    ['day', { every: 'day', time: '07:00' }, at(2026, 3, 1, 12), ['2026-02-28T00:00', '2026-02-28T07:00', '2026-03-01T00:00']],
    ['week', { every: 'week', day: 'wednesday' }, at(2026, 8, 17), ['2026-08-10T00:00', '2026-08-12T00:00', '2026-08-17T00:00']],
    ['month clamped', { every: 'month', day: 31 }, at(2026, 3, 5), ['2026-02-01T00:00', '2026-02-28T00:00', '2026-03-01T00:00']],
  ])('%s', (_label, trigger, now, [start, due, end]) => {
    expect(iso(previousPeriod(trig(trigger), now))).toEqual({ start: `${start}:00.000Z`, due: `${due}:00.000Z`, end: `${end}:00.000Z` });
  });
});

describe('local time in a zone with daylight saving', () => {
  it('periods are calendar days and ISO weeks in local time across a DST change (Europe/Madrid)', () => {
    const saved = process.env.TZ;
    process.env.TZ = 'Europe/Madrid';
    try {
      // 2026-03-29: clocks go 02:00 -> 03:00. That Sunday has 23 hours.
      const sunday = new Date('2026-03-29T12:00:00+02:00');
      const day = currentPeriod(trig({ every: 'day', time: '09:00' }), sunday);
      expect([day.start.toISOString(), day.due.toISOString(), day.end.toISOString()]).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-29T22:00:00.000Z']);
      const week = currentPeriod(trig({ every: 'week', day: 'sunday', time: '09:00' }), sunday);
      expect([week.start.toISOString(), week.end.toISOString()]).toEqual(['2026-03-22T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
      expect(dueInstance('w', trig({ every: 'week', day: 'sunday', time: '09:00' }), sunday)).toBe('2026-03-29-w.md');
      // 23:30 UTC on Sunday is already Monday 01:30 in Madrid: a new week, not yet due.
      expect(dueInstance('w', trig({ every: 'week', day: 'monday', time: '02:00' }), new Date('2026-03-29T23:30:00Z'))).toBeUndefined();
      expect(dueInstance('w', trig({ every: 'week', day: 'monday', time: '01:00' }), new Date('2026-03-29T23:30:00Z'))).toBe('2026-03-30-w.md');
    } finally {
      process.env.TZ = saved;
    }
  });
});
