import type { z } from 'zod';
import { cardSchema, scheduledTemplateSchema } from '../schema/card.js';
import { harnessSchema } from '../schema/harness.js';
import { modelsSchema } from '../schema/models.js';
import { profileSchema } from '../schema/profile.js';
import { RANK_FIELDS } from './rank.js';
import { isRecord, type Finding, type LintInput, type ReadDoc } from './types.js';

/**
 * Every profile, card, scheduled template, harness and the models table against its zod schema
 * (the same schemas the round reads with). The rank rule is left to the rank check, so a profile
 * with both lists gets one finding that says so, not two.
 */
export function checkSchemas(input: LintInput): Finding[] {
  const findings: Finding[] = [];
  for (const doc of input.profiles) findings.push(...against(doc, profileSchema, (issue) => !isRankIssue(issue)));
  const names = new Map<string, string[]>();
  for (const doc of input.profiles) {
    const name = isRecord(doc.data) && typeof doc.data.name === 'string' ? doc.data.name : undefined;
    if (name !== undefined) names.set(name, [...(names.get(name) ?? []), doc.file]);
  }
  for (const [name, files] of names) {
    if (files.length < 2) continue;
    for (const file of files) {
      findings.push({ check: 'schema', file, field: 'name', reason: `name "${name}" is also declared by ${files.filter((f) => f !== file).join(', ')}: the board leaves both out` });
    }
  }
  for (const doc of input.cards) findings.push(...against(doc, doc.template ? scheduledTemplateSchema : cardSchema));
  for (const doc of input.harnesses) findings.push(...against(doc, harnessSchema));
  findings.push(...against(input.models, modelsSchema));
  return findings;
}

function isRankIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && RANK_FIELDS.includes(String(issue.path[0]));
}

function against(doc: ReadDoc, schema: z.ZodType, keep: (issue: z.core.$ZodIssue) => boolean = () => true): Finding[] {
  if (doc.error !== undefined) return [{ check: 'schema', file: doc.file, reason: doc.error }];
  const parsed = schema.safeParse(doc.data);
  if (parsed.success) return [];
  return parsed.error.issues.filter(keep).map((issue) => ({
    check: 'schema' as const,
    file: doc.file,
    ...(issue.path.length > 0 ? { field: issue.path.join('.') } : {}),
    reason: issue.message,
  }));
}
