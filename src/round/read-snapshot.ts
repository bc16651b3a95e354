import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { cardSchema, scheduledTemplateSchema, type Card, type ScheduledTemplate } from '../schema/card.js';
import { profileSchema, type Profile } from '../schema/profile.js';
import { inputPaths, isSafeVaultPath } from '../core/census.js';
import { runIdFor } from '../core/zombies.js';
import type { DependentFact, DoubleLinkFact, InputFact, Parsed, RunFact, VaultSnapshot } from '../core/types.js';
import { hasEmptyCloseJustification } from '../format/empty-close.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { cardNameProblem, isCardFileName, type VaultLayout } from '../vault/layout.js';
import { assertRealFolders, isLinkedProfileFolder } from '../vault/real-folders.js';
import { isBoardTempName } from '../vault/atomic-write.js';
import { mapLimit, parseRead, readParsed } from '../vault/read-card.js';
import { readEach, ReadList } from '../vault/read-ahead.js';
import type { CensusCache } from '../vault/census-cache.js';
import { neverStartedInARow, previousFailure, readRunRecord, runFactOf } from '../vault/runs.js';
import { leaseAge } from '../worker/lease.js';
import { interruptedCloses } from '../vault/card-lock.js';
import { RoundError } from '../errors.js';

/** Files read at once: enough to keep the disk busy, few enough to stay far from EMFILE. */
const READ_CONCURRENCY = 64;

/**
 * A double link younger than this may belong to a live move (link, then unlink, microseconds
 * apart) by a worker's `board card` verb, which holds no round lock: it is left to its mover.
 */
export const DOUBLE_LINK_SETTLE_MS = 2_000;

/**
 * Steps 1–2's reading half: everything a round needs from the vault, read fresh every time (no
 * registry). The pure planner decides from this snapshot alone. `board watch` passes a
 * `CensusCache`: every folder is still listed and every listed profile and card still stat'ed
 * every round, and only a file whose identity and state are unchanged since it was parsed is
 * answered from memory (see census-cache.ts for why that is the same read); tick and dry-run
 * pass none and read every byte.
 */
export async function readSnapshot(layout: VaultLayout, cache?: CensusCache): Promise<VaultSnapshot> {
  await assertVault(layout);
  await assertRealFolders(layout);
  cache?.beginRound();
  const temps: TempsSeen = { folders: [], files: [] };
  const [profileDirs, templateList, pendingList, inProgressList, doneNames, archivedNames] = await Promise.all([
    listEntries(layout.agents),
    listCards(layout.scheduled, temps),
    listCards(layout.pending, temps),
    listCards(layout.inProgress, temps),
    listCardNames(layout.done, temps),
    listArchived(layout.archive, temps),
  ]);
  const [pendingNames, inProgressNames] = [pendingList.names, inProgressList.names];
  // A profile folder that is a link is declared, never read through (CONTRACT "What the census reads").
  // The label only for a folder declared (a cold `path.relative` per profile was ~15 ms of a dry-run).
  const linkedProfiles: Parsed<never>[] = profileDirs.flatMap((d) => {
    const reason = d.name.startsWith('.') ? undefined : isLinkedProfileFolder(layout.agents, d);
    if (!reason) return [];
    const file = `${layout.relative(path.join(layout.agents, d.name))}/`;
    return [{ ok: false as const, file, problems: [{ file, reason }] }];
  });
  const profileFolders = profileDirs.filter((d) => d.isDirectory()).map((d) => d.name);
  // Profiles after the cards: the same reading and parsing code, warm by then (a few hundred
  // profiles read first paid its cold start, ~20 µs more each).
  const { templates, pendingRead, inProgressRead, profilesRead } = await readAll(layout, { templateList, pendingList, inProgressList, profileDirs: profileFolders }, cache);
  // A folder without PROFILE.md is not an agent (yet): nothing to declare.
  const profiles: Parsed<Profile>[] = profilesRead.filter((p) => !vanished(p));
  profiles.push(...linkedProfiles);

  // A card listed and then gone before it was read has moved on (a worker closed it, a person
  // moved it): it is not unreadable, and the next round sees it where it went.
  const pending = [...pendingRead.filter((c) => !vanished(c)), ...declared(pendingList)];
  const inProgress = [...inProgressRead.filter((c) => !vanished(c)), ...declared(inProgressList, false)];
  cache?.endRound();

  const existingNames = new Set([...pendingNames, ...inProgressNames, ...doneNames, ...archivedNames]);
  const inputs = await readInputFacts(layout, [...pending, ...templates]);
  const runs = await readRunFacts(layout, inProgress);
  const interruptedCloses = await readInterruptedCloses(layout, inProgress);
  const neverStarted = await readNeverStartedStreaks(layout, inProgress, runs);
  const previousFailures = await readPreviousFailures(layout, inProgress, runs);
  const dependents = await readDependentFacts(layout, pending, new Set(doneNames));
  const doubleLinks = await readDoubleLinks(layout, pendingNames, inProgressNames, doneNames);
  return {
    profiles,
    templates,
    pending,
    inProgress,
    existingNames,
    inputs,
    runs,
    dependents,
    ...(doubleLinks.length > 0 ? { doubleLinks } : {}),
    ...(interruptedCloses.size > 0 ? { interruptedCloses } : {}),
    ...(neverStarted.size > 0 ? { neverStarted } : {}),
    ...(previousFailures.size > 0 ? { previousFailures } : {}),
    doneNames: new Set(doneNames),
    // Sorted: the listings end in no set order, and a snapshot is the same for the same vault.
    listedTemps: { folders: temps.folders.sort(), files: temps.files.sort() },
  };
}

/** What the listings saw for the round's temp sweep (a mutable ListedTemps while the folders are listed). */
interface TempsSeen {
  folders: string[];
  files: string[];
}

interface CensusLists {
  readonly templateList: CardList;
  readonly pendingList: CardList;
  readonly inProgressList: CardList;
  /** The profile folders (under AGENTS/) whose PROFILE.md is read. */
  readonly profileDirs: readonly string[];
}

/**
 * Every template, card and profile the census reads, parsed: through the census cache under
 * `board watch` (most files answered from a stat), else read in full, a reader thread reading
 * ahead of the parsing when there are many (read-ahead.ts). In order: templates, pending,
 * in-progress, profiles.
 */
async function readAll(layout: VaultLayout, lists: CensusLists, cache?: CensusCache) {
  const { templateList, pendingList, inProgressList, profileDirs } = lists;
  const profileNames = profileDirs.map((d) => `${d}${path.sep}PROFILE.md`);
  const files = new ReadList([
    { folder: layout.scheduled, names: templateList.names, seenAsFiles: templateList.files },
    { folder: layout.pending, names: pendingList.names, seenAsFiles: pendingList.files },
    { folder: layout.inProgress, names: inProgressList.names, seenAsFiles: inProgressList.files },
    { folder: layout.agents, names: profileNames },
  ]);
  const agents = layout.relative(layout.agents);
  const profileShown = (at: number) => `${agents}/${profileDirs[at]!}/PROFILE.md`;
  if (cache) {
    const [t, p, i] = [templateList.names.length, pendingList.names.length, inProgressList.names.length];
    const indices = (from: number, count: number) => Array.from({ length: count }, (_, k) => from + k);
    const [templates, pendingRead, inProgressRead, profilesRead] = await Promise.all([
      mapLimit(indices(0, t), READ_CONCURRENCY, (k) => cache.read(files.absolute(k), `scheduled/${templateList.names[k]!}`, scheduledTemplateSchema)),
      mapLimit(indices(t, p), READ_CONCURRENCY, (k) => cache.read(files.absolute(k), pendingList.names[k - t]!, cardSchema)),
      mapLimit(indices(t + p, i), READ_CONCURRENCY, (k) => cache.read(files.absolute(k), inProgressList.names[k - t - p]!, cardSchema)),
      mapLimit(indices(t + p + i, profileDirs.length), READ_CONCURRENCY, (k) => cache.read(files.absolute(k), profileShown(k - t - p - i), profileSchema)),
    ]);
    return { templates, pendingRead, inProgressRead, profilesRead };
  }
  // Files arrive in no particular order (read-ahead.ts): each lands at its place in its folder's list.
  const templates = new Array<Parsed<ScheduledTemplate>>(templateList.names.length);
  const pendingRead = new Array<Parsed<Card>>(pendingList.names.length);
  const inProgressRead = new Array<Parsed<Card>>(inProgressList.names.length);
  const profilesRead = new Array<Parsed<Profile>>(profileDirs.length);
  await readEach(files, (index, read) => {
    const { group, at } = files.locate(index);
    if (group === 0) templates[at] = parseRead(read, `scheduled/${templateList.names[at]!}`, scheduledTemplateSchema);
    else if (group === 1) pendingRead[at] = parseRead(read, pendingList.names[at]!, cardSchema);
    else if (group === 2) inProgressRead[at] = parseRead(read, inProgressList.names[at]!, cardSchema);
    else profilesRead[at] = parseRead(read, profileShown(at), profileSchema);
  });
  return { templates, pendingRead, inProgressRead, profilesRead };
}

/** Closes that died between their edit and their move (their lock holds the intent): only for cards that carry `closed`. */
async function readInterruptedCloses(layout: VaultLayout, inProgress: readonly Parsed<Card>[]): Promise<Map<string, string>> {
  if (!inProgress.some((c) => c.ok && typeof c.value.closed === 'string')) return new Map();
  return interruptedCloses(layout.kanban, Date.now());
}

/** For claims about to be returned as never started: how many returns of that card in a row came before. */
async function readNeverStartedStreaks(layout: VaultLayout, inProgress: readonly Parsed<Card>[], runs: ReadonlyMap<string, RunFact>): Promise<Map<string, number>> {
  const streaks = new Map<string, number>();
  const candidates = inProgress.filter((c) => {
    if (!c.ok || !c.value.claimed) return false;
    const run = runs.get(runIdFor(c.file, c.value.claimed, c.value.attempts));
    return run === undefined || run.state === 'abandoned' || run.startError !== undefined;
  });
  if (candidates.length === 0) return streaks;
  await mapLimit(candidates, READ_CONCURRENCY, async (c) => {
    if (!c.ok || !c.value.claimed) return;
    const n = await neverStartedInARow(layout.kanban, c.file, runIdFor(c.file, c.value.claimed, c.value.attempts));
    if (n > 0) streaks.set(c.file, n);
  });
  return streaks;
}

/** For claims whose worker ended without closing, with a reason: the card's previous run, when it failed too. */
async function readPreviousFailures(layout: VaultLayout, inProgress: readonly Parsed<Card>[], runs: ReadonlyMap<string, RunFact>): Promise<Map<string, RunFact>> {
  const found = new Map<string, RunFact>();
  const candidates = inProgress.filter((c) => {
    if (!c.ok || !c.value.claimed) return false;
    const run = runs.get(runIdFor(c.file, c.value.claimed, c.value.attempts));
    return run?.state === 'exited' && run.ended !== 'closed' && run.reason !== undefined;
  });
  await mapLimit(candidates, READ_CONCURRENCY, async (c) => {
    if (!c.ok || !c.value.claimed) return;
    const previous = await previousFailure(layout.kanban, c.file, runIdFor(c.file, c.value.claimed, c.value.attempts));
    if (previous) found.set(c.file, previous);
  });
  return found;
}

/**
 * Names found in two neighbouring state folders that are one file (same device and inode): a
 * move that died between its link and its unlink. Same-named different files are a real clash,
 * left to the claim's and the reclaim's own reporting.
 */
async function readDoubleLinks(layout: VaultLayout, pendingNames: readonly string[], inProgressNames: readonly string[], doneNames: readonly string[]): Promise<DoubleLinkFact[]> {
  const inProgress = new Set(inProgressNames);
  const pairs: { card: string; folders: DoubleLinkFact['folders']; dirs: [string, string] }[] = [];
  for (const n of pendingNames) if (inProgress.has(n)) pairs.push({ card: n, folders: ['pending', 'in-progress'], dirs: [layout.pending, layout.inProgress] });
  for (const n of doneNames) if (inProgress.has(n)) pairs.push({ card: n, folders: ['in-progress', 'done'], dirs: [layout.inProgress, layout.done] });
  const found = await mapLimit(pairs, READ_CONCURRENCY, async (pair) => {
    const same = await sameFile(path.join(pair.dirs[0], pair.card), path.join(pair.dirs[1], pair.card));
    if (!same) return undefined;
    return { card: pair.card, folders: pair.folders, settled: Date.now() - same.ctimeMs >= DOUBLE_LINK_SETTLE_MS };
  });
  return found.filter((f): f is DoubleLinkFact => f !== undefined);
}

/** Where the nearest folder that exists at or above `from` resolves to (undefined when none does). */
async function nearestRealFolder(from: string): Promise<string | undefined> {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      return await fs.realpath(dir);
    } catch {
      // Not there either: look one level up.
    }
  }
  return undefined;
}

/** The two names' shared stat when they are one regular file, else undefined. */
export async function sameFile(a: string, b: string): Promise<{ ctimeMs: number } | undefined> {
  try {
    const [sa, sb] = await Promise.all([fs.lstat(a), fs.lstat(b)]);
    if (!sa.isFile() || sa.dev !== sb.dev || sa.ino !== sb.ino) return undefined;
    return { ctimeMs: Math.max(sa.ctimeMs, sb.ctimeMs) };
  } catch {
    return undefined;
  }
}

function vanished(parsed: Parsed<unknown>): boolean {
  return !parsed.ok && parsed.problems.every((p) => p.reason === 'vanished while being read');
}

export async function assertVault(layout: VaultLayout): Promise<void> {
  try {
    const stat = await fs.stat(layout.kanban);
    if (!stat.isDirectory()) throw new RoundError(`${layout.kanban} is not a folder`);
  } catch (error) {
    if (error instanceof RoundError) throw error;
    throw new RoundError(`no board at ${layout.kanban}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message} (is \`vault\` right?)`);
  }
}

async function listEntries(dir: string): Promise<Dirent[]> {
  return (await listUnsorted(dir)).sort((a, b) => (a.name < b.name ? -1 : 1));
}

async function listUnsorted(dir: string): Promise<Dirent[]> {
  try {
    return await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new RoundError(`cannot list ${dir}: ${(error as Error).message}`);
  }
}

async function listCardNames(dir: string, temps?: TempsSeen): Promise<string[]> {
  const list = await listCards(dir, temps);
  // done/ and archive/: a too-long name is still a card that exists (names are unique across folders).
  return [...list.names, ...[...list.others].filter(([, o]) => o.card && !o.reason.startsWith('not a card')).map(([n]) => n)].sort();
}

/**
 * A folder's card names, which of them its listing typed as regular files (d_type), and what else
 * is visible in it: each with why it is not a card the board reads.
 */
interface CardList {
  readonly names: string[];
  readonly files: ReadonlySet<string>;
  /** Visible entries that are not readable cards, by name: a folder, a FIFO, another extension, a name too long. */
  readonly others: ReadonlyMap<string, { reason: string; card: boolean }>;
}

/** With `temps`: the folder, once listed, and the board's temp files in it are noted there. */
async function listCards(dir: string, temps?: TempsSeen): Promise<CardList> {
  const names: string[] = [];
  const files = new Set<string>();
  const others = new Map<string, { reason: string; card: boolean }>();
  const entries = await listUnsorted(dir);
  temps?.folders.push(dir);
  for (const e of entries) {
    if (e.name.startsWith('.')) {
      // Editors' and the board's own temp files; the board's are swept by the round once old.
      if (temps && e.isFile() && isBoardTempName(e.name)) temps.files.push(`${dir}${path.sep}${e.name}`);
      continue;
    }
    const card = isCardFileName(e.name);
    const kind = entryKind(e);
    const reason = kind ? `not a card: ${kind}` : !card ? 'not a card: only files named *.md are cards' : cardNameProblem(e.name);
    if (reason) {
      others.set(e.name, { reason, card });
      continue;
    }
    names.push(e.name);
    if (e.isFile()) files.add(e.name);
  }
  // The default sort compares UTF-16 code units, as `<` does, without a call per comparison.
  return { names: names.sort(), files, others };
}

/** What a listed entry is when it cannot be a card file whatever its name; undefined for a file or a link (a linked card is read, and refused, as before). */
function entryKind(e: Dirent): string | undefined {
  if (e.isDirectory()) return 'a folder';
  if (e.isFIFO()) return 'a FIFO (named pipe)';
  if (e.isSocket()) return 'a socket';
  if (e.isBlockDevice() || e.isCharacterDevice()) return 'a device';
  if (e.isSymbolicLink() && !isCardFileName(e.name)) return 'a symbolic link';
  return undefined;
}

/**
 * The entries of a state folder the census does not read, as declared problems (CONTRACT "What
 * the census reads": anything visible that is not a card is declared with its reason, never read
 * through and never moved). Outside `pending/` only would-be cards are declared (a name too long,
 * a folder named `*.md`): done/ and in-progress/ may hold a person's other files.
 */
function declared(list: CardList, everything = true): Parsed<never>[] {
  const out: Parsed<never>[] = [];
  for (const [file, { reason, card }] of [...list.others].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (everything || card) out.push({ ok: false, file, problems: [{ file, reason }] });
  }
  return out;
}

async function listArchived(archiveDir: string, temps?: TempsSeen): Promise<string[]> {
  const months = (await listEntries(archiveDir)).filter((e) => e.isDirectory());
  const lists = await Promise.all(months.map((m) => listCardNames(path.join(archiveDir, m.name), temps)));
  return lists.flat();
}

export async function readInputFacts(layout: VaultLayout, cards: readonly Parsed<{ inputs?: Card['inputs']; destination?: Card['destination'] }>[]): Promise<Map<string, InputFact>> {
  const wanted = new Set<string>();
  for (const c of cards) {
    if (!c.ok) continue;
    for (const { path: p } of inputPaths(c.value)) wanted.add(p);
    if (typeof c.value.destination === 'string') wanted.add(c.value.destination);
  }
  const root = await fs.realpath(layout.root);
  // The board itself, as the filesystem names it: a path whose links lead into it is on the board.
  const board = await fs.realpath(layout.kanban).catch(() => layout.kanban);
  const isInside = (real: string) => real === root || real.startsWith(root + path.sep);
  const fact = (exists: boolean, real: string | undefined): InputFact => {
    // No existing folder at all resolves: judged inside, as before (nothing leads anywhere).
    if (real === undefined) return { exists, inside: true };
    const onBoard = real === board || real.startsWith(board + path.sep);
    return { exists, inside: isInside(real), ...(onBoard ? { onBoard } : {}) };
  };
  // Most inputs share a few folders: resolve each folder once, then one lstat per input. A path
  // that is itself a link is resolved in full below, so where it leads is still judged.
  const folders = new Map<string, Promise<string | undefined>>();
  const realFolder = (dir: string) => {
    let real = folders.get(dir);
    if (!real) folders.set(dir, (real = fs.realpath(dir).catch(() => undefined)));
    return real;
  };
  // Where a missing path's nearest existing folder leads, once per folder: inputs that wait for
  // a folder nobody has made yet (a flow's `notes/`) share it.
  const nearest = new Map<string, Promise<string | undefined>>();
  const nearestReal = (dir: string) => {
    let real = nearest.get(dir);
    if (!real) nearest.set(dir, (real = nearestRealFolder(dir)));
    return real;
  };
  const facts = new Map<string, InputFact>();
  await mapLimit([...wanted], READ_CONCURRENCY, async (rel) => {
    if (!isSafeVaultPath(rel)) {
      facts.set(rel, { exists: false, inside: false });
      return;
    }
    const absolute = layout.absolute(rel);
    const dir = path.dirname(absolute);
    const folder = await realFolder(dir);
    // A folder that does not resolve (missing, a dangling link, not a folder) holds nothing that
    // resolves either: the path is absent, judged by its nearest existing folder as below.
    if (folder === undefined) return void facts.set(rel, fact(false, await nearestReal(dir)));
    const stat = await fs.lstat(absolute).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : undefined));
    if (stat === null) return void facts.set(rel, fact(false, path.join(folder, path.basename(absolute))));
    if (stat && !stat.isSymbolicLink()) return void facts.set(rel, fact(true, path.join(folder, path.basename(absolute))));
    try {
      facts.set(rel, fact(true, await fs.realpath(absolute)));
    } catch {
      // A missing path is judged by its nearest existing folder (a folder linked out of the vault
      // leads out); a dangling link is as absent as a missing file until it resolves.
      facts.set(rel, fact(false, await nearestReal(dir)));
    }
  });
  return facts;
}

async function readRunFacts(layout: VaultLayout, inProgress: readonly Parsed<Card>[]): Promise<Map<string, RunFact>> {
  const runs = new Map<string, RunFact>();
  await mapLimit(inProgress, READ_CONCURRENCY, async (c) => {
    if (!c.ok || !c.value.claimed) return;
    const runId = runIdFor(c.file, c.value.claimed, c.value.attempts);
    const record = await readRunRecord(layout.kanban, runId);
    if (!record) return;
    // Only a running, leasing supervisor's lease is worth a stat (a round trip on a network mount).
    const age = record.state === 'started' && record.leased === true ? await leaseAge(layout.kanban, runId) : undefined;
    runs.set(runId, runFactOf(record, age));
  });
  return runs;
}

/**
 * For each pending card gated on `inputs.dependent_task`, the facts about that child once it is in
 * `done/`: whether it closed with empty `paths`, and whether its Record justifies that (the
 * planner blocks a director on a false close instead of waking it).
 */
export async function readDependentFacts(layout: VaultLayout, pending: readonly Parsed<Card>[], doneNames: ReadonlySet<string>): Promise<Map<string, DependentFact>> {
  const wanted = new Set<string>();
  for (const c of pending) {
    const value = c.ok ? c.value.inputs?.dependent_task : undefined;
    for (const p of Array.isArray(value) ? value : value ? [value] : []) {
      if (isSafeVaultPath(p) && p.startsWith('KANBAN/done/') && doneNames.has(p.slice('KANBAN/done/'.length))) wanted.add(p);
    }
  }
  const facts = new Map<string, DependentFact>();
  await mapLimit([...wanted], READ_CONCURRENCY, async (rel) => {
    const parsed = await readParsed(layout.absolute(rel), rel, cardSchema);
    if (!parsed.ok) {
      facts.set(rel, { emptyPaths: false, justified: false, problem: parsed.problems.map((p) => p.reason).join('; ') });
      return;
    }
    facts.set(rel, { emptyPaths: parsed.value.paths.length === 0, justified: hasEmptyCloseJustification(parseFrontMatter(parsed.text).body) });
  });
  return facts;
}
