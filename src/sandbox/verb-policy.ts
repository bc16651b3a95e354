import path from 'node:path';

/**
 * Which `board` command lines a sandboxed worker may have its supervisor run for it (the verbs
 * channel, issue 18). Pure: the argument list and the run's own card in, a verdict out.
 *
 * The rule: only `card show|note|close|fail|block|yield|new` and help; the verbs that change a
 * card name the run's own card (its file name, or its absolute path in `in-progress/`); only the
 * options the verb itself declares. The global `--config`, `--vault` and `--now` are refused: the
 * board, the vault and the clock are the run's, never the worker's to choose.
 */

type OptionKind = 'flag' | 'value';

interface VerbSpec {
  /** How many operands the verb takes (commander refuses more or fewer itself). */
  readonly operands: number;
  /** True when the first operand is the card the verb changes: it must be the run's own. */
  readonly ownCard: boolean;
  readonly options: Readonly<Record<string, OptionKind>>;
}

/** The options every verb declares that change nothing about whose board it is. */
const OUTPUT_OPTIONS: Readonly<Record<string, OptionKind>> = {
  '--json': 'flag',
  '--quiet': 'flag',
  '--log-format': 'value',
  '--help': 'flag',
  '-h': 'flag',
};

/** Mirrors src/cli.ts's `card` subcommands (their own options, without the global ones). */
const VERBS: Readonly<Record<string, VerbSpec>> = {
  show: { operands: 1, ownCard: false, options: {} },
  note: { operands: 2, ownCard: true, options: {} },
  close: { operands: 1, ownCard: true, options: { '--path': 'value', '--empty': 'value' } },
  fail: { operands: 2, ownCard: true, options: {} },
  block: { operands: 2, ownCard: true, options: {} },
  yield: { operands: 1, ownCard: true, options: { '--until': 'value' } },
  new: {
    operands: 0,
    ownCard: false,
    options: {
      '--function': 'value',
      '--request': 'value',
      '--input': 'value',
      '--priority': 'value',
      '--recipient': 'value',
      '--push-reason': 'value',
      '--origin': 'value',
      '--destination': 'value',
      '--flow': 'value',
      '--director': 'value',
    },
  },
};

/** The verbs a worker may use, for messages. */
export const ALLOWED_VERBS = Object.keys(VERBS);

export type VerbVerdict = { readonly ok: true; readonly verb: string } | { readonly ok: false; readonly reason: string };

const HELP = new Set(['--help', '-h']);

/**
 * May a worker whose card is `ownCard` (the absolute path in `in-progress/` the board gave it)
 * run `board <args…>`? Refusals are one sentence saying what was refused and what is allowed.
 */
export function checkVerb(args: readonly string[], ownCard: string): VerbVerdict {
  const allowed = `a worker may run: board card ${ALLOWED_VERBS.join('|')} (and --help)`;
  if (args.length === 1 && HELP.has(args[0]!)) return { ok: true, verb: 'help' };
  if (args[0] !== 'card') {
    return { ok: false, reason: `"board ${args.slice(0, 2).join(' ')}" is not one of the verbs a worker may run; ${allowed}` };
  }
  if (args.length === 2 && HELP.has(args[1]!)) return { ok: true, verb: 'help' };
  const verb = args[1];
  const spec = verb !== undefined && Object.hasOwn(VERBS, verb) ? VERBS[verb] : undefined;
  if (!verb || !spec) return { ok: false, reason: `"board card ${verb ?? ''}" is not one of the verbs a worker may run; ${allowed}` };

  const operands: string[] = [];
  const rest = args.slice(2);
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (token === '--') {
      operands.push(...rest.slice(i + 1));
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      operands.push(token);
      continue;
    }
    const eq = token.indexOf('=');
    const name = token.startsWith('--') && eq > 0 ? token.slice(0, eq) : token;
    const kind = Object.hasOwn(spec.options, name) ? spec.options[name] : Object.hasOwn(OUTPUT_OPTIONS, name) ? OUTPUT_OPTIONS[name] : undefined;
    if (kind === undefined) {
      return { ok: false, reason: `board card ${verb}: the option ${name} is not allowed to a worker (the board, the vault and the clock are its run's)` };
    }
    // A value given apart is the next token, whatever it looks like: commander takes it so too.
    if (kind === 'value' && eq < 0) i++;
  }

  if (spec.ownCard && operands.length > 0 && !namesOwnCard(operands[0]!, ownCard)) {
    return { ok: false, reason: `board card ${verb} ${operands[0]}: a worker may ${verb} only its own card, ${path.basename(ownCard)}` };
  }
  return { ok: true, verb };
}

/** The run's own card by its file name or by the absolute path the board gave the worker. */
function namesOwnCard(ref: string, ownCard: string): boolean {
  if (ref === path.basename(ownCard)) return true;
  return path.isAbsolute(ref) && path.normalize(ref) === path.normalize(ownCard);
}
