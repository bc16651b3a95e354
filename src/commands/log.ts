import path from 'node:path';
import { UsageError } from '../errors.js';
import { openJournal, type JournalEvent } from '../journal/index.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { parseDurationOption } from './duration.js';
import { terminalLines } from '../format/control.js';

export interface LogOptions extends GlobalOptions {
  readonly card?: string;
  readonly since?: string;
}

/** A card named by file name, path, or stem: always its file name. */
export function cardName(ref: string): string {
  const base = path.basename(ref.trim());
  return base.endsWith('.md') ? base : `${base}.md`;
}

/** `--since`: an ISO time, or a duration ago (`2h`, `1d`). */
export function parseSince(text: string, now: Date): Date {
  if (/^\d+(ms|s|m|h|d)$/.test(text.trim())) return new Date(now.getTime() - parseDurationOption('--since', text));
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime())) {
    throw new UsageError(`--since: "${text}" is neither an ISO 8601 time (2026-12-01T09:00) nor a duration ago (2h, 1d)`);
  }
  return date;
}

/** A failure's reason and a note's text: what a person reads the log (and a trace) for. */
export function eventSaid(e: JournalEvent): string {
  return typeof e.data?.reason === 'string' ? `: ${e.data.reason}` : typeof e.data?.text === 'string' ? `: "${e.data.text}"` : '';
}

export function describeEvent(e: JournalEvent): string {
  const time = e.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const who = e.profile && e.profile !== e.actor ? `${e.actor} → ${e.profile}` : e.actor;
  const extra = [e.run ? `run ${e.run}` : '', e.pid !== undefined ? `pid ${e.pid}` : ''].filter(Boolean).join(', ');
  const said = eventSaid(e);
  return `${time}  ${e.kind.padEnd(16)} ${e.card ?? '-'}  [${who}]${e.detail ? `  ${e.detail}` : ''}${said}${extra ? `  (${extra})` : ''}  {${e.id}${e.cause ? ` ← ${e.cause}` : ''}}`;
}

/** `board log`: the journal's history, oldest first, optionally for one card and since a time. */
export async function logCommand(options: LogOptions, env: CommandEnv): Promise<number> {
  const { board, now } = await prepare(options, env);
  const since = options.since !== undefined ? parseSince(options.since, now) : undefined;
  const card = options.card !== undefined ? cardName(options.card) : undefined;
  const { events, problems } = await openJournal(board.config.logsDir).read({ ...(since ? { since } : {}), ...(card ? { card } : {}) });
  for (const p of problems) env.logger.warn({ file: p.file, line: p.line, torn: p.torn }, `journal: ${p.reason}`);
  if (options.json) {
    env.stdout(`${JSON.stringify({ events, problems }, null, 2)}\n`);
    return 0;
  }
  if (events.length === 0) env.stdout(`no events${card ? ` for ${card}` : ''}${since ? ` since ${since.toISOString()}` : ''} in ${path.join(board.config.logsDir, 'journal')}\n`);
  else env.stdout(`${terminalLines(events.map(describeEvent).join('\n'))}\n`);
  if (problems.length > 0) env.stdout(`\n${problems.length} journal line(s) skipped: ${problems.map((p) => `${path.basename(p.file)}:${p.line} ${p.reason}`).join('; ')}\n`);
  return 0;
}
