import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { card, makeBoard, profile } from '../helpers/vault.js';
import { waitFor as waitUntil } from '../helpers/wait.js';

/**
 * Shared rig of the reliability tests: a board whose worker is a tiny shell script that records
 * its claim (one O_APPEND line) and closes its card by an exclusive move to done/, and helpers to
 * run the BUILT CLI as real processes (`npm test` builds first).
 */
export const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
export const STATES = ['pending', 'in-progress', 'done'] as const;

export const WRITER = profile('writer', 'function: write\nhandles: [draft]\nskills: [write]');

/** The worker: one line per start (card, claim, run, pid), then link into done/ and unlink. */
export const RECORDING_WORKER = `#!/bin/sh
name=$(basename "$BOARD_CARD")
printf '%s %s %s %s\\n' "$name" "$BOARD_CLAIM" "$BOARD_RUN" "$$" >> "$RECORD_FILE"
ln "$BOARD_CARD" "$BOARD_VAULT/KANBAN/done/$name" && rm "$BOARD_CARD"
`;

export function cardName(i: number): string {
  return `c-${String(i).padStart(4, '0')}.md`;
}

export function pendingCard(i: number, request = `Write a draft number ${i}`): string {
  const minute = String(i % 60).padStart(2, '0');
  return card(`function: write\nrequest: "${request}"\ncreated: 2026-11-01T09:${minute}:00.000Z\norigin: human\nattempts: 0\npaths: []`, `\nCard ${i}.\n`);
}

export interface RecordingBoard {
  readonly root: string;
  readonly vault: string;
  readonly recordFile: string;
}

/** A board with `count` pending cards, one writer profile and the recording worker as its harness. */
export function recordingBoard(count: number, config: Record<string, string> = {}, vaultFiles: Record<string, string> = {}): RecordingBoard {
  const files: Record<string, string> = { 'AGENTS/writer/PROFILE.md': WRITER, ...vaultFiles };
  for (let i = 0; i < count; i += 1) files[`KANBAN/pending/${cardName(i)}`] = pendingCard(i);
  const settings = { max_dispatches_per_round: '8', zombie_after: '1h', ...config };
  const root = makeBoard(files, {
    'board.yml': ['vault: vault', 'default_harness: sh', 'logs: logs', ...Object.entries(settings).map(([k, v]) => `${k}: ${v}`)].join('\n') + '\n',
    'harnesses/worker.sh': RECORDING_WORKER,
    'models.yml': 'sh:\n  standard: none\n',
  });
  const recordFile = path.join(root, 'record.log');
  fs.writeFileSync(
    path.join(root, 'harnesses/sh.yml'),
    [
      `command: ["/bin/sh", "${path.join(root, 'harnesses/worker.sh')}"]`,
      'prompt_template: "{card}"',
      'environment:',
      `  RECORD_FILE: "${recordFile}"`,
      'credential_guard: guard.sh',
      // This worker closes by moving its card itself, a raw rename on the board that the sandbox
      // forbids (KANBAN/ is read-only inside): these suites prove the board's transitions under
      // crashes and races, with hundreds of workers; test/security proves the sandbox.
      'sandbox: none',
    ].join('\n') + '\n',
  );
  fs.writeFileSync(recordFile, '');
  return { root, vault: path.join(root, 'vault'), recordFile };
}

export interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the built CLI to completion, asynchronously (several may run at once). */
export function runCli(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, BOARD_CONFIG: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Start a long-running CLI command (`watch`); its output is collected on the returned object. */
export function startCli(cwd: string, args: readonly string[], env: Record<string, string> = {}): { child: ChildProcess; output: { stdout: string; stderr: string }; exited: Promise<Run> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, BOARD_CONFIG: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<Run>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, ...output })));
  return { child, output, exited };
}

export const waitFor = <T>(what: string, probe: () => T | undefined | false, timeoutMs = 60_000, everyMs = 100) => waitUntil(what, probe, timeoutMs, everyMs);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Visible card files per state folder. */
export function cardsByState(vault: string): Record<(typeof STATES)[number], string[]> {
  const out = {} as Record<(typeof STATES)[number], string[]>;
  for (const s of STATES) {
    const dir = path.join(vault, 'KANBAN', s);
    out[s] = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.md') && !n.startsWith('.')).sort() : [];
  }
  return out;
}

/**
 * The board's invariants at rest: every card file parses, and every card name is in exactly one
 * state folder, or (`allowDoubleLink`) in two as one and the same file, which the next tick repairs.
 * Returns the problems found (empty when all holds).
 */
export function invariantProblems(vault: string, expected: readonly string[], allowDoubleLink = false): string[] {
  // Workers may be moving cards while we look: a name that vanished under us means look again.
  let problems: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    problems = invariantProblemsOnce(vault, expected, allowDoubleLink);
    if (!problems.some((p) => p.includes('ENOENT'))) return problems;
  }
  return problems;
}

function invariantProblemsOnce(vault: string, expected: readonly string[], allowDoubleLink: boolean): string[] {
  const problems: string[] = [];
  const by = cardsByState(vault);
  const where = new Map<string, string[]>();
  for (const s of STATES) for (const n of by[s]) where.set(n, [...(where.get(n) ?? []), s]);
  for (const name of expected) {
    const states = where.get(name) ?? [];
    if (states.length === 0) problems.push(`${name}: lost (in no state folder)`);
    if (states.length > 1) {
      let inodes: Set<number>;
      try {
        inodes = new Set(states.map((s) => fs.statSync(path.join(vault, 'KANBAN', s, name)).ino));
      } catch (error) {
        problems.push(`${name}: ${(error as Error).message}`);
        continue;
      }
      if (!allowDoubleLink || inodes.size > 1 || states.length > 2) problems.push(`${name}: in ${states.join(' and ')}`);
    }
    for (const s of states) {
      try {
        parseFrontMatter(fs.readFileSync(path.join(vault, 'KANBAN', s, name), 'utf8'));
      } catch (error) {
        problems.push(`${s}/${name}: does not parse: ${(error as Error).message}`);
      }
    }
  }
  for (const n of where.keys()) if (!expected.includes(n)) problems.push(`${n}: a card nobody created`);
  return problems;
}

/** The recording's lines as { card, claim, run }. */
export function recorded(recordFile: string): { card: string; claim: string; run: string }[] {
  return fs
    .readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [c, claim, run] = line.split(' ');
      return { card: c!, claim: claim!, run: run! };
    });
}

/** How many "board: claimed for" milestones a card's Record holds. */
export function claimMilestones(text: string): number {
  return (text.match(/- board: claimed for /g) ?? []).length;
}

/** Every journal event line in the logs folder (NDJSON day files), parsed. */
export function journalEvents(logsDir: string): { kind: string; card?: string; run?: string }[] {
  const dir = path.join(logsDir, 'journal');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ndjson'))
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; card?: string; run?: string });
}

/** Count occurrences of each string. */
export function tally(items: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) m.set(i, (m.get(i) ?? 0) + 1);
  return m;
}
