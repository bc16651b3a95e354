import path from 'node:path';

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
    return path.relative(this.root, absolute).split(path.sep).join('/');
  }

  absolute(vaultRelative: string): string {
    return path.join(this.root, ...vaultRelative.split('/'));
  }
}

/** Card files are the visible `.md` files of a folder; dotfiles are the board's temp files. */
export function isCardFileName(name: string): boolean {
  return name.endsWith('.md') && !name.startsWith('.');
}
