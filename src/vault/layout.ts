import path from 'node:path';
import { forTerminal, hasControlCharacter } from '../format/control.js';

export const STATES = ['pending', 'in-progress', 'done'] as const;
export type CardState = (typeof STATES)[number] | 'archive' | 'scheduled';

/** Where things live in a vault (CONTRACT "Two trees"). */
export class VaultLayout {
  readonly root: string;
  readonly agents: string;
  readonly kanban: string;
  readonly scheduled: string;
  readonly pending: string;
  readonly inProgress: string;
  readonly done: string;
  readonly archive: string;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.agents = path.join(this.root, 'AGENTS');
    this.kanban = path.join(this.root, 'KANBAN');
    this.scheduled = path.join(this.kanban, 'scheduled');
    this.pending = path.join(this.kanban, 'pending');
    this.inProgress = path.join(this.kanban, 'in-progress');
    this.done = path.join(this.kanban, 'done');
    this.archive = path.join(this.kanban, 'archive');
  }

  folder(state: (typeof STATES)[number]): string {
    return state === 'pending' ? this.pending : state === 'in-progress' ? this.inProgress : this.done;
  }

  /** Vault-relative path with `/` separators, as cards write paths. */
  relative(absolute: string): string {
    // A normalized path under the root (the board builds its paths with path.join) is a slice:
    // `path.relative` resolves both sides first, ~15 ms for a dry-run's 500 profiles, cold.
    if (path.sep === '/' && this.root !== '/' && absolute.startsWith(this.root) && absolute.charCodeAt(this.root.length) === 47 && isNormalTail(absolute, this.root.length)) {
      return absolute.slice(this.root.length + 1);
    }
    return path.relative(this.root, absolute).split(path.sep).join('/');
  }

  absolute(vaultRelative: string): string {
    return path.join(this.root, ...vaultRelative.split('/'));
  }
}

/**
 * Card files are the visible `*.md` files of a folder, in any case of the extension (`x.MD` is a
 * card too: a person who saved it means it as one); dotfiles are editors' and the board's temp files.
 */
export function isCardFileName(name: string): boolean {
  return !name.startsWith('.') && name.length > 3 && /\.md$/i.test(name);
}

/**
 * The longest card name (in UTF-8 bytes) the board handles. Names it derives from a card's name
 * (a run record `<stem>.<claim>.a<attempts>.json`, a replay `….replay-<n>`, their temp files) add
 * up to ~60 bytes, and a file name is at most 255 bytes (NAME_MAX): a longer card name would be
 * claimed and then fail at its run record, again every round. The census declares it instead.
 */
export const CARD_NAME_MAX_BYTES = 180;

/** Why the board cannot handle a card named `name`, or undefined when it can. */
export function cardNameProblem(name: string): string | undefined {
  // A name reaches Record lines, logs, run ids and the worker's prompt (`{card}`): a line break
  // in it would forge a line of the board's own text there (CONTRACT "What the census reads").
  if (hasControlCharacter(name)) return `name holds a control character (${forTerminal(name)}): a card name is one line of visible text (rename it)`;
  if (name.length * 3 <= CARD_NAME_MAX_BYTES) return undefined; // a UTF-16 unit is at most 3 UTF-8 bytes
  const bytes = Buffer.byteLength(name);
  if (bytes > CARD_NAME_MAX_BYTES) return `name too long: ${bytes} bytes, the board handles card names up to ${CARD_NAME_MAX_BYTES} bytes (rename it shorter)`;
  return undefined;
}

/**
 * Whether `absolute` from `at` (a `/`) on is normalized: no empty, `.` or `..` segment and no
 * trailing `/`, so that slicing it after the root gives what `path.relative` gives.
 */
function isNormalTail(absolute: string, at: number): boolean {
  if (absolute.length === at + 1 || absolute.endsWith('/')) return false;
  for (let i = absolute.indexOf('/', at); i !== -1; i = absolute.indexOf('/', i + 1)) {
    const next = absolute.charCodeAt(i + 1);
    if (next === 47) return false;
    if (next === 46) {
      const after = absolute.charCodeAt(i + 2);
      if (Number.isNaN(after) || after === 47) return false;
      if (after === 46) {
        const third = absolute.charCodeAt(i + 3);
        if (Number.isNaN(third) || third === 47) return false;
      }
    }
  }
  return true;
}
