import { findOnPath, runClient } from './slurm-runner.js';

/**
 * `board harness check` for a harness with `runner: { kind: slurm }`: are the Slurm client
 * commands on the board's PATH (sbatch, squeue, scontrol, scancel; sacct is optional, many small
 * clusters keep no accounting), and does the cluster's controller answer (`scontrol ping`)?
 */
export interface SlurmCheck {
  readonly ok: boolean;
  readonly commands: readonly { readonly name: string; readonly path: string | null; readonly version: string | null; readonly required: boolean }[];
  readonly cluster: { readonly ok: boolean; readonly detail: string };
  readonly detail: string;
}

const REQUIRED = ['sbatch', 'squeue', 'scontrol', 'scancel'];

/** The environment the client commands get: the board's, with the harness's Slurm settings (SLURM_CONF …). */
export function slurmClientEnv(boardEnv: NodeJS.ProcessEnv, harnessEnv: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...boardEnv };
  for (const [k, v] of Object.entries(harnessEnv)) if (/^(SLURM|SBATCH|SQUEUE|SCONTROL)_\w+$/.test(k)) env[k] = v;
  return env;
}

export async function checkSlurm(env: NodeJS.ProcessEnv): Promise<SlurmCheck> {
  const pathVar = env.PATH ?? '';
  const commands = await Promise.all(
    [...REQUIRED, 'sacct'].map(async (name) => {
      const file = findOnPath(name, pathVar);
      const version = file ? (await runClient(file, ['--version'], env)).stdout.trim().split('\n')[0] || null : null;
      return { name, path: file, version, required: REQUIRED.includes(name) };
    }),
  );
  const missing = commands.filter((c) => c.required && !c.path).map((c) => c.name);
  let cluster: SlurmCheck['cluster'];
  if (!commands.find((c) => c.name === 'scontrol')?.path) cluster = { ok: false, detail: 'scontrol is not on PATH: cannot ask the cluster' };
  else {
    const ping = await runClient('scontrol', ['ping'], env);
    const said = `${ping.stdout}${ping.stderr}`.trim().replace(/\s+/g, ' ');
    cluster = ping.code === 0 && /\bUP\b/.test(ping.stdout) ? { ok: true, detail: said } : { ok: false, detail: said || `scontrol ping exited ${ping.code}` };
  }
  const ok = missing.length === 0 && cluster.ok;
  const acct = commands.find((c) => c.name === 'sacct')?.path ? '' : ' (no sacct: exit codes come from scontrol while the controller remembers the job)';
  const detail = ok
    ? `Slurm client ${commands[0]!.version ?? ''} on PATH; controller answers: ${cluster.detail}${acct}`
    : [missing.length > 0 && `missing on PATH (${pathVar}): ${missing.join(', ')}`, !cluster.ok && `the cluster does not answer: ${cluster.detail}`].filter(Boolean).join('; ');
  return { ok, commands, cluster, detail };
}
