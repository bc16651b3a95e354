#!/usr/bin/env node
// The attacker: a worker (started by the board like any worker, through the harness's command)
// that runs every attack of `notes/attacks.json` in its vault with `bash -c`, keeps what each
// printed (bounded), writes it all to `out/attacks.json` and closes its card with that output, as
// a real worker closes. Runs with whatever the board gave it: the sandbox, the proxy's URL and
// placeholders, the thin `board`; or, with `sandbox: none`, the machine as the board sees it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const vault = process.env.BOARD_VAULT;
const card = process.env.BOARD_CARD;
const boardBin = process.env.BOARD_BIN ?? 'board';
if (!vault || !card) {
  console.error('attack-worker: BOARD_VAULT and BOARD_CARD must be set (it is started by board tick)');
  process.exit(2);
}
const attacks = JSON.parse(fs.readFileSync(path.join(vault, 'notes', 'attacks.json'), 'utf8'));
const results = [];
for (const attack of attacks) {
  // GNU timeout runs the attack in a process group of its own and kills the whole group: a
  // grandchild holding the output pipe (find, a pipeline) would otherwise outlive spawnSync's kill.
  const r = spawnSync('timeout', ['-s', 'KILL', '4', 'bash', '-c', attack.cmd], {
    cwd: vault,
    encoding: 'utf8',
    // No stdin: bash reads ~/.bashrc when its stdin is a socket (libuv's pipes are socketpairs).
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 8_000,
    maxBuffer: 1 << 20,
    killSignal: 'SIGKILL',
  });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  results.push({ id: attack.id, group: attack.group, code: r.status, signal: r.signal, out: out.slice(0, 4096) });
}
// The one legitimate way out: a model request to the endpoint the board gave, with the key it gave.
try {
  const base = process.env.ANTHROPIC_BASE_URL ?? process.env.OPENAI_BASE_URL;
  const response = await fetch(`${base}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': process.env.ANTHROPIC_API_KEY ?? '', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'fake', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }),
  });
  results.push({ id: 'model-call', group: 'model', code: response.status, signal: null, out: (await response.text()).slice(0, 4096) });
} catch (error) {
  results.push({ id: 'model-call', group: 'model', code: null, signal: null, out: String(error) });
}
fs.mkdirSync(path.join(vault, 'out'), { recursive: true });
fs.writeFileSync(path.join(vault, 'out', 'attacks.json'), JSON.stringify(results, null, 1));
// The closing ritual, through whatever `board` the worker was given.
const close = spawnSync(boardBin, ['card', 'close', card, '--path', 'out/attacks.json'], { encoding: 'utf8' });
process.stdout.write(close.stdout ?? '');
process.stderr.write(close.stderr ?? '');
process.exit(close.status ?? 1);
