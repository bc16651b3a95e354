import type { LoadedBoard } from '../config/load-config.js';
import type { Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { VaultLayout } from '../vault/layout.js';
import type { Spawner } from './spawner.js';

/** The seams a round runs against: vault root, clock, spawner and logger are all injected. */
export interface RoundContext {
  readonly layout: VaultLayout;
  readonly board: LoadedBoard;
  readonly now: Date;
  readonly spawner: Spawner;
  readonly logger: Logger;
  /** Where the round journals its transitions; `executePlan` opens the logs folder's journal when absent. */
  readonly journal?: Journal;
}

/** What a round did to one card: the tick's report and, later, the journal's raw material. */
export interface Transition {
  readonly kind: 'scheduled' | 'blocked' | 'claimed' | 'spawned' | 'reclaimed' | 'returned' | 'closed' | 'repaired' | 'failed';
  readonly card: string;
  readonly detail: string;
  readonly profile?: string;
  readonly runId?: string;
  readonly pid?: number;
  /** The id of the journal event the step already appended for it (else `executePlan` journals it). */
  readonly event?: string;
}
