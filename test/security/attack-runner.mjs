#!/usr/bin/env node
// Runs the attack list from inside whatever runs it (a real agent CLI's shell tool, in
// test/clients): every attack of `<vault>/notes/attacks.json` with `bash -c`, 8 at a time, each
// killed with its whole process group after 4 s; what each printed (bounded) goes to
// `<vault>/out/attacks.json`, and one short line to stdout (the tool's output the model sees).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const vault = process.argv[2] ?? process.env.BOARD_VAULT;
if (!vault) {
  console.error('attack-runner: give the vault as the first argument');
  process.exit(2);
}
const attacks = JSON.parse(fs.readFileSync(path.join(vault, 'notes', 'attacks.json'), 'utf8'));

function run(attack) {
  return new Promise((resolve) => {
    // GNU timeout signals its own process group: nothing the attack started outlives it.
    const child = spawn('timeout', ['-s', 'KILL', '4', 'bash', '-c', attack.cmd], { cwd: vault, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const take = (chunk) => {
      if (out.length < 4096) out += chunk.toString('utf8');
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => resolve({ id: attack.id, group: attack.group, code: null, out: String(error) }));
    child.on('close', (code) => resolve({ id: attack.id, group: attack.group, code, out: out.slice(0, 4096) }));
  });
}

const results = [];
for (let i = 0; i < attacks.length; i += 8) results.push(...(await Promise.all(attacks.slice(i, i + 8).map(run))));
fs.mkdirSync(path.join(vault, 'out'), { recursive: true });
fs.writeFileSync(path.join(vault, 'out', 'attacks.json'), JSON.stringify(results, null, 1));
console.log(`ran ${results.length} attacks; results in out/attacks.json`);
