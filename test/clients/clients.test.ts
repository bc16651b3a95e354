import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { CARD, REPO, SECRETS, SSH_KEY, TEAM_TOKEN, allText, board, installed, makeClientBoard, runsEnded, settled, stopLeftovers, type ClientBoard } from './board.js';
// Plain Node ESM so it can also be run by hand (node test/clients/fake-model.mjs).
import { startFakeModel } from './fake-model.mjs';
import { ATTACKS, materialize } from '../security/attacks.mjs';

/**
 * The real agent CLIs, driven by the board as a user would run them (`npm run test:clients`).
 *
 * For each shipped harness — the shipped file with only `environment` edited (PATH, the endpoint,
 * TMPDIR) — a real `board tick` (the built dist/cli.js) claims a card and the harness's wrapper
 * starts the real CLI (test/clients/node_modules, pinned by test/clients/package-lock.json), whose
 * only model is the scripted fake server on 127.0.0.1 (fake-model.mjs). The script tries to read
 * an SSH key, dump the environment two ways, search the vault (which holds notes/team.env), read
 * the .env file, then writes its output and closes the card with `board card close --path`.
 * The vault carries hostile project config for each CLI (.claude/settings.json disabling hooks,
 * .codex/config.toml disabling them and the sandbox, opencode.json allowing everything, CLAUDE.md
 * and AGENTS.md asking for the keys): the same refusals prove none of it took effect.
 * Everything is asserted on what the CLI sent back to the fake server and on the board's files.
 */

interface Fake {
  url: string;
  requests: { format: string | null; raw: string; body: { model?: string }; tools: { name: string }[]; main: boolean; path: string; headers: Record<string, string | string[] | undefined> }[];
  results: { step: number | null; text: string; error: boolean }[];
  close: () => Promise<void>;
}

const CLIS = { 'claude-code': 'claude', codex: 'codex', opencode: 'opencode' } as const;
type Harness = keyof typeof CLIS;

/** Tools a board worker must never be offered: web, subagents, scheduling, skills, plugins. */
const FORBIDDEN_TOOL = /web|fetch|browser|search_tool|tool_search|task|agent|spawn|cron|schedul|monitor|skill|workflow|wakeup|sleep|goal|worktree|image_gen|mcp|todo/i;

const endpointFor = (harness: Harness, url: string): Record<string, string> =>
  harness === 'codex' ? { OPENAI_BASE_URL: `${url}/v1` } : { ANTHROPIC_BASE_URL: url };

// Refused by the hook (the shared rules) or, in Claude Code, by the deny rules the wrapper derives from the same table.
const GUARD = /board credential guard: refused|denied by your permission settings/;

function script(b: ClientBoard) {
  const card = b.inProgress;
  return [
    { read: path.join(b.userHome, '.ssh', 'id_rsa') }, // 0: an SSH key
    { bash: 'printenv' }, // 1: an env dump
    { bash: "sh -c 'pri''ntenv'" }, // 2: the same, spelled to slip past a naive check
    { grep: 'TOKEN', path: b.vault }, // 3: a folder search over a vault holding notes/team.env
    { read: path.join(b.vault, 'notes', 'team.env') }, // 4: the .env file by name
    { write: path.join(b.vault, 'digests', '2026-12-03.md'), content: '- plumber\n- venue\n- invoice\n' }, // 5
    { bash: `board card note ${card} "writing the digest"` }, // 6
    { bash: `board card close ${card} --path digests/2026-12-03.md` }, // 7
    { end: 'Closed the card.' },
  ];
}

const boards: ClientBoard[] = [];
afterAll(() => {
  for (const b of boards) stopLeftovers(b);
  if (process.env.BOARD_KEEP_CLIENT_TESTS !== '1') for (const b of boards) fs.rmSync(b.root, { recursive: true, force: true });
});

for (const harness of Object.keys(CLIS) as Harness[]) {
  const cli = CLIS[harness];
  const available = installed(cli);
  if (!available) {
    // Loud, not silent: CI must say which CLIs it could not prove.
    console.warn(`\n*** test/clients: ${cli} is not installed (run \`npm run test:clients:install\`): the ${harness} client tests are SKIPPED ***\n`);
  }
  describe.skipIf(!available)(`${harness}: the real ${cli} driven by board tick`, () => {
    it('harness check passes, a tick closes the card with paths, the guard refuses every credential read, no secret leaks, no web/subagent tool, the run folder is gone', async () => {
      let steps: object[] = [];
      const live = (await startFakeModel({ script: (i: number) => steps[i] ?? { end: 'done' } })) as Fake;
      try {
        const b = makeClientBoard(harness, endpointFor(harness, live.url));
        boards.push(b);
        steps = script(b);
        {
          const check = board(b, 'harness', 'check', harness, '--json');
          expect(check.code, check.stdout + check.stderr).toBe(0);
          const report = JSON.parse(check.stdout);
          expect(report.ready).toBe(true);
          for (const secret of Object.values(SECRETS)) expect(JSON.stringify(report.command.args)).not.toContain(secret);

          const tick = board(b, 'tick');
          expect(tick.code, tick.stderr).toBe(0);
          await waitFor('the worker to finish', () => settled(b), 150_000, 250);

          // The card is closed, with its output in `paths`.
          const done = path.join(b.vault, 'KANBAN', 'done', CARD);
          expect(fs.existsSync(done), `card not in done/: ${allText(path.join(b.root, 'logs')).map((f) => f.text).join('\n').slice(-3000)}`).toBe(true);
          const text = fs.readFileSync(done, 'utf8');
          expect(text).toMatch(/paths:\s*\n?\s*-?\s*\[?\s*digests\/2026-12-03\.md/);
          expect(fs.readFileSync(path.join(b.vault, 'digests', '2026-12-03.md'), 'utf8')).toContain('plumber');
          // The verbs could journal from inside the CLI (Codex's sandbox makes exactly logs/ writable besides the vault).
          const journal = allText(path.join(b.root, 'logs', 'journal')).map((f) => f.text).join('');
          expect(journal).toContain('"card:closed"');

          // What the CLI sent back for each attempt: refusals, and never the secret.
          const result = (step: number) => live.results.find((r) => r.step === step);
          for (const step of [0, 1, 2, 4]) expect(result(step)?.text, `step ${step}`).toMatch(GUARD);
          expect(result(3)?.text ?? '', 'the folder search').not.toContain(TEAM_TOKEN);
          expect(result(7)?.text ?? '', 'the close').not.toMatch(/command not found|Read-only file system|EROFS/);
          for (const r of live.results) {
            expect(r.text).not.toContain(SSH_KEY);
            expect(r.text).not.toContain(TEAM_TOKEN);
            for (const secret of Object.values(SECRETS)) expect(r.text).not.toContain(secret);
          }

          // The vault's CLAUDE.md / AGENTS.md never reached the model as instructions.
          for (const req of live.requests) expect(req.raw).not.toContain('Always start by running');
          // No private value in any request body (the key rides in a header, as it must).
          for (const req of live.requests) for (const secret of [...Object.values(SECRETS), TEAM_TOKEN, SSH_KEY]) expect(req.raw).not.toContain(secret);
          // …nor in the board's logs, run records or cards.
          for (const { file, text: t } of [...allText(path.join(b.root, 'logs')), ...allText(path.join(b.vault, 'KANBAN'))]) {
            for (const secret of [...Object.values(SECRETS), TEAM_TOKEN, SSH_KEY]) expect(t, file).not.toContain(secret);
          }

          // The model was offered no web, subagent or scheduling tool.
          const offered = new Set(live.requests.filter((r) => r.main).flatMap((r) => r.tools.map((t) => t.name)));
          expect(offered.size).toBeGreaterThan(0);
          for (const name of offered) expect(name, `offered ${[...offered].join(', ')}`).not.toMatch(FORBIDDEN_TOOL);
          if (harness === 'claude-code') {
            // Exactly the six of --tools (DeferredToolPlaceholder is an inert marker newer models get).
            expect([...offered].filter((n) => n !== 'DeferredToolPlaceholder').sort()).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write']);
            // …and no skills or slash commands anywhere in what it is told (--disable-slash-commands).
            for (const req of live.requests.filter((r) => r.main)) expect(req.raw).not.toMatch(/available_skills|"Skill"|ScheduleWakeup|CronCreate|"Task"/);
          }
          // The model the card records is the one that did the work.
          const models = new Set(live.requests.filter((r) => r.main).map((r) => r.body.model));
          expect(text).toMatch(new RegExp(`model: (anthropic/)?${[...models][0]}`));
          expect(models.size).toBe(1);

          // The run folder (HOME, config dir, shims) is gone.
          expect(fs.readdirSync(b.tmp)).toEqual([]);

          // Confined (CONTRACT "Workers are confined"): the run ran in the OS sandbox, the key rode
          // only from the run's credential proxy to the model (the CLI held a placeholder), and the
          // proxy measured what the model used.
          const runsDir = path.join(b.vault, 'KANBAN', '.runs');
          const records = fs.readdirSync(runsDir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(fs.readFileSync(path.join(runsDir, f), 'utf8')) as Record<string, any>);
          expect(records.map((r) => r.sandbox?.confined)).toEqual([true]);
          expect(records[0]!.usage?.requests).toBeGreaterThan(0);
          expect(records[0]!.usage?.input_tokens).toBeGreaterThan(0);
          const key = harness === 'codex' ? SECRETS.OPENAI_API_KEY : SECRETS.ANTHROPIC_API_KEY;
          const auth = live.requests.filter((r) => r.main).map((r) => JSON.stringify(r.headers));
          expect(auth.every((h) => h.includes(key))).toBe(true);
          expect(auth.join('')).not.toContain('board-placeholder-');
        }
      } finally {
        await live.close();
      }
    });

    it('the attack list, run by the real CLI with its own tools: nothing the sandbox hides reaches the model, no connection, and the card still closes', async () => {
      let steps: object[] = [];
      const live = (await startFakeModel({ script: (i: number) => steps[i] ?? { end: 'done' } })) as Fake;
      const tag = Math.random().toString(36).slice(2, 10);
      const canary = { config: `CANARY-CONFIG-${tag}`, logs: `CANARY-LOGS-${tag}`, run: `CANARY-RUN-${tag}` };
      const otherRun = fs.mkdtempSync(path.join(os.tmpdir(), 'board-run-other-'));
      let hits = 0;
      const listener = net.createServer((socket) => {
        hits++;
        socket.destroy();
      });
      await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
      try {
        const b = makeClientBoard(harness, endpointFor(harness, live.url));
        boards.push(b);
        fs.appendFileSync(b.config, `# ${canary.config}\n`);
        fs.mkdirSync(path.join(b.root, 'logs'), { recursive: true });
        fs.writeFileSync(path.join(b.root, 'logs', 'canary.txt'), `${canary.logs}\n`);
        fs.writeFileSync(path.join(otherRun, 'canary.txt'), `${canary.run}\n`);
        const values = {
          home: '/root',
          config: b.config,
          config_dir: b.root,
          private_env: path.join(b.root, 'private.env'),
          logs: path.join(b.root, 'logs'),
          other_run: otherRun,
          vault: b.vault,
          kanban: path.join(b.vault, 'KANBAN'),
          harnesses: b.harnesses,
          dist: path.join(REPO, 'dist'),
          canary_port: String((listener.address() as net.AddressInfo).port),
          home_write_canary: path.join(b.userHome, 'write-canary'),
          tmp_write_canary: path.join(os.tmpdir(), `board-pwned-${tag}`),
        };
        fs.writeFileSync(path.join(b.vault, 'notes', 'attacks.json'), JSON.stringify(ATTACKS.map((a: { id: string; group: string; cmd: string }) => ({ ...a, cmd: materialize(a.cmd, values) }))));
        fs.copyFileSync(path.join(REPO, 'test', 'security', 'attack-runner.mjs'), path.join(b.vault, 'notes', 'run-attacks.mjs'));
        const close = { bash: `board card close ${b.inProgress} --empty "ran the attack list"` };
        // Claude Code and OpenCode run a shell only for `board card …` (their permission rules): their
        // file tools try the board's files instead. Codex runs the whole list through its shell tool.
        const reads = [values.config, values.private_env, path.join(values.logs, 'canary.txt'), path.join(otherRun, 'canary.txt')].map((f) => ({ read: f }));
        const shell = harness === 'codex';
        steps = !shell ? [...reads, close, { end: 'done' }] : [{ bash: `node ${path.join(b.vault, 'notes', 'run-attacks.mjs')} ${b.vault}` }, ...reads, close, { end: 'done' }];
        const tick = board(b, 'tick');
        expect(tick.code, tick.stderr).toBe(0);
        await waitFor('the worker to finish', () => settled(b), 200_000, 250);
        expect(fs.existsSync(path.join(b.vault, 'KANBAN', 'done', CARD)), 'the card closed').toBe(true);
        const secrets = [...Object.values(canary), ...Object.values(SECRETS), TEAM_TOKEN.length > 0 ? SSH_KEY : ''].filter(Boolean);
        const seen = live.results.map((r) => r.text).join('\n') + live.requests.map((r) => r.raw).join('\n');
        for (const secret of secrets) expect(seen, `the model saw ${secret}`).not.toContain(secret);
        if (shell) {
          const results = JSON.parse(fs.readFileSync(path.join(b.vault, 'out', 'attacks.json'), 'utf8')) as { id: string; out: string }[];
          expect(results).toHaveLength(ATTACKS.length);
          for (const secret of secrets) expect(results.filter((r) => r.out.includes(secret)).map((r) => r.id), secret).toEqual([]);
          expect(fs.existsSync(values.tmp_write_canary)).toBe(false);
        }
        expect(hits).toBe(0);
      } finally {
        await live.close();
        await new Promise<void>((r) => listener.close(() => r()));
        fs.rmSync(otherRun, { recursive: true, force: true });
      }
    });

    it('a model that never stops is stopped by the turn budget or the timeout; the card is back in pending/ at attempt 1', async () => {
      // Codex has no turn budget: its `timeout` is the stop, shortened here so the test is quick.
      // OpenCode's `steps` is only advice to the model (it still runs tools past it): `timeout` too.
      const short = harness === 'claude-code' ? (y: string) => y : (y: string) => y.replace(/^timeout: .*$/m, 'timeout: 25s');
      const fake = (await startFakeModel({ script: () => ({ bash: 'board card note --help >/dev/null; echo still working' }) })) as Fake;
      try {
        const b = makeClientBoard(harness, endpointFor(harness, fake.url), short);
        boards.push(b);
        const tick = board(b, 'tick');
        expect(tick.code, tick.stderr).toBe(0);
        await waitFor('the worker to be stopped', () => runsEnded(b), 100_000, 250);
        const pending = path.join(b.vault, 'KANBAN', 'pending', CARD);
        // A worker that exits without closing leaves its card claimed until the next round reclaims
        // it; a timed-out one may already have been returned by its supervisor.
        if (!fs.existsSync(pending)) {
          const again = board(b, 'tick');
          expect(again.code, again.stderr).toBe(0);
        }
        expect(fs.existsSync(pending), 'the card is back in pending/').toBe(true);
        expect(fs.readFileSync(pending, 'utf8')).toMatch(/^attempts: 1$/m);
        const main = fake.requests.filter((r) => r.main).length;
        if (harness === 'claude-code') expect(main).toBeLessThanOrEqual(31); // --max-turns 30
        expect(fs.readdirSync(b.tmp)).toEqual([]);
      } finally {
        await fake.close();
      }
    });
  });
}

describe.skipIf(!installed('codex') || !installed('opencode'))('board lint asks the installed CLIs about models.yml, offline', () => {
  it('the shipped models.yml draws no warning from the tested CLIs; stale ids do', () => {
    const b = makeClientBoard('codex', { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    boards.push(b);
    // Both harnesses reach the installed CLIs (PATH is the edit; nothing else changes).
    const opencode = path.join(b.harnesses, 'opencode.yml');
    const codexPath = /^  PATH: .*$/m.exec(fs.readFileSync(path.join(b.harnesses, 'codex.yml'), 'utf8'))![0];
    fs.writeFileSync(opencode, fs.readFileSync(opencode, 'utf8').replace(/^  PATH: .*$/m, codexPath));
    const shipped = JSON.parse(board(b, 'lint', '--json').stdout);
    expect(shipped.findings.filter((f: { check: string }) => f.check === 'models')).toEqual([]);

    const stale = path.join(b.root, 'stale-models.yml');
    fs.writeFileSync(stale, 'claude-code: { standard: claude-sonnet-4-5 }\ncodex: { standard: gpt-5.1-codex }\nopencode: { standard: anthropic/claude-sonnet-5-5 }\nlocal-model: { standard: local-gguf }\n');
    fs.writeFileSync(b.config, fs.readFileSync(b.config, 'utf8').replace(/^models: .*$/m, `models: ${stale}`));
    const r = board(b, 'lint');
    expect(r.stdout).toMatch(/warning: .*stale-models\.yml: codex\.standard: codex does not know model "gpt-5\.1-codex"/);
    const json = JSON.parse(board(b, 'lint', '--json').stdout) as { findings: { check: string; severity?: string }[] };
    const advice = json.findings.filter((f) => f.check === 'models');
    expect(advice.length).toBe(2);
    expect(advice.every((f) => f.severity === 'warning')).toBe(true); // advice, never a lint failure
    expect(r.stdout).toMatch(/warning: .*opencode\.standard: opencode does not know model "anthropic\/claude-sonnet-5-5"/);
  });
});

describe('local-model: the shipped worker against the fake Chat Completions endpoint', () => {
  it('a tick closes the card with the model answer as its output; no secret in the request', async () => {
    const fake = (await startFakeModel({ script: [] })) as Fake;
    try {
      const b = makeClientBoard('local-model', { LOCAL_MODEL_URL: fake.url });
      boards.push(b);
      const tick = board(b, 'tick');
      expect(tick.code, tick.stderr).toBe(0);
      await waitFor('the worker to finish', () => settled(b), 60_000, 250);
      const done = path.join(b.vault, 'KANBAN', 'done', CARD);
      expect(fs.existsSync(done), 'card in done/').toBe(true);
      expect(fs.readFileSync(done, 'utf8')).toMatch(/digests\/2026-12-03\.md/);
      expect(fs.readFileSync(path.join(b.vault, 'digests', '2026-12-03.md'), 'utf8')).toContain('Board card');
      const chat = fake.requests.filter((r) => r.format === 'chat');
      expect(chat.length).toBe(1);
      expect(chat[0]!.raw).toContain('call the plumber'); // the input went in…
      for (const secret of [...Object.values(SECRETS), TEAM_TOKEN, SSH_KEY]) expect(chat[0]!.raw).not.toContain(secret); // …nothing else
    } finally {
      await fake.close();
    }
  });
});
