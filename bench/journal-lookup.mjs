#!/usr/bin/env node
/**
 * Journal cause lookups on a long-lived busy board (not part of the tests).
 *
 *   node bench/journal-lookup.mjs [--days 92] [--ticks 300] [--events 2000] [--runs 5] [--build DIR]
 *
 * Generates a journal under bench/vaults/journal-<days>d-<ticks>t-<events>e/ (reused when present):
 * each local day holds `ticks` tick:ran lines and `events` card events (cards created, claimed,
 * spawned, noted, closed, some waiting), lines as the board writes them. Then it times what one
 * tick and one `board card` verb spend finding causes:
 * - before: the whole window read and indexed (`readJournalDir({ since })` + `JournalIndex`), as
 *   the round did once per round and each verb did once per call;
 * - after: `JournalLookup` over a per-round snapshot (newest day file first, stop at the first
 *   file holding the card), for the same set of lookups.
 * A tick's lookups: 5 claims of cards created today, 5 verdict changes of cards last seen
 * yesterday, 1 director wake (its child closed today), 2 cards no event names (hand-dropped),
 * skipped periods of 2 daily templates (the previous day had ticks). Modules come from dist/
 * (`npm run build`) unless --build names another tsc output folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const DAYS = Number(opt('days', '92'));
const TICKS = Number(opt('ticks', '300'));
const EVENTS = Number(opt('events', '2000'));
const RUNS = Number(opt('runs', '5'));
const BUILD = path.resolve(opt('build', path.join(HERE, '..', 'dist')));
const j = await import(pathToFileURL(path.join(BUILD, 'journal/index.js')).href);
const { localDate } = await import(pathToFileURL(path.join(BUILD, 'core/time.js')).href);

const DAY = 86_400_000;
const NOW = new Date(2026, 11, 2, 14, 0).getTime();
const dayStart = (back) => new Date(2026, 11, 2 - back).getTime();
const dir = path.join(HERE, 'vaults', `journal-${DAYS}d-${TICKS}t-${EVENTS}e`, 'journal');
const cardOf = (back, i) => `${localDate(new Date(dayStart(back)))}-task-${i}.md`;
const PER_CARD = 5;

if (!fs.existsSync(dir)) {
  fs.mkdirSync(dir, { recursive: true });
  let seq = 0;
  const id = (t) => `ev-${t.toString(36)}-${(seq++).toString(16).padStart(12, '0')}`;
  for (let back = DAYS - 1; back >= 0; back--) {
    const lines = [];
    const start = dayStart(back);
    const span = back === 0 ? NOW - start : DAY;
    for (let i = 0; i < TICKS; i++) {
      const t = start + Math.floor((i * span) / TICKS);
      lines.push({ t, e: { id: id(t), at: new Date(t).toISOString(), kind: 'tick:ran', actor: 'board', detail: 'plan: 0 scheduled, 2 to dispatch, 14 waiting, 3 blocked, 0 zombies', data: { pid: 4242 } } });
    }
    const cards = Math.floor(EVENTS / PER_CARD);
    for (let c = 0; c < cards; c++) {
      const card = cardOf(back, c);
      const run = `${card.slice(0, -3)}.20261202T100000000Z.a0`;
      let t = start + Math.floor((c * span) / cards);
      const created = { id: id(t), at: new Date(t).toISOString(), kind: 'card:created', actor: 'human', card, detail: `wrote pending/${card}` };
      t += 1000;
      const claimed = { id: id(t), at: new Date(t).toISOString(), kind: 'card:claimed', actor: 'board', card, cause: created.id, run, profile: 'word-counter', detail: 'claude-code / claude-sonnet', data: { harness: 'claude-code', model: 'claude-sonnet', via: 'funnel', descriptor: 'count words', attempts: 0 } };
      const spawned = { id: id(t + 5), at: new Date(t + 5).toISOString(), kind: 'card:spawned', actor: 'board', card, cause: claimed.id, run, pid: 31337, detail: `/srv/board/logs/runs/${localDate(new Date(t))}/${run}.log` };
      const noted = { id: id(t + 60_000), at: new Date(t + 60_000).toISOString(), kind: 'card:noted', actor: 'word-counter', card, cause: claimed.id, run, detail: `noted on in-progress/${card}` };
      const closed = { id: id(t + 120_000), at: new Date(t + 120_000).toISOString(), kind: 'card:closed', actor: 'word-counter', card, cause: claimed.id, run, detail: `closed ${card} with outputs/${card} → done/${card}` };
      for (const e of [created, claimed, spawned, noted, closed]) lines.push({ t: Date.parse(e.at), e });
    }
    lines.sort((a, b) => a.t - b.t);
    fs.writeFileSync(path.join(dir, `${localDate(new Date(start))}.ndjson`), lines.map((l) => `${JSON.stringify(l.e)}\n`).join(''));
  }
}

const files = fs.readdirSync(dir);
const bytes = files.reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
const since = new Date(NOW - 92 * DAY);
const cardsPerDay = Math.floor(EVENTS / PER_CARD);
// Cards created earlier today (claimable now), cards last seen yesterday, a director's child closed today.
const today = Array.from({ length: 5 }, (_, i) => cardOf(0, Math.floor((cardsPerDay * (i + 1)) / 8)));
const yesterday = Array.from({ length: 5 }, (_, i) => cardOf(1, i * 37));
const child = cardOf(0, 3);
const unknown = ['hand-dropped-1.md', 'hand-dropped-2.md'];
const periods = [0, 1].map(() => ({ due: new Date(dayStart(1) + 8 * 3600_000), end: new Date(dayStart(0)) }));

async function before() {
  const read = await j.readJournalDir(dir, { since });
  const index = new j.JournalIndex(read.events);
  const out = [];
  for (const c of [...today, ...yesterday, ...unknown]) out.push(index.lastFor(c)?.id);
  out.push(index.lastFor(child, ['card:closed'])?.id);
  const events = [...index.byId.values()];
  for (const p of periods) out.push(events.some((e) => e.kind === 'tick:ran' && Date.parse(e.at) >= p.due.getTime() && Date.parse(e.at) < p.end.getTime()));
  return out;
}

async function after(misses = unknown) {
  const lookup = new j.JournalLookup(j.snapshotDayFiles(j.dayFilesOf(dir)));
  const out = [];
  for (const c of [...today, ...yesterday, ...misses]) out.push((await lookup.latestFor(c, { since }))?.id);
  out.push((await lookup.latestFor(child, { since, kinds: ['card:closed'] }))?.id);
  for (const p of periods) out.push(await lookup.anyBetween('tick:ran', p.due, p.end, { since }));
  return out;
}

// One verb run by a human: the card's latest event (cards of today, of 30 days ago, of none).
const verbBefore = async (card) => new j.JournalIndex((await j.readJournalDir(dir, { card, since })).events).lastFor(card)?.id;
const verbAfter = async (card) => (await new j.JournalLookup(j.dayFilesOf(dir)).latestFor(card, { since }))?.id;

async function time(fn, runs = RUNS) {
  const ms = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    result = await fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)], result };
}

const b = await time(before, Math.min(RUNS, 3));
const a = await time(after);
const hitsOnly = await time(() => after([]));
if (JSON.stringify(a.result) !== JSON.stringify(b.result)) {
  console.error('MISMATCH', { before: b.result, after: a.result });
  process.exit(1);
}
const vb = await time(() => verbBefore(today[0]), Math.min(RUNS, 3));
const va = await time(() => verbAfter(today[0]));
const vOld = cardOf(30, 11);
const vob = await time(() => verbBefore(vOld), Math.min(RUNS, 3));
const voa = await time(() => verbAfter(vOld));
const vMiss = await time(() => verbAfter('hand-dropped-1.md'));
if (vb.result !== va.result || vob.result !== voa.result) {
  console.error('MISMATCH (verb)');
  process.exit(1);
}
const f = (x) => `${x.toFixed(1)} ms`;
console.log(`journal: ${files.length} day files, ${(bytes / 1e6).toFixed(1)} MB, ${((TICKS + EVENTS) * DAYS).toLocaleString('en')} events`);
console.log(`tick's cause lookups (13 lookups + 2 periods):  before ${f(b.median)}   after ${f(a.median)}   (${(b.median / a.median).toFixed(0)}×)`);
console.log(`  the same without the 2 cards no event names:  after ${f(hitsOnly.median)}   (${(b.median / hitsOnly.median).toFixed(0)}×)`);
console.log(`verb, card active today:                      before ${f(vb.median)}   after ${f(va.median)}`);
console.log(`verb, card last seen 30 days ago:             before ${f(vob.median)}   after ${f(voa.median)}`);
console.log(`verb, card with no event (full window):       after ${f(vMiss.median)}`);
console.log(`node ${process.version}, load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
