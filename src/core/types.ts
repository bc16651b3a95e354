import type { Budget } from '../schema/config.js';
import type { Card, Profile, ScheduledTemplate } from '../schema/index.js';
import type { Harness } from '../schema/harness.js';
import type { Models } from '../schema/models.js';

/** A problem with one file: which file, which field, and why (never a bare "invalid"). */
export interface FileProblem {
  readonly file: string;
  readonly field?: string;
  /** The 1-based line in the file, where the YAML or the field gives one. */
  readonly line?: number;
  readonly reason: string;
}

export type Parsed<T> =
  | { readonly ok: true; readonly file: string; readonly text: string; readonly value: T }
  | { readonly ok: false; readonly file: string; readonly problems: readonly FileProblem[] };

export interface ProfileEntry {
  /** Vault-relative path of the PROFILE.md. */
  readonly path: string;
  readonly profile: Profile;
}

/** Facts about one input path a card or template names, gathered by the shell. */
export interface InputFact {
  readonly exists: boolean;
  /** False when the path, or a link on the way, leads outside the vault. */
  readonly inside: boolean;
  /** True when the path, after resolving links, lies on the board itself (`KANBAN/`). */
  readonly onBoard?: boolean;
}

/**
 * Facts about a director's child named by a pending card's `inputs.dependent_task`, once that
 * child is in `done/`: enough for the planner to tell a real close from a false close.
 */
export interface DependentFact {
  /** The child's `paths` is empty (or missing). */
  readonly emptyPaths: boolean;
  /** Its Record holds an empty-close justification (`board card close --empty`). */
  readonly justified: boolean;
  /** Set when the child cannot be read: the director is not woken on it. */
  readonly problem?: string;
}

/** What the supervisor of one run has written about it, if anything. */
export interface RunFact {
  readonly state: 'started' | 'exited' | 'abandoned';
  readonly pid?: number;
  readonly exitCode?: number | null;
  /** Whether the supervisor's pid is alive, when it ran on this host; unknown otherwise. */
  readonly alive?: boolean;
  /** Set when the supervisor stopped its worker (`timed-out`, `reclaimed` …). */
  readonly stopped?: string;
  /** Set when the worker could not be started at all: a harness problem, not the card's. */
  readonly startError?: string;
  readonly timeoutMs?: number;
  /** How the run ended (`closed`: its worker closed the card under this claim). */
  readonly ended?: 'closed' | 'exited' | 'stopped';
  /** Why the worker ended without closing: one line from its output or a refused verb. */
  readonly reason?: string;
  /** The run's log file. */
  readonly log?: string;
  /** The host its supervisor runs on. */
  readonly host?: string;
  /** How long ago its supervisor last refreshed its lease, for a supervisor that keeps one (src/worker/lease.ts). */
  readonly leaseAgeMs?: number;
}

/**
 * One card under two state folders at once, as the same file (same device and inode): what a
 * move (hard link, then unlink) leaves when it dies between the two. `settled` is false while the
 * link is fresh, since a live mover may be about to unlink the old name itself.
 */
export interface DoubleLinkFact {
  readonly card: string;
  readonly folders: readonly ['pending', 'in-progress'] | readonly ['in-progress', 'done'];
  readonly settled: boolean;
}

/** Everything a round reads, gathered once by the shell; the core plans from this alone. */
export interface VaultSnapshot {
  readonly profiles: readonly Parsed<Profile>[];
  readonly templates: readonly Parsed<ScheduledTemplate>[];
  readonly pending: readonly Parsed<Card>[];
  readonly inProgress: readonly Parsed<Card>[];
  /** Card file names present in any state folder (pending, in-progress, done, archive/*). */
  readonly existingNames: ReadonlySet<string>;
  /** Keyed by the vault-relative path as the card wrote it. */
  readonly inputs: ReadonlyMap<string, InputFact>;
  /** Keyed by run id (see `runIdFor`). */
  readonly runs: ReadonlyMap<string, RunFact>;
  /** Keyed by the `dependent_task` path as the card wrote it; only children that are in done/. */
  readonly dependents?: ReadonlyMap<string, DependentFact>;
  /** Cards found under two state folders as one file (an interrupted move). */
  readonly doubleLinks?: readonly DoubleLinkFact[];
  /** Card name → the `closed` value of a close that died holding its card's lock (card-lock.ts). */
  readonly interruptedCloses?: ReadonlyMap<string, string>;
  /** Card name → never-started returns in a row before its current claim (run records). */
  readonly neverStarted?: ReadonlyMap<string, number>;
  /** Card name → its previous run, when that run too ended without closing (for cards whose current run did). */
  readonly previousFailures?: ReadonlyMap<string, RunFact>;
  /** Card names in done/: a pending card of the same name is never dispatched. */
  readonly doneNames?: ReadonlySet<string>;
  /** The folders the census listed, and the board's temp files it saw in them (for the round's sweep: no folder listed twice). */
  readonly listedTemps?: ListedTemps;
}

/** Folders listed by the census (absolute), and the board temp files (`.<name>.<pid>.<8 hex>.tmp`) among their entries (absolute). */
export interface ListedTemps {
  readonly folders: readonly string[];
  readonly files: readonly string[];
}

export interface RoundSettings {
  readonly trustedOrigins: readonly string[];
  readonly maxAttempts: number;
  readonly maxDispatches: number;
  readonly zombieAfterMs: number;
  /** How long a fresh claim may go without its supervisor starting before it counts as never started. */
  readonly startGraceMs: number;
  /** A started run whose lease is older than this is reclaimed (its host is gone or cut off). */
  readonly leaseStaleAfterMs: number;
  readonly defaultHarness: string;
  readonly harnesses: ReadonlyMap<string, Harness>;
  readonly harnessProblems: readonly FileProblem[];
  readonly models: Models;
  /** Names (never values) of the keys the private env file provides. */
  readonly privateKeys: ReadonlySet<string>;
  /** Harnesses whose program cannot be started (not on PATH, not executable), with why: gathered by the shell. */
  readonly unstartable?: ReadonlyMap<string, string>;
}

export interface PlannedScheduled {
  readonly template: string;
  readonly instance: string;
  readonly text: string;
}

export interface PlannedDispatch {
  readonly card: string;
  readonly profile: string;
  readonly profilePath: string;
  readonly harness: string;
  readonly model: string;
  readonly via: 'funnel' | 'recipient';
  readonly descriptor: string;
  /** The card's attempts so far: part of the run id its supervisor records under. */
  readonly attempts: number;
  /** True when the card is a scheduled instance this same round writes. */
  readonly scheduled: boolean;
  /** The profile's per-run `budget`, enforced by the run's credential proxy with the harness's. */
  readonly budget?: Budget;
}

/** Why a card waits, as a kind a person (or `board status`) can group by; `reason` says it in full. */
export type WaitKind = 'input' | 'unmatched' | 'ambiguous' | 'human' | 'harness' | 'model' | 'keys' | 'capacity' | 'clash';

export interface PlannedWait {
  readonly card: string;
  readonly reason: string;
  readonly kind?: WaitKind;
  /** For `ambiguous`: the profiles that tie. */
  readonly profiles?: readonly string[];
}

export interface PlannedBlock {
  readonly card: string;
  readonly reason: string;
  /** False for a card already blocked: shown, never rewritten. */
  readonly new: boolean;
}

/** `closed`: the worker set `closed` but crashed before the move to done/; the tick finishes it. */
export type ReclaimKind = 'expired' | 'torn' | 'never-started' | 'dead-worker' | 'closed';

export interface PlannedReclaim {
  readonly card: string;
  readonly kind: ReclaimKind;
  readonly reason: string;
  /** Attempts after the reclaim (unchanged for torn and never-started claims). */
  readonly attempts: number;
  /** Set when the reclaim exhausts max_attempts, or repeats the previous failure: the card goes back blocked. */
  readonly block?: string;
  /** The block is for the same failure twice in a row (this says it, with the log), not for attempts exhausted. */
  readonly repeated?: string;
  /** The claim being reclaimed (its `claimed` value), for fencing; absent for a torn claim. */
  readonly claim?: string;
  readonly runId?: string;
  /** For `closed`: the close's `closed` value, which its lock's intent holds too. */
  readonly closed?: string;
}

/**
 * Undo an interrupted move: `drop` is the extra name of a file that also lives in `keep`. The
 * card then follows its ordinary path (a torn claim goes back to pending/, a close stays done).
 */
export interface PlannedRepair {
  readonly card: string;
  readonly keep: 'in-progress' | 'done';
  readonly drop: 'pending' | 'in-progress';
  readonly reason: string;
}

export interface Plan {
  readonly now: string;
  readonly scheduled: readonly PlannedScheduled[];
  readonly dispatch: readonly PlannedDispatch[];
  readonly waiting: readonly PlannedWait[];
  readonly blocked: readonly PlannedBlock[];
  readonly zombies: readonly PlannedReclaim[];
  /** Interrupted moves to undo before dispatch (absent in plans built before repairs existed). */
  readonly repairs?: readonly PlannedRepair[];
  /** Cards that cannot be read: declared, never rewritten. */
  readonly invalid: readonly FileProblem[];
  readonly profiles: readonly { readonly name: string; readonly path: string }[];
  readonly profileProblems: readonly FileProblem[];
  readonly templateProblems: readonly FileProblem[];
  /** Fields the standard does not know (a profile's any, a card's near misses): shown, not acted on. */
  readonly warnings?: readonly FileProblem[];
}

export type { Card, Profile, ScheduledTemplate, Harness, Models };
