import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { card, makeBoard, profile } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A run's budget, end to end (issue 18 item 3): the built CLI dispatches a worker whose harness
 * allows 200 tokens a run; the worker keeps asking the model (a fake Anthropic endpoint answering
 * 150 tokens a time) through its run's credential proxy. The proxy refuses the request past the
 * budget, the supervisor stops the worker, the run record says `stopped: over-budget` with the
 * proxy's sentence and the measured usage, and the next round returns the card with that reason.
 */

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const KEY = 'sk-ant-budget-test-REAL-31337';

const WORKER = `
const base = process.env.ANTHROPIC_BASE_URL;
for (let i = 0; i < 10; i++) {
  const r = await fetch(base + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': process.env.ANTHROPIC_API_KEY }, body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }) });
  console.log('request', i, r.status);
  if (r.status === 429) break;
}
// Refused: wait to be stopped by the board, as a CLI retrying would.
await new Promise((r) => setTimeout(r, 30_000));
`;

let upstream: http.Server;
let url = '';
const seenKeys: string[] = [];

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    seenKeys.push(String(req.headers['x-api-key'] ?? ''));
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 100, output_tokens: 50 } }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => upstream.close(() => r())));

function board(root: string, ...args: string[]) {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BOARD_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a run over its budget', () => {
  it('is refused by its proxy, stopped by its supervisor, recorded with the reason and its usage, and the card comes back with it', async () => {
    const root = makeBoard(
      {
        'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [draft]\nskills: [write]'),
        'KANBAN/pending/post.md': card('function: write\nrequest: a draft\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []'),
      },
      {
        'board.yml': 'vault: vault\nharnesses: harnesses\nmodels: models.yml\ndefault_harness: fake\nlogs: logs\nprivate_env: private.env\n',
        'private.env': `ANTHROPIC_API_KEY=${KEY}\n`,
        'harnesses/worker.mjs': WORKER,
        'harnesses/fake.yml': [
          'command: [node, "{harnesses}/worker.mjs"]',
          'prompt_template: p',
          'environment:',
          '  PATH: /usr/local/bin:/usr/bin:/bin',
          `  ANTHROPIC_BASE_URL: ${url}`,
          'environment_from_private: [ANTHROPIC_API_KEY]',
          'budget: { tokens: 200 }',
          'credential_guard: guard.sh',
        ].join('\n') + '\n',
      },
    );
    fs.chmodSync(path.join(root, 'private.env'), 0o600);
    expect(board(root, 'tick').code).toBe(0);
    const runs = path.join(root, 'vault/KANBAN/.runs');
    const record = await waitFor('the run to end', () => {
      const f = fs.existsSync(runs) ? fs.readdirSync(runs).find((n) => n.endsWith('.json')) : undefined;
      const r = f ? (JSON.parse(fs.readFileSync(path.join(runs, f), 'utf8')) as Record<string, any>) : undefined;
      return r?.state === 'exited' ? r : undefined;
    }, 40_000);
    expect(record).toMatchObject({ ended: 'stopped', stopped: 'over-budget' });
    expect(record.reason).toMatch(/budget/);
    // Two answers of 150 tokens went through; the third request was refused before upstream.
    expect(record.usage).toMatchObject({ requests: 2, input_tokens: 200, output_tokens: 100 });
    expect(seenKeys).toEqual([KEY, KEY]);
    // The supervisor says why it stopped the worker (which may be gone before it prints the 429).
    expect(fs.readFileSync(record.log, 'utf8')).toContain('over budget: run budget of 200 tokens');

    const next = board(root, 'tick');
    expect(next.code).toBe(0);
    expect(next.stdout).toContain('worker was stopped over budget without closing the card');
    const returned = fs.readFileSync(path.join(root, 'vault/KANBAN/pending/post.md'), 'utf8');
    expect(parseFrontMatter(returned).data).toMatchObject({ attempts: 1 });
    expect(returned).toMatch(/stopped over budget without closing the card: .*budget/);
    const cost = board(root, 'cost');
    expect(cost.code).toBe(0);
    expect(cost.stdout).toMatch(/300/);
  }, 60_000);
});
