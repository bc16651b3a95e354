// The credential rules every shipped harness guard applies (the standard's lock rule).
//
// Pure functions, Node built-ins only, no I/O: the Claude Code PreToolUse hook, the OpenCode
// plugin and the local-model worker all call `checkToolCall` / `checkPath` / `checkCommand` and
// refuse whatever they flag. A verdict is `{ allow: true }` or `{ allow: false, reason }`.
//
// What is refused:
// - credential files and folders: ~/.ssh, ~/.gnupg, ~/.aws, ~/.azure, ~/.kube, ~/.docker/config.json,
//   gcloud / gh / opencode / codex / claude credential stores, .netrc, .npmrc, .pypirc,
//   .git-credentials, `.env` and `.env.*` (but not `.env.example`/`.sample`/`.template`), private
//   keys and key stores (id_rsa…, *.pem, *.key, *.p12, *.pfx, *.kdbx), files named `credentials`;
// - process environments read through /proc (…/environ);
// - environment dumps: `printenv`, bare `env`, `export -p`, bare `set`/`declare`/`typeset`,
//   `compgen -v`, and code that reads the environment wholesale (`os.environ`, `process.env`, `ENV`);
// - expanding a variable whose name says it holds a secret ($ANTHROPIC_API_KEY, ${GH_TOKEN} …).
//
// What is allowed: everything else, in particular ordinary reads and writes of vault notes and the
// `board card` verbs. This is a tripwire against the obvious ways to leak a key, not a sandbox:
// each harness file says which of its CLI's own isolation settings back it up.

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

/** Folders whose whole content is credentials. Matched as a path segment (or a pair of them). */
const SECRET_DIRS = ['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.password-store'];
const SECRET_DIR_PAIRS = [
  ['.config', 'gcloud'],
  ['.config', 'gh'],
  ['.docker', 'config.json'],
  ['.codex', 'auth.json'],
  ['.claude', '.credentials.json'],
  ['opencode', 'auth.json'],
];

/** File names that are credentials wherever they live. */
const SECRET_FILES = new Set([
  '.netrc', '_netrc', '.npmrc', '.pypirc', '.git-credentials', '.pgpass', '.my.cnf',
  'credentials', 'credentials.json', 'credentials.db', 'access_tokens.db', 'application_default_credentials.json',
  '.claude.json', 'auth.json', 'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'authorized_keys', 'known_hosts',
]);

const SECRET_SUFFIXES = ['.pem', '.key', '.p12', '.pfx', '.kdbx', '.keystore', '.jks', '.ppk', '.asc', '.gpg'];
const HARMLESS_ENV_SUFFIXES = ['.example', '.sample', '.template', '.dist'];

const allow = () => ({ allow: true });
const refuse = (reason) => ({ allow: false, reason });

/** Path segments, with `~`, `$HOME`, `${HOME}` and `\` normalised away. Case-insensitive. */
function segments(path) {
  return String(path)
    .replace(/\\/g, '/')
    .replace(/^(~|\$HOME|\$\{HOME\})(?=\/|$)/, '')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .map((s) => s.toLowerCase());
}

function isEnvFile(name) {
  if (name === '.env' || name.endsWith('.env')) return true; // .env, prod.env, private.env
  if (name.startsWith('.env.')) return !HARMLESS_ENV_SUFFIXES.some((s) => name.endsWith(s));
  return false;
}

/** Is this path (absolute, relative, `~/…` or a glob) a credential location? */
export function checkPath(path) {
  if (typeof path !== 'string' || path === '') return allow();
  const parts = segments(path);
  if (parts.length === 0) return allow();
  const name = parts[parts.length - 1];
  if (parts[0] === 'proc' && (name === 'environ' || parts.includes('environ'))) {
    return refuse(`${path} is a process environment`);
  }
  for (const dir of SECRET_DIRS) if (parts.includes(dir)) return refuse(`${path} is inside ${dir}, a credential folder`);
  for (const [a, b] of SECRET_DIR_PAIRS) {
    const i = parts.indexOf(a);
    if (i >= 0 && parts[i + 1] === b) return refuse(`${path} is inside ${a}/${b}, a credential store`);
  }
  // Globs like **/.env* or *.pem name credentials as surely as a path does.
  const bare = name.replace(/[*?[\]{}]/g, '');
  if (isEnvFile(name) || (name !== bare && (bare === '.env' || bare.startsWith('.env.') || bare === '.env.'))) {
    return refuse(`${path} is an environment file (.env): it holds keys`);
  }
  if (SECRET_FILES.has(name)) return refuse(`${path} is a credential file (${name})`);
  if (/^id_(rsa|dsa|ecdsa|ed25519)/.test(name)) return refuse(`${path} is an SSH key`);
  if (SECRET_SUFFIXES.some((s) => name.endsWith(s))) return refuse(`${path} looks like a private key or key store`);
  return allow();
}

/**
 * Shell words of a command line, the way a POSIX shell joins them: quoted and unquoted parts that
 * touch are one word (`'pri''ntenv'` is `printenv`), backslashes escape, and the operators
 * ; & | ( ) < > and newlines end a word. Good enough for a tripwire; not a full shell parser.
 */
function words(command) {
  const out = [];
  let word = null;
  const push = () => {
    if (word !== null) out.push(word);
    word = null;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === "'") {
      const close = command.indexOf("'", i + 1);
      const stop = close < 0 ? command.length : close;
      word = (word ?? '') + command.slice(i + 1, stop);
      i = stop;
    } else if (c === '"') {
      let j = i + 1;
      let text = '';
      while (j < command.length && command[j] !== '"') {
        if (command[j] === '\\' && j + 1 < command.length) j++;
        text += command[j++];
      }
      word = (word ?? '') + text;
      i = j;
    } else if (c === '\\' && i + 1 < command.length) {
      word = (word ?? '') + command[++i];
    } else if (/\s/.test(c)) {
      push();
    } else {
      word = (word ?? '') + c;
    }
  }
  push();
  return out;
}

/** Simple commands of a command line: split on ; && || | & newlines and $( ) ` ` (outside quotes is not tracked: a tripwire). */
function simpleCommands(command) {
  return command
    .split(/\|\||&&|[;|&\n`(){}]|\$\(/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

const DUMPERS = new Set(['printenv']);
const WRAPPERS = new Set(['sudo', 'command', 'exec', 'nohup', 'time', 'nice', 'builtin', 'doas', 'xargs', 'busybox', 'stdbuf', 'timeout', 'setsid', 'chroot', 'unbuffer']);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh']);
/** Programs that search a whole folder when asked to. */
const SEARCHERS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'ack-grep', 'git-grep']);

function checkSimpleCommand(text, depth) {
  let argv = words(text);
  // Skip leading assignments (FOO=1 cmd), transparent wrappers (sudo cmd) and their numeric argument (timeout 5 cmd).
  while (argv.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0]) || WRAPPERS.has(argv[0].split('/').pop()) || (/^-|^\d+[smhd]?$/.test(argv[0]) && argv.length > 1))) argv = argv.slice(1);
  if (argv.length === 0) return allow();
  const [first, ...rest] = argv;
  const program = first.split('/').pop();
  if (DUMPERS.has(program)) return refuse(`\`${program}\` dumps the environment`);
  if (program === 'env') {
    // `env` alone (or with only options) prints every variable; `env X=1 cmd` runs cmd.
    const tail = rest.filter((w) => !w.startsWith('-') && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (tail.length === 0) return refuse('`env` without a command dumps the environment');
    return checkSimpleCommand(tail.map(quoteWord).join(' '), depth);
  }
  if (program === 'export' && (rest.length === 0 || rest.includes('-p'))) return refuse('`export -p` dumps the environment');
  if ((program === 'set' || program === 'declare' || program === 'typeset' || program === 'local' || program === 'readonly') && (rest.length === 0 || rest.some((w) => /^[-+]\w*[pxo]/.test(w) && !/^[-+]o$/.test(w)))) {
    return refuse(`\`${program}\` without arguments dumps shell variables`);
  }
  if (program === 'compgen' && rest.some((w) => /^-\w*[ve]/.test(w))) return refuse('`compgen -v/-e` lists shell variables');
  if (program === 'ps' && rest.some((w) => !w.startsWith('-') && /^[a-z]*e[a-z]*$/.test(w))) return refuse('`ps e` shows process environments');
  // A shell given a command string: check the string itself (sh -c 'pri''ntenv').
  if (SHELLS.has(program) || program === 'eval' || program === 'source' || program === '.') {
    if (depth > 4) return refuse('too many nested shells to check');
    const c = rest.findIndex((w) => /^-\w*c$/.test(w));
    if (program === 'eval') return checkCommand(rest.join(' '), depth + 1);
    if (c >= 0) return rest[c + 1] === undefined ? allow() : checkCommand(rest[c + 1], depth + 1);
    if (rest.filter((w) => !w.startsWith('-')).length === 0) return refuse(`\`${program}\` reading commands from its input cannot be checked`);
  }
  if (program === 'awk' || program === 'gawk' || program === 'mawk' || program === 'nawk') {
    if (rest.some((w) => /\bENVIRON\b/.test(w))) return refuse('awk ENVIRON reads the environment');
  }
  // Folder searches: a searcher on PATH is the harness's shim (it skips credential files); one
  // named by path, or rg told to ignore its config, would open them.
  const searcher = SEARCHERS.has(program) || (program === 'git' && rest[0] === 'grep');
  if (searcher) {
    const recursive = program !== 'grep' && program !== 'egrep' && program !== 'fgrep' ? true : rest.some((w) => /^-\w*[rR]/.test(w) || w === '--recursive' || w === '--dereference-recursive' || /^--directories=recurse$/.test(w));
    if (recursive && first.includes('/')) return refuse(`a folder search through ${first} bypasses the credential excludes; call \`${program}\` by name`);
    if (rest.some((w) => w === '--no-config' || /^-u{1,3}$/.test(w) || w === '--no-ignore' || w === '--no-ignore-vcs')) return refuse(`\`${program}\` told to skip its ignore rules would open credential files`);
  }
  return allow();
}

/** Re-quote a word so a re-split keeps it whole. */
function quoteWord(word) {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Does this text read the process environment wholesale (in any language a model might script)? */
const ENV_READERS = [
  /\benviron\b/i, // os.environ, /proc/*/environ, awk ENVIRON, C environ
  /process\.env(?![\w])/, // Node
  /%ENV\b|\$ENV\{/, // Perl
  /(?<![\w$-])ENV(?:\[|\.(?:to_h|to_a|each|keys|values|inspect|map|select|sort|fetch|dup))/, // Ruby
  /getenv\s*\(\s*\)|Deno\.env|Bun\.env|System\.getenv\s*\(\s*\)|\$env:|Get-ChildItem\s+env:|\bgci\s+env:/i,
  /\$\{![A-Za-z_]\w*[*@]\}/, // bash ${!PREFIX*}: names of variables
];

/** Is this shell command line a way to read credentials or the environment? */
export function checkCommand(command, depth = 0) {
  if (typeof command !== 'string' || command.trim() === '') return allow();
  for (const m of command.matchAll(/\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*)/g)) {
    if (SECRET_NAME.test(m[1])) return refuse(`the command expands $${m[1]}, a secret`);
  }
  if (ENV_READERS.some((re) => re.test(command))) return refuse('the command reads the process environment');
  for (const part of simpleCommands(command)) {
    const verdict = checkSimpleCommand(part, depth);
    if (!verdict.allow) return verdict;
  }
  for (const word of words(command)) {
    // Redirections (<.env, 2>~/.ssh/x) and options with values (--file=.env) hide paths.
    const candidate = word.replace(/^\d*[<>]+&?/, '').replace(/^--?[A-Za-z-]+=/, '');
    const verdict = checkPath(candidate);
    if (!verdict.allow) return verdict;
  }
  return allow();
}

/**
 * The credential files and folders as glob patterns, for the CLIs' own exclusion mechanisms: a
 * folder search must not open them (Claude Code's Read deny rules also filter its Grep and Glob,
 * ripgrep's config and grep's --exclude/--exclude-dir do it for shell searches, OpenCode's `read`
 * permission). Derived from the same lists checkPath uses, so the table is one.
 */
export const CREDENTIAL_FILE_GLOBS = [
  '.env', '*.env', '.env.*', ...[...SECRET_FILES].filter((n) => n !== 'known_hosts'), 'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*',
  ...SECRET_SUFFIXES.map((s) => `*${s}`), 'environ',
];
export const CREDENTIAL_DIR_GLOBS = [...SECRET_DIRS, 'gcloud', 'gh'];
/** Names that look like env files but are documentation, kept readable. */
export const HARMLESS_ENV_GLOBS = HARMLESS_ENV_SUFFIXES.map((s) => `.env${s}`);

const PATH_KEY = /(path|file|dir|glob|include|notebook|target|source|destination)/i;

/**
 * One tool call, whatever the CLI: Claude Code sends `{ tool_name, tool_input }` (Read →
 * `file_path`, Bash → `command`, Glob → `pattern` + `path` …); OpenCode passes `(tool, args)`
 * (read → `filePath`, bash → `command`, glob → `pattern` …). Every string argument whose name
 * says path is checked as a path, `command` as a command line, and a glob tool's `pattern` as a path.
 */
export function checkToolCall(toolName, toolInput) {
  const tool = String(toolName ?? '');
  const input = toolInput && typeof toolInput === 'object' ? toolInput : {};
  const visit = (value, key) => {
    if (typeof value === 'string') {
      if (key === 'command' || key === 'cmd' || key === 'script') return checkCommand(value);
      if (PATH_KEY.test(key) || (key === 'pattern' && /glob|ls|list/i.test(tool))) return checkPath(value);
      return allow();
    }
    if (Array.isArray(value)) {
      for (const item of value) {
        const verdict = visit(item, key);
        if (!verdict.allow) return verdict;
      }
      return allow();
    }
    if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const verdict = visit(v, k);
        if (!verdict.allow) return verdict;
      }
    }
    return allow();
  };
  const verdict = visit(input, '');
  return verdict.allow ? verdict : refuse(`${tool || 'tool'}: ${verdict.reason}`);
}

/** One ripgrep glob that excludes every credential file and folder (`--glob '!{…}'`). */
export const CREDENTIAL_RG_EXCLUDE = `!{${[...CREDENTIAL_FILE_GLOBS, ...CREDENTIAL_DIR_GLOBS].join(',')}}`;

/**
 * A search tool's file filter made safe: none, or one that matches everything, becomes the
 * credential exclude; a filter that names credentials is refused by checkPath before this runs.
 */
export function safeSearchInclude(include) {
  if (typeof include !== 'string' || include.trim() === '' || /^(\*|\*\*|\*\*\/\*|\*\.\*|\*\*\/\*\.\*)$/.test(include.trim())) return CREDENTIAL_RG_EXCLUDE;
  return include;
}
