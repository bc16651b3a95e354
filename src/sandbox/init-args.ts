/** The arguments of dist/sandbox-init.js (src/sandbox/init.ts), parsed. Pure, Node-free. */
export interface Bridge {
  readonly port: number;
  readonly socket: string;
}

export function parseInitArgs(argv: readonly string[]): { bridges: Bridge[]; command: string[] } {
  const bridges: Bridge[] = [];
  let i = 0;
  for (; i < argv.length && argv[i] !== '--'; i++) {
    if (argv[i] !== '--bridge') throw new Error(`unknown argument ${JSON.stringify(argv[i])}`);
    const spec = argv[++i] ?? '';
    const m = /^(\d{1,5})=(\/.+)$/.exec(spec);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535) throw new Error(`--bridge wants PORT=/absolute/socket, not ${JSON.stringify(spec)}`);
    bridges.push({ port: Number(m[1]), socket: m[2]! });
  }
  const command = argv.slice(i + 1);
  if (i >= argv.length || command.length === 0) throw new Error('no command after --');
  return { bridges, command };
}
