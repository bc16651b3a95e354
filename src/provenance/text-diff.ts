/**
 * A line diff for people: common prefix and suffix trimmed, the middle aligned by longest common
 * subsequence, printed as hunks with `-`/`+` lines and a little context.
 */

export type DiffOp = { readonly op: ' ' | '-' | '+'; readonly line: string };

/** Above this many cells the middle is shown as removed-then-added instead of aligned. */
const MAX_CELLS = 4_000_000;

export function diffLines(a: string, b: string): DiffOp[] {
  const x = splitLines(a);
  const y = splitLines(b);
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX--;
    endY--;
  }
  const ops: DiffOp[] = x.slice(0, start).map((line) => ({ op: ' ', line }));
  const mx = x.slice(start, endX);
  const my = y.slice(start, endY);
  if (mx.length * my.length > MAX_CELLS) {
    ops.push(...mx.map((line) => ({ op: '-' as const, line })), ...my.map((line) => ({ op: '+' as const, line })));
  } else {
    ops.push(...lcsDiff(mx, my));
  }
  ops.push(...x.slice(endX).map((line) => ({ op: ' ' as const, line })));
  return ops;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function lcsDiff(x: readonly string[], y: readonly string[]): DiffOp[] {
  const n = x.length;
  const m = y.length;
  // table[i][j] = LCS length of x[i..] and y[j..]
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] = x[i] === y[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      ops.push({ op: ' ', line: x[i]! });
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) ops.push({ op: '-', line: x[i++]! });
    else ops.push({ op: '+', line: y[j++]! });
  }
  while (i < n) ops.push({ op: '-', line: x[i++]! });
  while (j < m) ops.push({ op: '+', line: y[j++]! });
  return ops;
}

/** Hunks with `context` lines around each change, headed `@@ -a,n +b,m @@`. Empty when the texts are equal. */
export function unifiedDiff(a: string, b: string, context = 3): string {
  const ops = diffLines(a, b);
  const changed = ops.map((o, i) => (o.op === ' ' ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return '';
  const out: string[] = [];
  let k = 0;
  while (k < changed.length) {
    const from = Math.max(0, changed[k]! - context);
    let to = Math.min(ops.length, changed[k]! + context + 1);
    while (k + 1 < changed.length && changed[k + 1]! - context <= to) {
      k++;
      to = Math.min(ops.length, changed[k]! + context + 1);
    }
    k++;
    let lineA = 1;
    let lineB = 1;
    for (const o of ops.slice(0, from)) {
      if (o.op !== '+') lineA++;
      if (o.op !== '-') lineB++;
    }
    const hunk = ops.slice(from, to);
    const countA = hunk.filter((o) => o.op !== '+').length;
    const countB = hunk.filter((o) => o.op !== '-').length;
    out.push(`@@ -${lineA},${countA} +${lineB},${countB} @@`, ...hunk.map((o) => `${o.op}${o.line}`));
  }
  return `${out.join('\n')}\n`;
}
