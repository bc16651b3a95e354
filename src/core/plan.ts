import { cardSchema, type Card } from '../schema/card.js';
import { isDirector } from '../schema/profile.js';
import { setFields } from '../format/frontmatter.js';
import { recordStamp } from '../format/record.js';
import { censusCard, isBlocked } from './census.js';
import { indexProfiles, matchCard, toMatchable } from './match.js';
import { normalize } from './normalize.js';
import { unknownFields } from './unknown-fields.js';
import { duplicateNameSentence } from '../messages.js';
import { pickModel } from './models.js';
import { firstInDispatchOrder } from './order.js';
import { dueInstance } from './schedule.js';
import { findZombie, runIdFor } from './zombies.js';
import type {
  FileProblem,
  Plan,
  PlannedBlock,
  PlannedDispatch,
  PlannedReclaim,
  PlannedRepair,
  PlannedScheduled,
  PlannedWait,
  ProfileEntry,
  RoundSettings,
  VaultSnapshot,
} from './types.js';

/**
 * One round's plan, computed from what the shell read and the clock, with no I/O. `board
 * dry-run` prints it; `board tick` executes it. They can never disagree.
 */
export function planRound(snapshot: VaultSnapshot, settings: RoundSettings, now: Date): Plan {
  const stamp = recordStamp(now);

  // Step 0: scheduled instances due now and not yet written anywhere.
  const scheduled: PlannedScheduled[] = [];
  const templateProblems: FileProblem[] = [];
  const newCards: { file: string; card: Card }[] = [];
  for (const template of snapshot.templates) {
    if (!template.ok) {
      templateProblems.push(...template.problems);
      continue;
    }
    const slug = basename(template.file).replace(/\.md$/, '');
    const instance = dueInstance(slug, template.value.trigger, now);
    if (instance === undefined || snapshot.existingNames.has(instance)) continue;
    try {
      const text = setFields(template.text, {
        trigger: undefined,
        created: now.toISOString(),
        attempts: 0,
        paths: [],
      });
      scheduled.push({ template: template.file, instance, text });
      const parsed = cardSchema.safeParse({ ...template.value, trigger: undefined, created: now.toISOString(), attempts: 0, paths: [] });
      if (parsed.success) newCards.push({ file: instance, card: parsed.data });
    } catch (error) {
      templateProblems.push({ file: template.file, reason: `cannot write its instance: ${(error as Error).message}` });
    }
  }

  // Step 1: profiles, read fresh every round. Two profiles with one name are both left out.
  const profileProblems: FileProblem[] = [];
  const byName = new Map<string, ProfileEntry[]>();
  for (const parsed of snapshot.profiles) {
    if (!parsed.ok) {
      profileProblems.push(...parsed.problems);
      continue;
    }
    const list = byName.get(parsed.value.name) ?? [];
    list.push({ path: parsed.file, profile: parsed.value });
    byName.set(parsed.value.name, list);
  }
  // Fields the standard does not know: shown by dry-run and status, never a reason to skip.
  const warnings: FileProblem[] = [];
  for (const parsed of snapshot.profiles) if (parsed.ok) warnings.push(...unknownFields(parsed.file, parsed.value, 'profile', parsed.text));
  for (const parsed of snapshot.templates) if (parsed.ok) warnings.push(...unknownFields(parsed.file, parsed.value, 'template', parsed.text));
  for (const parsed of snapshot.pending) if (parsed.ok) warnings.push(...unknownFields(parsed.file, parsed.value, 'card', parsed.text));
  const profiles: ProfileEntry[] = [];
  for (const [name, entries] of byName) {
    if (entries.length > 1) {
      for (const e of entries) {
        profileProblems.push({ file: e.path, field: 'name', reason: duplicateNameSentence(name, entries.filter((o) => o !== e).map((o) => o.path)) });
      }
      continue;
    }
    profiles.push(entries[0]!);
  }
  profiles.sort((a, b) => (a.profile.name < b.profile.name ? -1 : 1));
  const profileByName = new Map(profiles.map((p) => [p.profile.name, p]));
  const index = indexProfiles(profiles.map((p) => toMatchable(p.profile)));
  const profileNames: ReadonlySet<string> = new Set(profileByName.keys());
  const trusted = [...settings.trustedOrigins, ...profiles.filter((p) => isDirector(p.profile)).map((p) => p.profile.name)];
  const trustedOrigins = new Set([...trusted, ...trusted.map(normalize)]);

  // Steps 2 and 3: census and matching.
  const waiting: PlannedWait[] = [];
  const blocked: PlannedBlock[] = [];
  const invalid: FileProblem[] = [];
  const candidates: (PlannedDispatch & { created: string; priority?: string | null })[] = [];
  const pendingCards: { file: string; card: Card; scheduled: boolean }[] = [];
  // An interrupted move leaves one file under two names. The pending/ name of a card that is
  // also in in-progress/ is not a second card: it is dropped (once settled), and the in-progress/
  // one is judged as any claim. A card also in done/ is closed: its in-progress/ name is dropped.
  const repairs: PlannedRepair[] = [];
  const alsoInProgress = new Set<string>();
  const alsoDone = new Set<string>();
  for (const link of snapshot.doubleLinks ?? []) {
    const [first, second] = link.folders;
    if (first === 'pending') alsoInProgress.add(link.card);
    else alsoDone.add(link.card);
    if (!link.settled) {
      if (first === 'pending') waiting.push({ card: link.card, reason: `also in in-progress/ as the same file: a move is under way (left alone this round)` });
      continue;
    }
    repairs.push({
      card: link.card,
      keep: second,
      drop: first,
      reason: `in ${first}/ and ${second}/ as one file (a move interrupted between its link and its unlink): the ${first}/ name is dropped`,
    });
  }
  for (const parsed of snapshot.pending) {
    if (alsoInProgress.has(parsed.file)) continue;
    // A finished card is never dispatched again, whatever copy of it reappears in pending/.
    if (snapshot.doneNames?.has(parsed.file)) {
      waiting.push({ card: parsed.file, reason: `a card named ${parsed.file} is already in done/: a finished card is never dispatched again (rename or remove one of them)`, kind: 'clash' });
      continue;
    }
    if (parsed.ok) pendingCards.push({ file: parsed.file, card: parsed.value, scheduled: false });
    else invalid.push(...parsed.problems);
  }
  for (const c of newCards) pendingCards.push({ ...c, scheduled: true });

  // What a card matched to a profile still waits for depends on the profile alone (its harness,
  // that harness's start, a model, private keys): judged once per profile a round, not per card.
  const readiness = new Map<string, Readiness>();
  const readinessOf = (name: string): Readiness => {
    let ready = readiness.get(name);
    if (!ready) readiness.set(name, (ready = judgeReadiness(profileByName.get(name)!, settings)));
    return ready;
  };

  const censusContext = { trustedOrigins, maxAttempts: settings.maxAttempts, inputs: snapshot.inputs, ...(snapshot.dependents ? { dependents: snapshot.dependents } : {}) };
  for (const { file, card, scheduled: isScheduled } of pendingCards) {
    const normalizedRequest = normalize(card.request);
    const verdict = censusCard(card, censusContext, normalizedRequest);
    if (verdict.kind === 'already-blocked') {
      blocked.push({ card: file, reason: verdict.reason, new: false });
      continue;
    }
    if (verdict.kind === 'block') {
      blocked.push({ card: file, reason: verdict.reason, new: true });
      continue;
    }
    if (verdict.kind === 'wait') {
      waiting.push({ card: file, reason: verdict.reason, kind: 'input' });
      continue;
    }
    const match = matchCard(card, index, profileNames, normalizedRequest);
    if (match.kind !== 'matched') {
      waiting.push({ card: file, reason: match.reason, kind: match.kind, ...(match.kind === 'ambiguous' ? { profiles: match.profiles } : {}) });
      continue;
    }
    const ready = readinessOf(match.profile);
    if (ready.kind === 'wait') {
      waiting.push({ card: file, reason: ready.reason, kind: ready.wait });
      continue;
    }
    const { entry, harness, model } = ready;
    candidates.push({
      card: file,
      profile: match.profile,
      profilePath: entry.path,
      ...(entry.profile.budget !== undefined ? { budget: entry.profile.budget } : {}),
      harness,
      model,
      via: match.via,
      descriptor: match.descriptor,
      attempts: card.attempts,
      scheduled: isScheduled,
      created: card.created,
      priority: card.priority ?? null,
    });
  }

  // Step 4: urgent first, then oldest, up to the round's limit.
  const dispatch: PlannedDispatch[] = [];
  const { first, rest } = firstInDispatchOrder(candidates, settings.maxDispatches);
  for (const candidate of first) {
    const { created: _created, priority: _priority, ...planned } = candidate;
    dispatch.push(planned);
  }
  // The rest wait in card order, like every other wait.
  const capacityReasons = new Map<string, string>();
  for (const candidate of rest) {
    let reason = capacityReasons.get(candidate.profile);
    if (reason === undefined) capacityReasons.set(candidate.profile, (reason = `ready for ${candidate.profile}, but this round's max_dispatches_per_round (${settings.maxDispatches}) is reached`));
    waiting.push({ card: candidate.card, reason, kind: 'capacity' });
  }

  // Step 5: zombies, from the claims as they were before this round's dispatches.
  const zombies: PlannedReclaim[] = [];
  for (const parsed of snapshot.inProgress) {
    if (alsoDone.has(parsed.file)) continue;
    if (alsoInProgress.has(parsed.file) && !repairs.some((r) => r.card === parsed.file)) continue;
    if (!parsed.ok) {
      invalid.push(...parsed.problems);
      continue;
    }
    const card = parsed.value;
    if (isBlocked(card)) {
      blocked.push({ card: parsed.file, reason: `blocked: ${String(card.blocked)}`, new: false });
      continue;
    }
    const run = card.claimed ? snapshot.runs.get(runIdFor(parsed.file, card.claimed, card.attempts)) : undefined;
    const interruptedClose = snapshot.interruptedCloses?.get(parsed.file);
    const neverStartedBefore = snapshot.neverStarted?.get(parsed.file);
    const previousFailure = snapshot.previousFailures?.get(parsed.file);
    const zombie = findZombie(parsed.file, card, run, now, settings, stamp, {
      ...(interruptedClose !== undefined ? { interruptedClose } : {}),
      ...(neverStartedBefore !== undefined ? { neverStartedBefore } : {}),
      ...(previousFailure !== undefined ? { previousFailure } : {}),
    });
    if (zombie) zombies.push(zombie);
  }

  return {
    now: now.toISOString(),
    scheduled,
    dispatch,
    waiting: waiting.sort(byCard),
    blocked: blocked.sort(byCard),
    zombies: zombies.sort(byCard),
    repairs: repairs.sort(byCard),
    invalid,
    profiles: profiles.map((p) => ({ name: p.profile.name, path: p.path })),
    profileProblems,
    templateProblems,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

type Readiness =
  | { readonly kind: 'wait'; readonly reason: string; readonly wait: 'harness' | 'model' | 'keys' }
  | { readonly kind: 'ready'; readonly entry: ProfileEntry; readonly harness: string; readonly model: string };

/** Whether a card matched to this profile can be dispatched this round, or what it waits for. */
function judgeReadiness(entry: ProfileEntry, settings: RoundSettings): Readiness {
  const name = entry.profile.name;
  const harness = entry.profile.harness ?? settings.defaultHarness;
  const definition = settings.harnesses.get(harness);
  if (!definition) return { kind: 'wait', reason: `profile ${name} needs harness "${harness}", which is not installed`, wait: 'harness' };
  const cannotStart = settings.unstartable?.get(harness);
  // A harness problem, not the card's: it waits without spending an attempt until the harness is fixed.
  if (cannotStart !== undefined) return { kind: 'wait', reason: `ready for ${name}, but harness ${harness} cannot start: ${cannotStart}`, wait: 'harness' };
  const model = pickModel(settings.models, harness, entry.profile.model_capacity, entry.profile.model_modality);
  if (!model.ok) return { kind: 'wait', reason: model.reason, wait: 'model' };
  const missingKeys = definition.environment_from_private.filter((k) => !settings.privateKeys.has(k));
  if (missingKeys.length > 0) {
    return { kind: 'wait', reason: `harness "${harness}" needs private keys ${missingKeys.join(', ')}, absent from private_env`, wait: 'keys' };
  }
  return { kind: 'ready', entry, harness, model: model.model };
}

function byCard(a: { card: string }, b: { card: string }): number {
  return a.card < b.card ? -1 : a.card > b.card ? 1 : 0;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
