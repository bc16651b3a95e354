import { privateEnvModeSentence } from '../messages.js';
import type { Finding, LintInput } from './types.js';

/** A private env file readable by group or others is an error: its keys are theirs too. */
export function checkPrivateEnv(input: LintInput): Finding[] {
  const env = input.privateEnv;
  if (!env || (env.mode & 0o077) === 0) return [];
  return [{ check: 'private-env', file: env.file, field: 'private_env', reason: privateEnvModeSentence(env.mode) }];
}
