/**
 * Provenance: every dispatch is stored as content-addressed components (profile, mounted skills,
 * the card as claimed, the harness definition, the rendered prompt) under `<logs>/objects/`, and
 * listed with argv, model, times, exit code and cost in `<logs>/manifests/<runId>.json`. Runs can
 * be diffed component by component and replayed from the store.
 */
export { ObjectStore, ObjectCorrupted, ObjectMissing, sha256, HASH } from './store.js';
export {
  createManifest,
  listManifests,
  manifestFile,
  manifestsDir,
  manifestSchema,
  readManifest,
  readManifestFile,
  updateManifestFile,
  type Component,
  type RunCost,
  type RunManifest,
} from './manifest.js';
export { canonicalJson, recordRun, scrubEnv, scrubText, skillsOf, type RecordRunInput } from './record-run.js';
export { diffRuns, renderRunDiff, type ComponentDiff, type RunDiff } from './diff.js';
export { diffLines, unifiedDiff } from './text-diff.js';
export { nextReplayId, rebuildRequest, recordedHarness, storedText, type RebuildOptions, type RebuiltRequest } from './replay.js';
export { harnessChanges, renderHarnessChanges, type HarnessChange } from './harness-changes.js';
export { costFromLog, costFromText, jsonPath, lastJsonLine, sumCosts, type CostGrouping, type CostRow } from './cost.js';
