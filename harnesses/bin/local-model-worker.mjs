#!/usr/bin/env node
// The local-model worker (harnesses/local-model.yml): one card, one request to an
// OpenAI-compatible server (llama.cpp's `llama-server`, or anything speaking
// POST /v1/chat/completions), the answer written into the vault, the card closed.
//
//   node local-model-worker.mjs --model <model> --instructions <harness prompt>
//
// Environment (set by the board for every worker): BOARD_CARD (absolute path of the claimed card in
// in-progress/), BOARD_CLAIM, BOARD_VAULT, BOARD_CONFIG. From the harness: LOCAL_MODEL_URL (default
// http://127.0.0.1:8080, llama-server's default address), LOCAL_MODEL_API_KEY (optional: only if the
// server was started with --api-key; declare it in environment_from_private), LOCAL_MODEL_TIMEOUT
// (seconds, default 600), LOCAL_MODEL_MAX_TOKENS (optional), LOCAL_MODEL_OUTPUT_DIR (vault folder for
// answers when the card has no destination, default `outputs`), BOARD_BIN (the board CLI; a .js
// file is run with this node; default `board` on PATH).
//
// What it does, in card mode (no interlocutor, nothing asked, fail loudly):
// 1. reads the card's front matter (`agent` = the claiming profile, `inputs`, `destination`) and
//    the profile AGENTS/<agent>/PROFILE.md;
// 2. refuses inputs that leave the vault or are credential files (guard/credential-rules.mjs: the
//    credential guard of this harness; the model gets no tools at all, only text);
// 3. `board card note` a milestone, POSTs { model, messages: [system: instructions + profile,
//    user: card + inputs] } to <url>/v1/chat/completions, writes choices[0].message.content to the
//    card's destination (a folder destination gets <card name>.md) or <output dir>/<card name>.md;
// 4. `board card note` the result, then `board card close CARD --path <vault-relative output>`.
// On any failure after the claim: `board card fail CARD "<reason>"` and exit 1.
// No environment variable and no key is ever put into a request body.
//
// Sources: llama.cpp server README (github.com/ggml-org/llama.cpp, tools/server): OpenAI-compatible
// POST /v1/chat/completions with `messages`, response `choices[0].message.content`, GET /v1/models,
// `--api-key` checked as `Authorization: Bearer <key>`, default 127.0.0.1:8080; a single-model
// server ignores `model`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { checkPath } from '../guard/credential-rules.mjs';

const DEFAULT_URL = 'http://127.0.0.1:8080';
const MAX_INPUT_BYTES = 256 * 1024;

class Refusal extends Error {}

// ---- arguments and environment -------------------------------------------------------------

function parseArgs(argv) {
  const out = { model: undefined, instructions: '' };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--model') out.model = argv[++i];
    else if (arg === '--instructions') out.instructions = argv[++i] ?? '';
    else throw new Refusal(`unknown argument ${JSON.stringify(arg)} (expected --model M --instructions TEXT)`);
  }
  return out;
}

function baseUrl(env = process.env) {
  return (env.LOCAL_MODEL_URL || DEFAULT_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
}

// ---- a small front matter reader (the card's own fields only) -------------------------------

function scalar(raw) {
  const text = raw.trim();
  if (text.startsWith('"')) return JSON.parse(text);
  if (text.startsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  const value = text.replace(/\s+#.*$/, '');
  if (value === '' || value === '~' || value === 'null') return null;
  if (value.startsWith('[') && value.endsWith(']')) {
    const inner = value.slice(1, -1).trim();
    return inner === '' ? [] : inner.split(',').map((part) => scalar(part));
  }
  if (value.startsWith('{')) throw new Refusal('flow mappings ({…}) in the card front matter are not supported by this worker; use block style');
  return value;
}

/** `key: value`, block lists and one level of nested maps: what a card's front matter holds. */
export function readFrontMatter(text) {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  if (!m) throw new Refusal('the card has no front matter');
  const data = {};
  const lines = m[1].split(/\r?\n/);
  let i = 0;
  const indent = (line) => /^ */.exec(line)[0].length;
  const meaningful = (line) => line.trim() !== '' && !line.trim().startsWith('#');
  const block = (min) => {
    // Collect the lines indented deeper than `min` that follow.
    const out = [];
    while (i < lines.length && (!meaningful(lines[i]) || indent(lines[i]) > min)) {
      if (meaningful(lines[i])) out.push(lines[i]);
      i += 1;
    }
    return out;
  };
  const parseBlock = (body) => {
    if (body.length === 0) return null;
    const base = indent(body[0]);
    if (body[0].trim().startsWith('- ') || body[0].trim() === '-') {
      return body.filter((l) => indent(l) === base).map((l) => scalar(l.trim().replace(/^-\s*/, '')));
    }
    const map = {};
    for (let j = 0; j < body.length; j += 1) {
      const line = body[j];
      if (indent(line) !== base) continue;
      const kv = /^\s*([^:#]+?):(?:\s+(.*))?$/.exec(line);
      if (!kv) throw new Refusal(`cannot read the card front matter line ${JSON.stringify(line.trim())}`);
      if (kv[2] !== undefined && kv[2].trim() !== '') map[kv[1].trim()] = scalar(kv[2]);
      else {
        const items = [];
        while (j + 1 < body.length && indent(body[j + 1]) > base) items.push(body[++j]);
        map[kv[1].trim()] = parseBlock(items);
      }
    }
    return map;
  };
  while (i < lines.length) {
    const line = lines[i];
    i += 1;
    if (!meaningful(line) || indent(line) > 0) continue;
    const kv = /^([^:#\s][^:#]*?):(?:\s+(.*))?$/.exec(line);
    if (!kv) continue;
    data[kv[1].trim()] = kv[2] !== undefined && kv[2].trim() !== '' ? scalar(kv[2]) : parseBlock(block(0));
  }
  return data;
}

// ---- paths ----------------------------------------------------------------------------------

/** A vault-relative path that stays inside the vault (same rule as the board's census). */
function safeVaultPath(p) {
  if (typeof p !== 'string' || p === '' || p.startsWith('/') || p.includes('\\') || /^[A-Za-z]:/.test(p) || p.includes('\0')) return false;
  let depth = 0;
  for (const part of p.split('/')) {
    if (part === '..') depth -= 1;
    else if (part !== '.' && part !== '') depth += 1;
    if (depth < 0) return false;
  }
  return depth > 0;
}

function guardVaultPath(vault, rel, what) {
  if (!safeVaultPath(rel)) throw new Refusal(`${what} "${rel}" is not a path inside the vault`);
  const verdict = checkPath(rel);
  if (!verdict.allow) throw new Refusal(`${what} refused by the credential guard: ${verdict.reason}`);
  const abs = path.resolve(vault, rel);
  if (fs.existsSync(abs)) {
    const real = fs.realpathSync(abs);
    const root = fs.realpathSync(vault);
    if (real !== root && !real.startsWith(root + path.sep)) throw new Refusal(`${what} "${rel}" leads outside the vault`);
  }
  return abs;
}

function outputPath(vault, card, cardFile) {
  const stem = path.basename(cardFile, '.md');
  const toRel = (abs) => path.relative(vault, abs).split(path.sep).join('/');
  if (typeof card.destination === 'string' && card.destination.trim() !== '') {
    const dest = card.destination.trim();
    const forbidden = /^(\.\/)?(KANBAN|AGENTS)(\/|$)/;
    if (forbidden.test(dest)) throw new Refusal(`destination "${dest}" is inside KANBAN/ or AGENTS/, where workers do not write answers`);
    const abs = guardVaultPath(vault, dest.replace(/\/+$/, '') || dest, 'destination');
    const isDir = dest.endsWith('/') || (fs.existsSync(abs) && fs.statSync(abs).isDirectory());
    return toRel(isDir ? path.join(abs, `${stem}.md`) : abs);
  }
  const dir = process.env.LOCAL_MODEL_OUTPUT_DIR || 'outputs';
  guardVaultPath(vault, dir, 'LOCAL_MODEL_OUTPUT_DIR');
  let candidate = path.join(vault, dir, `${stem}.md`);
  for (let n = 2; fs.existsSync(candidate); n += 1) candidate = path.join(vault, dir, `${stem}-${n}.md`);
  return toRel(candidate);
}

function inputEntries(card) {
  const out = [];
  for (const [slot, value] of Object.entries(card.inputs ?? {})) {
    for (const p of Array.isArray(value) ? value : [value]) if (p !== null && p !== undefined) out.push({ slot, path: String(p) });
  }
  return out;
}

// ---- the board CLI ---------------------------------------------------------------------------

function board(args) {
  const bin = process.env.BOARD_BIN || 'board';
  const [file, argv] = /\.(c|m)?js$/.test(bin) ? [process.execPath, [bin, ...args]] : [bin, args];
  const out = spawnSync(file, argv, { env: process.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (out.stdout) process.stdout.write(out.stdout);
  if (out.stderr) process.stderr.write(out.stderr);
  if (out.error) throw new Error(`cannot run the board CLI (${bin}): ${out.error.message}`);
  if (out.status !== 0) throw new Error(`\`board ${args.slice(0, 2).join(' ')}\` exited with ${out.status}`);
}

// ---- the model -------------------------------------------------------------------------------

async function complete({ model, system, user }) {
  const headers = { 'content-type': 'application/json' };
  if (process.env.LOCAL_MODEL_API_KEY) headers.authorization = `Bearer ${process.env.LOCAL_MODEL_API_KEY}`;
  const body = { model, messages: [{ role: 'system', content: system }, { role: 'user', content: user }], stream: false };
  if (process.env.LOCAL_MODEL_MAX_TOKENS) body.max_tokens = Number(process.env.LOCAL_MODEL_MAX_TOKENS);
  const url = `${baseUrl()}/v1/chat/completions`;
  let response;
  try {
    response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(Number(process.env.LOCAL_MODEL_TIMEOUT ?? 600) * 1000) });
  } catch (error) {
    throw new Error(`the model server at ${url} did not answer: ${error.cause?.message ?? error.message}`);
  }
  const text = await response.text();
  if (!response.ok) throw new Error(`the model server answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  let content;
  try {
    content = JSON.parse(text).choices?.[0]?.message?.content;
  } catch {
    throw new Error('the model server did not answer with JSON');
  }
  if (typeof content !== 'string' || content.trim() === '') throw new Error('the model returned an empty answer');
  return content;
}

// ---- check mode ------------------------------------------------------------------------------

async function check() {
  let version = null;
  try {
    const response = await fetch(`${baseUrl()}/v1/models`, { signal: AbortSignal.timeout(5_000), headers: process.env.LOCAL_MODEL_API_KEY ? { authorization: `Bearer ${process.env.LOCAL_MODEL_API_KEY}` } : {} });
    if (response.ok) {
      const ids = ((await response.json()).data ?? []).map((m) => m.id).filter(Boolean);
      version = `reachable${ids.length ? `, serving ${ids.join(', ')}` : ''}`;
    } else version = null;
  } catch {
    version = null;
  }
  const guarded = !checkPath('.env').allow && !checkPath('/home/u/.ssh/id_rsa').allow && checkPath('notes/a.md').allow;
  const result = {
    cli: 'OpenAI-compatible server (llama-server)',
    path: version ? `${baseUrl()}/v1/chat/completions` : null,
    version: version ?? `not reachable at ${baseUrl()} (start llama-server, or set LOCAL_MODEL_URL)`,
    guard: guarded
      ? { wired: true, detail: 'the model gets no tools; inputs and destination pass guard/credential-rules.mjs; no environment is sent' }
      : { wired: false, detail: 'guard/credential-rules.mjs does not refuse credential paths' },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

// ---- card mode -------------------------------------------------------------------------------

async function main() {
  if (process.env.BOARD_HARNESS_CHECK === '1') return check();
  const cardFile = process.env.BOARD_CARD;
  const vault = process.env.BOARD_VAULT;
  if (!cardFile || !vault) {
    process.stderr.write('local-model-worker: BOARD_CARD and BOARD_VAULT are not set; this worker is started by `board tick`.\n');
    process.exitCode = 2;
    return;
  }
  let noted = false;
  try {
    const args = parseArgs(process.argv.slice(2));
    if (!args.model) throw new Refusal('no --model given (models.yml row for this harness)');
    const card = readFrontMatter(fs.readFileSync(cardFile, 'utf8'));
    const cardText = fs.readFileSync(cardFile, 'utf8');
    if (typeof card.agent !== 'string' || card.agent === '') throw new Refusal('the card has no `agent`: it was not claimed by the board');
    const profileFile = path.join(vault, 'AGENTS', card.agent, 'PROFILE.md');
    if (!fs.existsSync(profileFile)) throw new Refusal(`profile ${path.relative(vault, profileFile)} not found`);
    const profile = fs.readFileSync(profileFile, 'utf8');
    const inputs = inputEntries(card).map(({ slot, path: rel }) => {
      const abs = guardVaultPath(vault, rel, `input ${slot}`);
      if (!fs.existsSync(abs) || !fs.statSync(abs).isFile()) throw new Refusal(`input ${slot} (${rel}) is not a file in the vault`);
      const buffer = fs.readFileSync(abs);
      const truncated = buffer.length > MAX_INPUT_BYTES;
      return { slot, rel, text: buffer.subarray(0, MAX_INPUT_BYTES).toString('utf8'), truncated };
    });
    const output = outputPath(vault, card, cardFile);
    const cut = inputs.filter((input) => input.truncated).map((input) => input.rel);
    board(['card', 'note', cardFile, `local-model: profile ${card.agent} and the card${inputs.length ? ` with ${inputs.length} input(s) (${inputs.map((x) => x.rel).join(', ')})` : ''} sent to model ${args.model} at ${baseUrl()}; the answer goes to ${output}.${cut.length ? ` Inputs cut to ${MAX_INPUT_BYTES} bytes: ${cut.join(', ')}.` : ''}`]);
    noted = true;

    const system = `${args.instructions.trim()}\n\n# Your profile (PROFILE.md of ${card.agent})\n\n${profile}`;
    const user = [`# The card (${path.basename(cardFile)})`, '', cardText, ...inputs.flatMap((x) => ['', `# Input ${x.slot}: ${x.rel}${x.truncated ? ' (cut)' : ''}`, '', x.text])].join('\n');
    const answer = await complete({ model: args.model, system, user });

    const abs = path.join(vault, output);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    const tmp = `${abs}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, answer.endsWith('\n') ? answer : `${answer}\n`);
    fs.renameSync(tmp, abs);
    board(['card', 'note', cardFile, `local-model: answer of ${args.model} written to ${output} (${answer.length} characters).`]);
    board(['card', 'close', cardFile, '--path', output]);
  } catch (error) {
    const reason = `local-model: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`${reason}\n`);
    try {
      board(['card', 'fail', cardFile, reason]);
    } catch (failError) {
      process.stderr.write(`local-model-worker: could not fail the card either: ${failError.message}${noted ? '' : ' (no milestone was written)'}\n`);
    }
    process.exitCode = 1;
  }
}

await main();
