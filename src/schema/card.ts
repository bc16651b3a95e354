import { z } from 'zod';
import { normalize } from '../core/normalize.js';

/** A timestamp as people and agents write it: a date, optionally with a time and an offset. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const timestamp = z.string().regex(TIMESTAMP, 'a date like 2026-08-20, 2026-08-20 13:56 or an ISO 8601 time');
const vaultPath = z.string().min(1);

/** `inputs` maps a slot name to one vault-relative path, or a list of them. */
export const cardInputs = z.record(z.string(), z.union([vaultPath, z.array(vaultPath)]));

export const cardSchema = z.looseObject({
  function: z.string().min(1),
  request: z.string().min(1),
  created: timestamp,
  origin: z.string().min(1),
  paths: z.array(vaultPath).nullish().transform((v) => v ?? []),
  attempts: z.number().int().min(0).nullish().transform((v) => v ?? 0),
  // Compared as `function` is: `priority: Urgent` is urgent.
  priority: z.preprocess((v) => (typeof v === 'string' ? normalize(v) : v), z.enum(['normal', 'urgent']).nullish()),
  inputs: cardInputs.nullish(),
  destination: vaultPath.nullish(),
  recipient: z.string().nullish(),
  push_reason: z.string().nullish(),
  flow: z.string().nullish(),
  director: z.string().nullish(),
  agent: z.string().nullish(),
  claimed: z.string().nullish(),
  model: z.string().nullish(),
  closed: z.string().nullish(),
  // Set by the system as "<date> <reason>"; an empty value or `false` means not blocked.
  blocked: z.union([z.string(), z.literal(false)]).nullish(),
});

export type Card = z.infer<typeof cardSchema>;

export const triggerSchema = z.object({
  every: z.enum(['day', 'week', 'month']),
  day: z.union([z.string(), z.number().int()]).optional(),
  time: z
    .string()
    .regex(/^([01]?\d|2[0-3]):[0-5]\d$/, 'a 24-hour time like 07:30')
    .optional(),
  active: z.boolean().default(true),
});

export type Trigger = z.infer<typeof triggerSchema>;

/** A template in `KANBAN/scheduled/`: a card without `created`, plus its trigger block. */
export const scheduledTemplateSchema = cardSchema
  .extend({ created: timestamp.optional(), trigger: triggerSchema })
  .superRefine((t, ctx) => {
    const { every, day } = t.trigger;
    if (day === undefined) return;
    if (every === 'week' && !(typeof day === 'string' && WEEKDAYS.includes(day.toLowerCase()))) {
      ctx.addIssue({ code: 'custom', path: ['trigger', 'day'], message: 'a weekday (monday … sunday) for `every: week`' });
    }
    if (every === 'month' && !(typeof day === 'number' && day >= 1 && day <= 31)) {
      ctx.addIssue({ code: 'custom', path: ['trigger', 'day'], message: 'a day of the month (1–31) for `every: month`' });
    }
    if (every === 'day') {
      ctx.addIssue({ code: 'custom', path: ['trigger', 'day'], message: '`day` has no meaning for `every: day`' });
    }
  });

export type ScheduledTemplate = z.infer<typeof scheduledTemplateSchema>;

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** The fields the standard's card table declares: the only ones the board ever writes. */
export const CARD_FIELDS = [
  'function', 'request', 'created', 'origin', 'paths', 'attempts', 'priority', 'inputs', 'destination',
  'recipient', 'push_reason', 'flow', 'director', 'agent', 'claimed', 'model', 'closed', 'blocked',
] as const;
export type CardField = (typeof CARD_FIELDS)[number];
