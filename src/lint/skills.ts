import { isRecord, type Finding, type LintInput } from './types.js';

/**
 * Every skill a worker mounts exists as `skills/<skill>/SKILL.md` beside its profile (a version
 * suffix, `write-digest@2`, names the same folder), and every profile a director chains exists.
 */
export function checkSkills(input: LintInput): Finding[] {
  const findings: Finding[] = [];
  const profileNames = new Set<string>();
  for (const doc of input.profiles) if (isRecord(doc.data) && typeof doc.data.name === 'string') profileNames.add(doc.data.name);
  for (const doc of input.profiles) {
    if (!isRecord(doc.data)) continue;
    const { skills, profiles } = doc.data;
    if (Array.isArray(skills)) {
      skills.forEach((skill, i) => {
        if (typeof skill !== 'string') return;
        const folder = skill.replace(/@.*$/, '');
        if (!doc.skillsPresent.has(folder)) {
          findings.push({ check: 'skills', file: doc.file, field: `skills.${i}`, reason: `skill "${skill}" is not there: no ${doc.file.replace(/PROFILE\.md$/, '')}skills/${folder}/SKILL.md` });
        }
      });
    }
    if (Array.isArray(profiles)) {
      profiles.forEach((name, i) => {
        if (typeof name === 'string' && !profileNames.has(name)) {
          findings.push({ check: 'skills', file: doc.file, field: `profiles.${i}`, reason: `profile "${name}" is not in AGENTS/: the director chains an agent that does not exist` });
        }
      });
    }
  }
  return findings;
}
