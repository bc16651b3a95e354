import { describe, expect, it } from 'vitest';
import { bwrapArgs, pathBinding, sandboxPolicy, type PolicyInput } from '../../src/sandbox/policy.js';
import { resolveDeclared } from '../../src/sandbox/declared.js';
import { sandboxMode } from '../../src/sandbox/mode.js';
import { parseInitArgs } from '../../src/sandbox/init-args.js';
import { harnessSchema } from '../../src/schema/harness.js';

const base: PolicyInput = {
  declared: { read: [], write: [], hosts: [] },
  vault: '/srv/vault',
  kanban: '/srv/vault/KANBAN',
  harnessesDir: '/opt/board/harnesses',
  boardDist: '/opt/board/dist',
  node: '/usr/bin/node',
  workerPath: '/usr/local/bin:/usr/bin:/bin',
  boardHome: '/root',
  runDir: '/tmp/board-run-r1-abc',
  socketDir: '/tmp/board-sock-r1-abc',
  applySeccomp: '/opt/board/node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp/x64/apply-seccomp',
  host: {
    roots: { '/usr': 'dir', '/bin': 'usr/bin', '/sbin': 'usr/sbin', '/lib': 'usr/lib', '/lib64': 'usr/lib64' },
    boardFiles: [
      { path: '/srv/board.yml', kind: 'file' },
      { path: '/srv/vault/.private.env', kind: 'file' },
      { path: '/srv/vault/logs', kind: 'dir' },
    ],
    pathLinkTargets: [],
    rootWithSetfcap: false,
  },
};

/** The mounts of an argument list in order, as `flag src dest` strings. */
function mounts(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (['--ro-bind-try', '--bind-try', '--ro-bind', '--symlink'].includes(a)) out.push(`${a} ${args[++i]} ${args[++i]}`);
    else if (['--tmpfs', '--proc', '--dev'].includes(a)) out.push(`${a} ${args[++i]}`);
    else if (a === '--') break;
  }
  return out;
}

describe('sandboxPolicy', () => {
  it.each([
    ['the vault and the run folder are the only writable places', {}, (p: ReturnType<typeof sandboxPolicy>) => expect(p.readWrite).toEqual(['/srv/vault', '/tmp/board-run-r1-abc'])],
    ['KANBAN/ is read-only', {}, (p: ReturnType<typeof sandboxPolicy>) => expect(p.readOnly).toContain('/srv/vault/KANBAN')],
    ['the board files under a bound path are masked, the config outside is simply absent', {}, (p: ReturnType<typeof sandboxPolicy>) =>
      expect(p.masked).toEqual([
        { path: '/srv/vault/.private.env', kind: 'file' },
        { path: '/srv/vault/logs', kind: 'dir' },
      ])],
    ['a node_modules/.bin PATH entry binds its node_modules', { workerPath: '/srv/app/node_modules/.bin:/usr/bin' }, (p: ReturnType<typeof sandboxPolicy>) => expect(p.readOnly).toContain('/srv/app/node_modules')],
    ['PATH entries under the system roots are not bound again', { workerPath: '/usr/local/bin:/bin' }, (p: ReturnType<typeof sandboxPolicy>) => expect(p.readOnly.filter((r) => r.startsWith('/usr/') || r.startsWith('/bin'))).toEqual([])],
    ['/etc is a short list, never /etc/shadow', {}, (p: ReturnType<typeof sandboxPolicy>) => {
      expect(p.readOnly).toContain('/etc/passwd');
      expect(p.readOnly).not.toContain('/etc');
      expect(p.readOnly).not.toContain('/etc/shadow');
    }],
    ['home folders are empty tmpfs, the board HOME too when elsewhere', { boardHome: '/var/lib/board' }, (p: ReturnType<typeof sandboxPolicy>) => expect(p.tmpfs).toEqual(['/tmp', '/run', '/root', '/home', '/var/lib/board'])],
    ['declared read, write and hosts widen it', { declared: { read: ['/opt/models'], write: ['/var/cache/foo'], hosts: ['example.com:443'] } }, (p: ReturnType<typeof sandboxPolicy>) => {
      expect(p.readOnly).toContain('/opt/models');
      expect(p.readWrite).toContain('/var/cache/foo');
      expect(p.hosts).toEqual(['example.com:443']);
    }],
    ['root with CAP_SETFCAP keeps only that capability', { host: { ...base.host, rootWithSetfcap: true } }, (p: ReturnType<typeof sandboxPolicy>) => expect(p.capAdd).toEqual(['CAP_SETFCAP'])],
  ])('%s', (_name, change, check) => {
    check(sandboxPolicy({ ...base, ...change } as PolicyInput));
  });
});

describe('bwrapArgs', () => {
  const policy = sandboxPolicy(base);
  const args = bwrapArgs(policy, { file: '/usr/bin/node', args: ['/opt/board/dist/sandbox-init.js', '--', '/run/board/apply-seccomp', 'claude'], cwd: '/srv/vault' }, { PATH: '/usr/bin', HOME: '/tmp/board-run-r1-abc/home' });
  const m = mounts(args);
  const at = (entry: string) => {
    const i = m.indexOf(entry);
    expect(i, entry).toBeGreaterThanOrEqual(0);
    return i;
  };

  it('starts with every namespace, no capability, a new session and an empty environment', () => {
    expect(args.slice(0, 7)).toEqual(['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--clearenv', '--symlink']);
  });
  it.each([
    ['tmpfs /tmp before the run folder it holds', '--tmpfs /tmp', '--bind-try /tmp/board-run-r1-abc /tmp/board-run-r1-abc'],
    ['the read-write vault before KANBAN/ read-only over it', '--bind-try /srv/vault /srv/vault', '--ro-bind-try /srv/vault/KANBAN /srv/vault/KANBAN'],
    ['the vault before the mask of the logs inside it', '--bind-try /srv/vault /srv/vault', '--tmpfs /srv/vault/logs'],
    ['the vault before /dev/null over the private env file', '--bind-try /srv/vault /srv/vault', '--ro-bind /dev/null /srv/vault/.private.env'],
    ['tmpfs /run before the socket dir at /run/board', '--tmpfs /run', '--ro-bind /tmp/board-sock-r1-abc /run/board'],
    ['the socket dir before apply-seccomp on its placeholder', '--ro-bind /tmp/board-sock-r1-abc /run/board', `--ro-bind ${base.applySeccomp} /run/board/apply-seccomp`],
  ])('mount order: %s', (_name, first, second) => {
    expect(at(first)).toBeLessThan(at(second));
  });
  it('the system roots are as the host has them', () => {
    expect(m).toContain('--symlink usr/bin /bin');
    expect(m).toContain('--ro-bind-try /usr /usr');
  });
  it('sets exactly the given environment, then runs the command after --', () => {
    const sets = args.flatMap((a, i) => (a === '--setenv' ? [`${args[i + 1]}=${args[i + 2]}`] : []));
    expect(sets).toEqual(['HOME=/tmp/board-run-r1-abc/home', 'PATH=/usr/bin']);
    expect(args.slice(args.indexOf('--chdir'), args.indexOf('--chdir') + 2)).toEqual(['--chdir', '/srv/vault']);
    expect(args.slice(args.lastIndexOf('--') - 0, args.length)).toEqual(['--', '/run/board/apply-seccomp', 'claude']);
    expect(args.slice(args.indexOf('--') + 1, args.indexOf('--') + 3)).toEqual(['/usr/bin/node', '/opt/board/dist/sandbox-init.js']);
  });
  it('never binds /etc whole nor a home folder', () => {
    expect(m.some((x) => / \/etc \/etc$/.test(x) || / \/root \/root$/.test(x) || / \/home \/home$/.test(x))).toBe(false);
  });
});

describe('pathBinding', () => {
  it.each([
    ['/usr/local/bin', '/usr/local/bin'],
    ['/srv/app/node_modules/.bin', '/srv/app/node_modules'],
    ['/srv/node_modules/x/node_modules/.bin', '/srv/node_modules/x/node_modules'],
    ['/srv/.bin', '/srv/.bin'],
  ])('%s → %s', (entry, bound) => expect(pathBinding(entry)).toBe(bound));
});

describe('resolveDeclared', () => {
  const board = { vault: '/srv/vault', harnessesDir: '/opt/board/harnesses', configFile: '/srv/board.yml', privateEnvFile: '/srv/private.env', logsDir: '/srv/logs' };
  it.each([
    [{ read: ['{vault}/refs'] }, { read: ['/srv/vault/refs'] }, []],
    [{ read: ['{harnesses}/bin'] }, { read: ['/opt/board/harnesses/bin'] }, []],
    [{ read: ['/srv/board.yml'] }, { read: [] }, ["sandbox.read[0]: /srv/board.yml is the board's config file: a worker may not see it"]],
    [{ read: ['/srv/logs/journal'] }, { read: [] }, ["sandbox.read[0]: /srv/logs/journal is the board's logs folder or inside it: a worker may not see it"]],
    [{ write: ['{vault}/KANBAN/done'] }, { write: [] }, ['sandbox.write[0]: {vault}/KANBAN/done is KANBAN/ (the board writes it, workers do not) or inside it: a worker may not see it']],
    [{ read: ['/srv/private.env'] }, { read: [] }, ['sandbox.read[0]: /srv/private.env is the private env file: a worker may not see it']],
    [{ read: ['/missing'] }, { read: [] }, ['sandbox.read[0]: /missing does not exist']],
  ])('%j', (declared, expected, problems) => {
    const out = resolveDeclared({ read: [], write: [], hosts: [], ...declared }, board, (p) => p !== '/missing');
    expect(out.declared).toMatchObject(expected);
    expect(out.problems.map((p) => `${p.field}: ${p.reason}`)).toEqual(problems);
  });
});

describe('sandboxMode', () => {
  const h = (sandbox: unknown, runner?: unknown) => harnessSchema.parse({ command: ['x'], prompt_template: 'p', ...(sandbox !== undefined ? { sandbox } : {}), ...(runner ? { runner } : {}) });
  it.each([
    ['omitted: the default sandbox', h(undefined), {}, { confined: true, why: 'default' }],
    ['omitted, whatever the environment says', h(undefined), { BOARD_SANDBOX_DEFAULT: 'off' }, { confined: true, why: 'default' }],
    ['none', h('none'), { BOARD_SANDBOX_DEFAULT: 'on' }, { confined: false, why: 'none' }],
    ['declared', h({ read: ['/opt'] }), {}, { confined: true, why: 'declared' }],
    ['slurm', h('none', { kind: 'slurm' }), {}, { confined: false, why: 'none' }],
    ['slurm without none', h(undefined, { kind: 'slurm' }), { BOARD_SANDBOX_DEFAULT: 'on' }, { confined: false, why: 'slurm' }],
  ])('%s', (_name, harness, env, expected) => expect(sandboxMode(harness, env)).toMatchObject(expected));

  it.each([
    [{ sandbox: 'off' }],
    [{ sandbox: { read: ['relative/path'] } }],
    [{ sandbox: { read: ['/a/../etc'] } }],
    [{ sandbox: { hosts: ['example.com'] } }],
    [{ sandbox: { network: true } }],
  ])('the schema refuses %j', (fields) => {
    expect(harnessSchema.safeParse({ command: ['x'], prompt_template: 'p', ...fields }).success).toBe(false);
  });
});

describe('parseInitArgs', () => {
  it('bridges, then the command', () => {
    expect(parseInitArgs(['--bridge', '47001=/run/board/model.sock', '--', 'a', 'b'])).toEqual({ bridges: [{ port: 47001, socket: '/run/board/model.sock' }], command: ['a', 'b'] });
  });
  it.each([[['--bridge', 'x=/s', '--', 'a']], [['--bridge', '1=relative', '--', 'a']], [['--', ]], [['a']], [['--bridge', '70000=/s', '--', 'a']]])('refuses %j', (argv) => {
    expect(() => parseInitArgs(argv)).toThrow();
  });
});
