import { listManifests, readManifest, type RunManifest } from './manifest.js';

/** A run named by its full id or by a prefix that only one run id starts with. */
export async function resolveRun(logsDir: string, ref: string): Promise<{ ok: true; manifest: RunManifest } | { ok: false; reason: string }> {
  if (!/^[^/\\]+$/.test(ref) || ref.startsWith('.')) return { ok: false, reason: `"${ref}" is not a run id` };
  const exact = await readManifest(logsDir, ref);
  if (exact) return { ok: true, manifest: exact };
  const { manifests } = await listManifests(logsDir);
  const matches = manifests.filter((m) => m.run.startsWith(ref));
  if (matches.length === 1) return { ok: true, manifest: matches[0]! };
  if (matches.length === 0) return { ok: false, reason: `no run "${ref}" in ${logsDir}/manifests (see \`board runs\`)` };
  return { ok: false, reason: `"${ref}" names ${matches.length} runs: ${matches.slice(0, 5).map((m) => m.run).join(', ')}${matches.length > 5 ? ' …' : ''}` };
}
