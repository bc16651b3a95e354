import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CardBusyError, type HeldCardLock } from '../../src/vault/card-lock.js';
import { editCard } from '../../src/vault/edit-card.js';

/**
 * A card's edit checks its lock once the new text is written beside the card, just before the
 * rename: a writer paused during its write (a host frozen past the lock's staleness, whose lock
 * another host took meanwhile) finds its lock lost there and leaves the card as it is.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-edit-fence-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const CARD = '---\nfunction: f\nrequest: r\ncreated: 2026-12-01\norigin: human\n---\n\nBody.\n';

function lockThat(check: () => void): HeldCardLock {
  return {
    owner: { pid: 1, host: 'h', token: 't', op: 'claim', since: new Date(0).toISOString() } as unknown as HeldCardLock['owner'],
    assertHeld: async () => check(),
    release: async () => undefined,
  };
}

describe('editCard and its lock', () => {
  it('checks the lock after writing the temp file and before the rename; a lost lock leaves the card untouched and no temp file', async () => {
    const card = path.join(dir, 'a.md');
    fs.writeFileSync(card, CARD);
    const seenAtCheck: string[][] = [];
    const lost = lockThat(() => {
      seenAtCheck.push(fs.readdirSync(dir));
      throw new CardBusyError('a.md', undefined);
    });
    await expect(editCard(card, { fields: { claimed: '2026-12-04T10:00:00Z' }, lock: lost }, new Date('2026-12-04T10:00:00Z'))).rejects.toThrow(CardBusyError);
    // The new text was already on disk beside the card when the lock was checked.
    expect(seenAtCheck).toHaveLength(1);
    expect(seenAtCheck[0]!.filter((n) => n.endsWith('.tmp'))).toHaveLength(1);
    expect(fs.readFileSync(card, 'utf8')).toBe(CARD);
    expect(fs.readdirSync(dir)).toEqual(['a.md']);
  });

  it('writes when the lock is still held', async () => {
    const card = path.join(dir, 'b.md');
    fs.writeFileSync(card, CARD);
    const text = await editCard(card, { fields: { claimed: '2026-12-04T10:00:00Z' }, lock: lockThat(() => undefined) }, new Date('2026-12-04T10:00:00Z'));
    expect(fs.readFileSync(card, 'utf8')).toBe(text);
    expect(text).toMatch(/^claimed: /m);
  });
});
