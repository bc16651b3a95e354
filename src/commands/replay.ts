import fs from 'node:fs/promises';
import path from 'node:path';
import { pickModel } from '../core/models.js';
import { localDate } from '../core/time.js';
import { BoardError, EXIT, UsageError } from '../errors.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { CAUSE_VAR, newEventId, openJournal } from '../journal/index.js';
import {
  canonicalJson,
  createManifest,
  listManifests,
  manifestFile,
  harnessChanges,
  nextReplayId,
  ObjectStore,
  rebuildRequest,
  recordedHarness,
  renderHarnessChanges,
  scrubEnv,
  scrubText,
  storedText,
  type Component,
  type RunManifest,
} from '../provenance/index.js';
import { resolveRun } from '../provenance/resolve-run.js';
import { supervisorSpawner, type Spawner } from '../round/spawner.js';
import { createFileExclusive } from '../vault/atomic-write.js';
import { BOARD_CLI } from '../entry-points.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';

export interface ReplayOptions extends GlobalOptions {
  readonly model?: string;
  readonly harness?: string;
  readonly dryRun?: boolean;
}

/**
 * `board replay RUN`: rebuild a run's request from the object store with the run's harness AS
 * INSTALLED NOW (never a definition read from the store; how it differs from the recorded one is
 * printed, field by field, or "identical"; a harness no longer installed is refused) and spawn it again as a new run `<RUN>.replay-<n>`,
 * linked to the old one (`replay_of`, and a `run:replayed` event caused by the original claim).
 * The original card is never touched: the worker gets a copy of the card as it was at claim, in
 * `<logs>/replays/<new run>/`, as BOARD_CARD and as the prompt's `{card}`, and a BOARD_CLAIM
 * that no live card can hold, so the fencing refuses every verb it tries on a live card. With `--dry-run` nothing is written or spawned.
 */
export async function replayCommand(ref: string, options: ReplayOptions, env: CommandEnv, spawner: Spawner = supervisorSpawner()): Promise<number> {
  const { board, layout, now } = await prepare(options, env);
  const logsDir = board.config.logsDir;
  const found = await resolveRun(logsDir, ref);
  if (!found.ok) throw new UsageError(found.reason);
  const old = found.manifest;
  const store = new ObjectStore(logsDir);
  // Every stored object of the run is checked against its name before any is used.
  await store.checkComponents(old.components);

  // Only a harness as installed now is ever run: the stored definition is compared, not run.
  const installed = [...board.harnesses.keys()].join(', ') || 'none';
  const name = options.harness ?? old.harness;
  const definition = board.harnesses.get(name);
  if (!definition) {
    if (options.harness !== undefined) throw new UsageError(`--harness: no harness "${options.harness}" in ${board.config.harnessesDir} (installed: ${installed})`);
    throw new BoardError(
      `run ${old.run} ran harness "${old.harness}", which is no longer installed in ${board.config.harnessesDir} (installed: ${installed}): a replay runs only a harness as installed now, never one read from the store; pass --harness NAME to replay with another`,
      EXIT.failure,
    );
  }
  const harness = { name, definition };
  const recorded = await recordedHarness(store, old);
  const harnessDiff = typeof recorded === 'string' ? undefined : harnessChanges(recorded, definition);
  const harnessLines = [
    `harness ${name} as installed now, against the one run ${old.run} recorded (${old.harness}): ${
      harnessDiff === undefined ? `cannot compare: ${recorded as string}` : harnessDiff.length === 0 ? 'identical' : 'differs'
    }`,
    ...(harnessDiff && harnessDiff.length > 0 ? renderHarnessChanges(harnessDiff).map((l) => `  ${l}`) : []),
  ];
  const oldInstalled = board.harnesses.get(old.harness);

  let model = options.model;
  if (model === undefined && harness.name !== old.harness) {
    // Another harness needs its own model: the stored profile's declared level picks it, as at dispatch.
    const profile = parseFrontMatter(await storedText(store, old, 'profile')).data;
    const choice = pickModel(board.models, harness.name, String(profile.model_capacity ?? 'standard'), String(profile.model_modality ?? 'text'));
    if (!choice.ok) throw new UsageError(`--harness ${harness.name}: ${choice.reason} (or pass --model)`);
    model = choice.model;
  }

  const { manifests } = await listManifests(logsDir);
  const runId = nextReplayId(old.run, manifests.map((m) => m.run));
  const scratch = path.join(logsDir, 'replays', runId);
  const scratchCard = path.join(scratch, old.card);
  const replayEvent = newEventId();
  const rebuilt = await rebuildRequest(store, old, {
    model,
    harness,
    cardPath: scratchCard,
    ...(options.dryRun ? {} : { privateEnv: board.privateEnv }),
    boardEnv: {
      BOARD_CARD: scratchCard,
      BOARD_CLAIM: `replay:${runId}`,
      BOARD_VAULT: old.paths.vault,
      BOARD_CONFIG: board.config.configFile,
      BOARD_RUN: runId,
      BOARD_BIN: BOARD_CLI,
      BOARD_REPLAY_OF: old.run,
      [CAUSE_VAR]: replayEvent,
    },
    fallbackPath: process.env.PATH ?? '/usr/bin:/bin',
  });
  // Does the run's own harness, as installed now, still render the stored request byte for byte?
  const exact = oldInstalled ? await rebuildRequest(store, old, { harness: { name: old.harness, definition: oldInstalled } }) : undefined;

  if (options.dryRun) {
    const preview = {
      run: runId,
      replay_of: old.run,
      harness: rebuilt.harnessName,
      model: rebuilt.model,
      argv: rebuilt.argv.map((a) => scrubText(a, board.privateEnv)),
      prompt: scrubText(rebuilt.prompt, board.privateEnv),
      cwd: rebuilt.command.cwd,
      card_copy: scratchCard,
      substitutions: rebuilt.substitutions,
      original_reproduced: exact?.identical ?? false,
      harness_changes: harnessDiff ?? null,
    };
    if (options.json) env.stdout(`${JSON.stringify(preview, null, 2)}\n`);
    else {
      env.stdout(
        [
          `replay of ${old.run} as ${runId} (dry-run: nothing is written or spawned)`,
          `original request rebuilt with harness ${old.harness} as installed now: ${
            exact === undefined ? 'not possible (that harness is no longer installed)' : exact.identical ? 'byte-identical argv and prompt' : 'DIFFERS from the stored one (the installed harness no longer renders it the same)'
          }`,
          ...harnessLines,
          ...Object.entries(rebuilt.substitutions).map(([k, s]) => `changed ${k}: ${s.from} → ${s.to}`),
          `card: a copy of ${old.card} as claimed, at ${scratchCard} (the live card is never touched)`,
          `cwd:  ${rebuilt.command.cwd}`,
          `argv: ${JSON.stringify(preview.argv)}`,
          '',
          '--- prompt',
          preview.prompt.trimEnd(),
          '',
        ].join('\n'),
      );
    }
    return 0;
  }

  const cardText = await storedText(store, old, 'card');
  await fs.mkdir(scratch, { recursive: true });
  await createFileExclusive(scratchCard, cardText);
  const claim = String(parseFrontMatter(cardText).data.claimed ?? '');
  const logFile = path.join(logsDir, 'runs', localDate(now), `${runId}.log`);
  await fs.mkdir(path.dirname(logFile), { recursive: true });

  const components: Component[] = [];
  for (const c of old.components) {
    // What runs is the installed definition: the replay's record says so.
    if (c.name === 'harness') components.push({ name: 'harness', hash: await store.put(canonicalJson(harness.definition)), source: `harness ${harness.name}` });
    else if (c.name === 'prompt') {
      const prompt = scrubText(rebuilt.prompt, board.privateEnv);
      components.push({ name: 'prompt', hash: await store.put(prompt), bytes: Buffer.byteLength(prompt), source: `harness ${rebuilt.harnessName} prompt_template` });
    } else components.push(c);
  }
  const manifest: RunManifest = {
    ...old,
    run: runId,
    harness: rebuilt.harnessName,
    model: rebuilt.model,
    claim: now.toISOString(),
    paths: { ...old.paths, card: scratchCard },
    components,
    argv: rebuilt.argv.map((a) => scrubText(a, board.privateEnv)),
    cwd: rebuilt.command.cwd,
    env: scrubEnv(rebuilt.command.env, rebuilt.command.privateNames, board.privateEnv),
    private_keys: [...rebuilt.command.privateNames],
    log: logFile,
    cause: replayEvent,
    replay_of: old.run,
    substitutions: rebuilt.substitutions,
  };
  for (const key of ['start', 'end', 'exit_code', 'signal', 'cost'] as const) delete (manifest as Partial<RunManifest>)[key];
  if (!(await createManifest(logsDir, manifest))) throw new UsageError(`run ${runId} was recorded meanwhile: try again`);

  const journal = openJournal(logsDir, { onError: (error) => env.logger.error({ err: error }, 'could not journal the replay') });
  await journal.append({
    id: replayEvent,
    at: now,
    kind: 'run:replayed',
    actor: 'human',
    card: old.card,
    run: runId,
    profile: old.profile,
    cause: old.cause,
    detail: `replay of ${old.run}${Object.keys(rebuilt.substitutions).length ? ` (${Object.keys(rebuilt.substitutions).join(', ')} changed)` : ''}; card copy at ${scratchCard}`,
    data: { replay_of: old.run, harness: rebuilt.harnessName, model: rebuilt.model },
  });
  const started = await spawner.start({
    runId,
    card: scratchCard,
    claim,
    kanbanDir: scratch,
    logFile,
    command: rebuilt.command,
    provenance: {
      logsDir,
      manifest: manifestFile(logsDir, runId),
      cause: replayEvent,
      ...(rebuilt.harness.cost ? { cost: rebuilt.harness.cost } : {}),
    },
  });
  if (options.json) env.stdout(`${JSON.stringify({ run: runId, replay_of: old.run, pid: started.pid ?? null, log: logFile, card_copy: scratchCard, substitutions: rebuilt.substitutions, harness_changes: harnessDiff ?? null }, null, 2)}\n`);
  else
    env.stdout(
      `replaying ${old.run} as ${runId}${started.pid !== undefined ? ` (supervisor pid ${started.pid})` : ''}\n` +
        `  the worker works on a copy of the card at ${scratchCard}; the live card is not touched\n` +
        `  log: ${logFile}\n` +
        Object.entries(rebuilt.substitutions)
          .map(([k, s]) => `  changed ${k}: ${s.from} → ${s.to}\n`)
          .join('') +
        harnessLines.map((l) => `  ${l}\n`).join(''),
    );
  return 0;
}
