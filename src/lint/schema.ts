import type { z } from 'zod';
import { cardSchema, scheduledTemplateSchema } from '../schema/card.js';
import { harnessSchema } from '../schema/harness.js';
import { modelsSchema } from '../schema/models.js';
import { profileSchema } from '../schema/profile.js';
import { RANK_FIELDS } from './rank.js';
import { zodProblems } from '../errors.js';
import { duplicateNameSentence, type DocKind } from '../messages.js';
import { isRecord, type Finding, type LintInput, type ReadDoc } from './types.js';

/**
 * Every profile, card, scheduled template, harness and the models table against its zod schema
 * (the same schemas the round reads with). The rank rule is left to the rank check, so a profile
 * with both lists gets one finding that says so, not two.
 */
export function checkSchemas(input: LintInput): Finding[] {
  const findings: Finding[] = [];
  for (const doc of input.profiles) findings.push(...against(doc, profileSchema, 'profile', (issue) => !isRankIssue(issue)));
  const names = new Map<string, string[]>();
  for (const doc of input.profiles) {
    const name = isRecord(doc.data) && typeof doc.data.name === 'string' ? doc.data.name : undefined;
    if (name !== undefined) names.set(name, [...(names.get(name) ?? []), doc.file]);
  }
  for (const [name, files] of names) {
    if (files.length < 2) continue;
    for (const file of files) {
      findings.push({ check: 'schema', file, field: 'name', reason: duplicateNameSentence(name, files.filter((f) => f !== file)) });
    }
  }
  for (const doc of input.cards) findings.push(...against(doc, doc.template ? scheduledTemplateSchema : cardSchema, doc.template ? 'template' : 'card'));
  for (const doc of input.harnesses) findings.push(...against(doc, harnessSchema, 'harness'));
  findings.push(...against(input.models, modelsSchema, 'models'));
  return findings;
}

function isRankIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && RANK_FIELDS.includes(String(issue.path[0]));
}

function against(doc: ReadDoc, schema: z.ZodType, kind: DocKind, keep: (issue: z.core.$ZodIssue) => boolean = () => true): Finding[] {
  if (doc.error !== undefined) return [{ check: 'schema', file: doc.file, ...(doc.errorLine !== undefined ? { line: doc.errorLine } : {}), reason: doc.error }];
  const parsed = schema.safeParse(doc.data);
  if (parsed.success) return [];
  const issues = parsed.error.issues.filter(keep);
  return zodProblems(doc.file, { issues }, { kind, ...(doc.text !== undefined ? { text: doc.text } : {}) }).map((p) => ({ check: 'schema' as const, ...p }));
}

