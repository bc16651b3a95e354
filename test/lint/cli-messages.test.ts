import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTree } from '../helpers/vault.js';

/**
 * Every message the CLI prints for a bad config, harness, profile, card or template that is not a
 * schema sentence (those are listed in messages.test.ts), with its exit code: a wording change is
 * reviewed here. `<root>` is the board's folder.
 */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const BASE: Record<string, string> = {
  'board.yml': 'vault: vault\ndefault_harness: fake\n',
  'harnesses/fake.yml': 'command: ["{harnesses}/fake-agent"]\nprompt_template: p\ncredential_guard: guard.sh\n',
  'harnesses/guard.sh': '',
  'harnesses/fake-agent': '#!/bin/sh\n',
  'models.yml': 'fake:\n  standard: m\n',
  'vault/KANBAN/pending/.keep': '',
};

const TABLE: [string, Record<string, string>, string[], number, string][] = [
  ["config: invalid YAML", {"board.yml": "vault: vault\ndefault_harness: [fake\n"}, ["dry-run"], 2, "<root>/board.yml (line 3): invalid YAML: unexpected end of the stream within a flow collection"],
  ["config: not a map", {"board.yml": "- vault\n"}, ["dry-run"], 2, "<root>/board.yml: a config file is a map of `key: value` lines, not a list or a single value"],
  ["config: unknown key", {"board.yml": "vault: vault\ndefault_harness: fake\nmax_attempt: 2\n"}, ["dry-run"], 2, "<root>/board.yml (line 3): `max_attempt` is not a config field: did you mean `max_attempts`?"],
  ["config: default_harness names no harness", {"board.yml": "vault: vault\ndefault_harness: claude\n"}, ["dry-run"], 2, "<root>/board.yml: `default_harness` names \"claude\", but <root>/harnesses has no claude.yml (installed: fake)"],
  ["config: harnesses folder missing", {"board.yml": "vault: vault\ndefault_harness: fake\nharnesses: nowhere\n"}, ["dry-run"], 2, "<root>/nowhere: the harnesses folder does not exist (is `harnesses` in the config right?)"],
  ["config: models table missing", {"board.yml": "vault: vault\ndefault_harness: fake\nmodels: nowhere.yml\n"}, ["dry-run"], 2, "<root>/nowhere.yml: models table not found"],
  ["config: models table bad", {"models.yml": "fake:\n  standard: 3\n"}, ["dry-run"], 2, "<root>/models.yml (line 1): `fake.standard` must be a model name, e.g. `standard: claude-sonnet-4-5`; found a number"],
  ["config: private env file missing", {"board.yml": "vault: vault\ndefault_harness: fake\nprivate_env: secrets.env\n"}, ["dry-run"], 2, "<root>/secrets.env: the private env file named by `private_env` does not exist"],
  ["config: private env bad line", {"board.yml": "vault: vault\ndefault_harness: fake\nprivate_env: secrets.env\n", "secrets.env": "API_KEY=x\nthis is not it\n"}, ["dry-run"], 2, "<root>/secrets.env (line 2): not a KEY=value line"],
  ["config: --config names no file", {}, ["dry-run", "--config", "nope.yml"], 2, "<root>/nope.yml: config file not found"],
  ["config: vault has no KANBAN", {"board.yml": "vault: elsewhere\ndefault_harness: fake\n"}, ["dry-run"], 1, "no board at <root>/elsewhere/KANBAN: ENOENT (is `vault` right?)"],
  ["harness: invalid YAML", {"harnesses/other.yml": "command: [a\n"}, ["dry-run"], 0, "harness left out: invalid YAML: unexpected end of the stream within a flow collection"],
  ["harness: unknown key", {"harnesses/other.yml": "command: [a]\nprompt_template: p\nenviroment: {}\n"}, ["dry-run"], 0, "harness left out: `enviroment` is not a harness field: did you mean `environment`?"],
  ["harness: program missing", {"harnesses/fake.yml": "command: [my-agent-cli]\nprompt_template: p\ncredential_guard: guard.sh\n", "vault/AGENTS/w/PROFILE.md": "---\nname: w\nversion: 1\ndescription: d\nfunction: write\nhandles: [post]\nskills: [s]\n---\n", "vault/KANBAN/pending/a.md": "---\nfunction: write\nrequest: a post\ncreated: 2026-12-01\norigin: human\n---\n"}, ["dry-run"], 0, "a.md — ready for w, but harness fake cannot start: `my-agent-cli` is not on its PATH (the board's PATH: /usr/bin:/bin)"],
  ["harness: no credential guard", {"harnesses/fake.yml": "command: [\"{harnesses}/fake-agent\"]\nprompt_template: p\n"}, ["lint"], 1, "<root>/harnesses/fake.yml: credential_guard: harness \"fake\" declares no credential-blocking hook (the lock rule: every harness wires one)  [harness-guard]"],
  ["profile: no front matter", {"vault/AGENTS/w/PROFILE.md": "name: w\n"}, ["dry-run"], 0, "AGENTS/w/PROFILE.md (line 1): no front matter: the file must start with a line \"---\""],
  ["profile: front matter never closed", {"vault/AGENTS/w/PROFILE.md": "---\nname: w\n"}, ["dry-run"], 0, "AGENTS/w/PROFILE.md: front matter is never closed by a line \"---\""],
  ["profile: field twice", {"vault/AGENTS/w/PROFILE.md": "---\nname: w\nname: v\n---\n"}, ["dry-run"], 0, "AGENTS/w/PROFILE.md (line 3): invalid YAML: duplicated mapping key"],
  ["profile: invalid YAML", {"vault/AGENTS/w/PROFILE.md": "---\nname: w\nhandles: [post\n---\n"}, ["dry-run"], 0, "AGENTS/w/PROFILE.md (line 4): invalid YAML: unexpected end of the stream within a flow collection"],
  ["card: invalid YAML", {"vault/KANBAN/pending/a.md": "---\nfunction: write\nrequest: [x\n---\n"}, ["dry-run"], 0, "a.md (line 4): invalid YAML: unexpected end of the stream within a flow collection"],
  ["card: NUL bytes", {"vault/KANBAN/pending/a.md": "---\nfunction: write\u0000\n---\n"}, ["dry-run"], 0, "a.md: the file holds NUL bytes: not a text card"],
  ["card: a list, not a map", {"vault/KANBAN/pending/a.md": "---\n- a\n---\n"}, ["dry-run"], 0, "a.md: front matter must be a map of fields, not a list or a scalar"],
  ["card: missing fields", {"vault/KANBAN/pending/a.md": "---\nfunction: write\n---\n"}, ["dry-run"], 0, "a.md: `request` is required: the request in words, matched against profiles' handles, e.g. `request: Summarize the notes of Monday`"],
  ["template: bad trigger", {"vault/KANBAN/scheduled/t.md": "---\nfunction: write\nrequest: x\norigin: scheduler\ntrigger:\n  every: hourly\n---\n"}, ["dry-run"], 0, "scheduled/t.md (line 5): `trigger.every` must be one of day, week, month"],
];

describe('messages the CLI prints for bad files', () => {
  it.concurrent.each(TABLE)('%s', async (_what, files, args, code, message) => {
    const root = makeTree({ ...BASE, ...files });
    fs.chmodSync(path.join(root, 'harnesses/fake-agent'), 0o755);
    const result = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '', PATH: '/usr/bin:/bin' } });
    const out = `${result.stdout}${result.stderr}`.split(root).join('<root>');
    expect(result.status).toBe(code);
    if (message.startsWith('harness left out: ')) {
      // A harness file left out is a warning log line (JSON off a terminal), and the round goes on.
      const line = out.split('\n').find((l) => l.includes('"harness left out"'))!;
      expect(JSON.parse(line).reason).toBe(message.slice('harness left out: '.length));
    } else {
      expect(out).toContain(message);
    }
    fs.rmSync(root, { recursive: true, force: true });
  });
});
