/**
 * A crash seam for the reliability tests: `BOARD_CRASH_AT=<point>:<n>` makes this process kill
 * itself with SIGKILL (no cleanup, no finally, no flush: a power cut as far as the vault can tell)
 * the n-th time (1-based) it reaches `<point>`. Unset, it is inert: one environment lookup.
 *
 * Points:
 * - `claim:moved`    a claim's move into in-progress/ is done, its stamp is not;
 * - `claim:stamped`  the claim is stamped, its supervisor not started;
 * - `write:temp`     an atomic write's temp file is complete, not renamed into place;
 * - `close:edited`   a close's edit is written in in-progress/, the move to done/ is not;
 * - `return:edited`  a fail, yield, cancel or reclaim has edited the card in in-progress/, not moved it.
 *
 * Only tests set the variable; nothing in the board reads it anywhere else.
 */
export type CrashPoint = 'claim:moved' | 'claim:stamped' | 'write:temp' | 'close:edited' | 'return:edited';

const counts = new Map<string, number>();

export function crashPoint(point: CrashPoint): void {
  const spec = process.env.BOARD_CRASH_AT;
  if (!spec) return;
  const at = spec.lastIndexOf(':');
  if (spec.slice(0, at) !== point) return;
  const n = (counts.get(point) ?? 0) + 1;
  counts.set(point, n);
  if (n === Number(spec.slice(at + 1))) process.kill(process.pid, 'SIGKILL');
}
