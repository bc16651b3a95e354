import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalLookup, dayFilesOf, type DayFiles } from '../../src/journal/index.js';
import { cardsInDayFile } from '../../src/journal/card-presence.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'board-presence-'));
const line = (e: Record<string, unknown>) => `${JSON.stringify(e)}\n`;
const event = (id: string, at: string, card?: string) => line({ id, at, kind: card ? 'card:noted' : 'tick:ran', actor: 'board', ...(card ? { card } : {}), detail: 'x' });
const since = new Date('2026-09-01T00:00:00Z');

/** dayFilesOf, with the day files it reads whole counted. */
function counting(dir: string): DayFiles & { opened: string[] } {
  const files = dayFilesOf(dir);
  const opened: string[] = [];
  return {
    opened,
    names: () => files.names(),
    read: async (name) => {
      opened.push(name);
      return files.read(name);
    },
    cardsIn: (name) => files.cardsIn!(name),
  };
}

describe("a journal day file's cards", () => {
  it('are read once, then grown by what is appended; a line still being written is read again whole', async () => {
    const dir = tmp();
    const file = path.join(dir, '2026-12-02.ndjson');
    fs.writeFileSync(file, event('e1', '2026-12-02T09:00:00.000Z', 'a.md') + event('e2', '2026-12-02T09:01:00.000Z'));
    expect([...(await cardsInDayFile(dir, '2026-12-02.ndjson'))!]).toEqual(['"a.md"']);
    // Half a line, cut inside the card's name: not counted yet, nor lost.
    const next = event('e3', '2026-12-02T09:02:00.000Z', 'b "quoted".md');
    fs.appendFileSync(file, next.slice(0, 60));
    expect([...(await cardsInDayFile(dir, '2026-12-02.ndjson'))!]).toEqual(['"a.md"']);
    fs.appendFileSync(file, next.slice(60));
    expect([...(await cardsInDayFile(dir, '2026-12-02.ndjson'))!]).toEqual(['"a.md"', JSON.stringify('b "quoted".md')]);
  });

  it('are read again from the start when the file is replaced or shrinks', async () => {
    const dir = tmp();
    const file = path.join(dir, '2026-12-02.ndjson');
    fs.writeFileSync(file, event('e1', '2026-12-02T09:00:00.000Z', 'a.md') + event('e2', '2026-12-02T09:00:00.000Z', 'b.md'));
    expect((await cardsInDayFile(dir, '2026-12-02.ndjson'))!.size).toBe(2);
    fs.writeFileSync(`${file}.new`, event('e9', '2026-12-02T09:00:00.000Z', 'c.md'));
    fs.renameSync(`${file}.new`, file);
    expect([...(await cardsInDayFile(dir, '2026-12-02.ndjson'))!]).toEqual(['"c.md"']);
    fs.truncateSync(file, 0);
    fs.appendFileSync(file, event('e10', '2026-12-02T09:00:00.000Z', 'd.md'));
    expect([...(await cardsInDayFile(dir, '2026-12-02.ndjson'))!]).toEqual(['"d.md"']);
  });

  it('cannot be told through a link, a folder or a missing file: the lookup reads and reports as before', async () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'elsewhere'), event('e1', '2026-12-02T09:00:00.000Z', 'a.md'));
    fs.symlinkSync(path.join(dir, 'elsewhere'), path.join(dir, '2026-12-02.ndjson'));
    fs.mkdirSync(path.join(dir, '2026-12-01.ndjson'));
    expect(await cardsInDayFile(dir, '2026-12-02.ndjson')).toBeUndefined();
    expect(await cardsInDayFile(dir, '2026-12-01.ndjson')).toBeUndefined();
    expect(await cardsInDayFile(dir, '2026-11-30.ndjson')).toBeUndefined();
  });
});

describe('lookups with the cards known', () => {
  it('a card no day file names costs no read; one named costs only the files naming it; answers unchanged', async () => {
    const dir = tmp();
    const days = ['2026-11-28', '2026-11-29', '2026-11-30', '2026-12-01', '2026-12-02'];
    for (const [i, day] of days.entries()) {
      let text = '';
      for (let k = 0; k < 50; k += 1) text += event(`${day}-${k}`, `${day}T10:${String(k).padStart(2, '0')}:00.000Z`, k % 5 === 0 ? undefined : `busy-${k % 4}.md`);
      if (i === 1) text += event('old-one', `${day}T23:00:00.000Z`, 'rare.md');
      fs.writeFileSync(path.join(dir, `${day}.ndjson`), text);
    }
    const files = counting(dir);
    const lookup = new JournalLookup(files);
    expect(await lookup.latestFor('never.md', { since })).toBeUndefined();
    expect(files.opened).toEqual([]);
    expect((await lookup.latestFor('rare.md', { since }))?.id).toBe('old-one');
    expect(files.opened).toEqual(['2026-11-29.ndjson']);
    files.opened.length = 0;
    const many = await lookup.latestForMany(['never.md', 'rare.md'], { since });
    expect(many.get('never.md')).toBeUndefined();
    expect(many.get('rare.md')?.id).toBe('old-one');
    expect(files.opened).toEqual(['2026-11-29.ndjson']);
    // The same answers as a lookup that reads every file.
    const plain = new JournalLookup({ names: () => files.names(), read: (n) => dayFilesOf(dir).read(n) });
    for (const card of ['busy-1.md', 'busy-3.md', 'rare.md', 'never.md']) {
      expect((await lookup.latestFor(card, { since }))?.id).toBe((await plain.latestFor(card, { since }))?.id);
    }
  });
});
