import { WEEKDAYS, type Trigger } from '../schema/card.js';
import { localDate } from './time.js';

/**
 * Step 0: scheduled cards. Periods are calendar days, ISO weeks (Monday first) and calendar
 * months in local time. Only the period that contains `now` is considered: earlier periods are
 * never caught up.
 */

export interface Period {
  readonly start: Date;
  /** The moment the period's instance becomes due (its day at `time`). */
  readonly due: Date;
  /** Exclusive end. */
  readonly end: Date;
}

export function currentPeriod(trigger: Trigger, now: Date): Period {
  const [hours, minutes] = (trigger.time ?? '00:00').split(':').map(Number) as [number, number];
  const y = now.getFullYear();
  const m = now.getMonth();
  const d = now.getDate();
  switch (trigger.every) {
    case 'day': {
      return {
        start: new Date(y, m, d),
        due: new Date(y, m, d, hours, minutes),
        end: new Date(y, m, d + 1),
      };
    }
    case 'week': {
      const sinceMonday = (now.getDay() + 6) % 7;
      const monday = d - sinceMonday;
      const weekday = trigger.day === undefined ? 0 : WEEKDAYS.indexOf(String(trigger.day).toLowerCase());
      return {
        start: new Date(y, m, monday),
        due: new Date(y, m, monday + Math.max(weekday, 0), hours, minutes),
        end: new Date(y, m, monday + 7),
      };
    }
    case 'month': {
      const lastDay = new Date(y, m + 1, 0).getDate();
      const wanted = trigger.day === undefined ? 1 : Number(trigger.day);
      return {
        start: new Date(y, m, 1),
        due: new Date(y, m, Math.min(Math.max(wanted, 1), lastDay), hours, minutes),
        end: new Date(y, m + 1, 1),
      };
    }
  }
}

/** The instance file name for a template slug in the period containing `now`, if due. */
export function dueInstance(slug: string, trigger: Trigger, now: Date): string | undefined {
  if (!trigger.active) return undefined;
  const period = currentPeriod(trigger, now);
  if (now.getTime() < period.due.getTime()) return undefined;
  return `${localDate(period.due)}-${slug}.md`;
}

/** The period before the one containing `now` (for reporting periods that no tick ran in). */
export function previousPeriod(trigger: Trigger, now: Date): Period {
  const start = currentPeriod(trigger, now).start;
  return currentPeriod(trigger, new Date(start.getTime() - 1));
}
