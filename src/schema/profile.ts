import { z } from 'zod';
import { budgetSchema } from './config.js';

/** A descriptor list: one string, or a list of strings (the standard writes both). */
const descriptors = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (typeof v === 'string' ? [v] : v));

const port = z.looseObject({
  name: z.string().min(1),
  type: z.string().optional(),
  transport: z.string().optional(),
  wireable: z.boolean().optional(),
  default: z.unknown().optional(),
  description: z.string().optional(),
});

/** A profile's name: a trade name in kebab-case. */
export const PROFILE_NAME = /^[a-z0-9][a-z0-9-]*$/;

export const modelCapacity = z.enum(['minimum', 'standard', 'advanced']);
export const modelModality = z.enum(['text', 'audio', 'image']);

const profileFields = {
  name: z.string().regex(PROFILE_NAME, 'a trade name in kebab-case, like "transcriber"'),
  version: z.union([z.string().min(1), z.number()]).transform(String),
  description: z.string().min(1),
  function: z.string().min(1),
  handles: descriptors.refine((d) => d.length > 0, 'needs at least one phrase, e.g. `handles: [meeting notes]`'),
  refuses: descriptors.optional(),
  inputs: z.array(port).optional(),
  outputs: z.array(port).optional(),
  guarantees: z.array(z.string()).optional(),
  model_capacity: modelCapacity.default('standard'),
  model_modality: modelModality.default('text'),
  harness: z.string().min(1).optional(),
  /** Spend limit per run (tokens, USD); lower than the harness's, it wins. */
  budget: budgetSchema.optional(),
  record: z.record(z.string(), z.unknown()).optional(),
};

/**
 * A profile's rank is a discriminated union on which list it carries: `skills` makes a worker,
 * `profiles` + `failure_policy` a director. There is no `rank:` field on purpose.
 */
export const profileSchema = z
  .looseObject({
    ...profileFields,
    skills: z.array(z.string().min(1)).optional(),
    profiles: z.array(z.string().min(1)).optional(),
    failure_policy: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  })
  .superRefine((p, ctx) => {
    const worker = p.skills !== undefined;
    const director = p.profiles !== undefined || p.failure_policy !== undefined;
    if (worker && director) {
      ctx.addIssue({
        code: 'custom',
        path: ['skills'],
        message: 'a profile is a worker (skills) or a director (profiles + failure_policy), never both',
      });
    } else if (!worker && !director) {
      ctx.addIssue({
        code: 'custom',
        path: ['skills'],
        message: 'a worker declares skills; a director declares profiles and failure_policy',
      });
    } else if (director && (p.profiles === undefined || p.failure_policy === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [p.profiles === undefined ? 'profiles' : 'failure_policy'],
        message: 'a director declares both profiles and failure_policy',
      });
    }
  });

export type Profile = z.infer<typeof profileSchema>;

export function isDirector(profile: Profile): boolean {
  return profile.profiles !== undefined;
}
