import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandEnv } from '../../src/commands/common.js';
import { costCommand } from '../../src/commands/cost.js';
import { silentLogger } from '../../src/log.js';
import { appendSpend } from '../../src/proxy/ledger.js';
import { BOARD_YML, makeBoard } from '../helpers/vault.js';

const NOW = new Date(2026, 11, 3, 15, 0);

function envFor(root: string) {
  const out: string[] = [];
  const env: CommandEnv = { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => NOW };
  return { env, text: () => out.join('') };
}

const manifest = (run: string, card: string, extra: object) => ({
  version: 1, run, card, profile: 'writer', harness: 'fake', model: 'fake-medium', claim: '2026-12-03T10:00:00Z',
  paths: { profile: 'p', card: 'c', vault: 'v' }, components: [], argv: [], cwd: '/', env: {}, log: 'l', end: '2026-12-03T10:05:00Z', ...extra,
});

describe('board cost: measured usage and today against daily_budget', () => {
  it('prefers proxy usage (manifest, else run record) to the parsed cost, and sums today from the ledger', async () => {
    const root = makeBoard({}, { 'board.yml': `${BOARD_YML}daily_budget:\n  tokens: 1000\n  usd: 2\n` });
    const write = (rel: string, value: object) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), JSON.stringify(value));
    };
    write('logs/manifests/r1.json', manifest('r1', 'a.md', { cost: { tokens: 999, usd: 9 }, usage: { requests: 3, input_tokens: 100, output_tokens: 20, usd: 0.5 } }));
    write('logs/manifests/r2.json', manifest('r2', 'b.md', {}));
    write('vault/KANBAN/.runs/r2.json', { runId: 'r2', card: 'b.md', claim: 'x', state: 'exited', host: 'h', usage: { requests: 1, input_tokens: 30, output_tokens: 10 } });
    write('logs/manifests/r3.json', manifest('r3', 'c.md', { cost: { tokens: 7 } }));
    const logs = path.join(root, 'logs');
    await appendSpend(logs, { run: 'r1', card: 'a.md', input_tokens: 100, output_tokens: 150, usd: 0.5, at: NOW.toISOString() }, NOW);
    await appendSpend(logs, { run: 'r2', card: 'b.md', input_tokens: 30, output_tokens: 20, at: NOW.toISOString() }, NOW);

    const json = envFor(root);
    expect(await costCommand({ by: 'run', json: true }, json.env)).toBe(0);
    const doc = JSON.parse(json.text());
    expect(doc.rows).toEqual([
      { key: 'r1', runs: 1, costed: 1, tokens: 120, usd: 0.5 },
      { key: 'r2', runs: 1, costed: 1, tokens: 40, usd: 0 },
      { key: 'r3', runs: 1, costed: 1, tokens: 7, usd: 0 },
    ]);
    expect(doc.today).toEqual({ date: '2026-12-03', responses: 2, tokens: 300, usd: 0.5, daily_budget: { tokens: 1000, usd: 2 } });

    const human = envFor(root);
    await costCommand({ by: 'card' }, human.env);
    expect(human.text()).toContain('today (2026-12-03): 300 of 1000 (30%) tokens, $0.5000 of $2 (25%) over 2 metered answer(s)\n');
    expect(human.text()).toMatch(/^a\.md +1 +1 +120 +0\.5000$/m);
  });

  it('says when no daily_budget is set, with no runs at all', async () => {
    const root = makeBoard({});
    const human = envFor(root);
    await costCommand({}, human.env);
    expect(human.text()).toContain('today (2026-12-03): 0 tokens, $0.0000 over 0 metered answer(s); no `daily_budget` in board.yml');
  });
});
