#!/usr/bin/env node
// Claude Code PreToolUse hook: the credential guard of harnesses/claude-code.yml.
//
// Wired by harnesses/bin/claude-isolated.mjs into the run's own settings.json as
//   { "hooks": { "PreToolUse": [ { "matcher": "*", "hooks": [ { "type": "command", "command": "<node> <this file>" } ] } ] } }
// Relied on (Claude Code hooks reference, docs.anthropic.com/en/docs/claude-code/hooks):
// - the hook gets one JSON object on stdin with `tool_name` and `tool_input` (Read → file_path,
//   Bash → command, Glob → pattern/path, Grep → path/glob …);
// - exit code 2 blocks the tool call and stderr is shown to the model as the reason;
// - any other non-zero exit does NOT block. So this hook fails closed: a crash, unreadable input
//   or anything unexpected exits 2 as well.
import { checkToolCall } from './credential-rules.mjs';

function block(reason) {
  process.stderr.write(`board credential guard: refused. ${reason}. Credentials and environment variables are off limits to board workers (lock rule); do the task without them.\n`);
  process.exit(2);
}

try {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (!event || typeof event !== 'object') block('the hook input was not a JSON object');
  const verdict = checkToolCall(event.tool_name, event.tool_input);
  if (!verdict.allow) block(verdict.reason);
  process.exit(0);
} catch (error) {
  block(`the guard could not read the tool call (${error instanceof Error ? error.message : String(error)})`);
}
