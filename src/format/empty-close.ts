/**
 * A close with no paths is a false close unless it is a legitimate exception, recorded as such
 * (the standard's "Exceptions": an empty selection with a justification). `board card close
 * --empty "why"` writes this exact milestone; the tick looks for it before it lets a director
 * chain on a child closed empty.
 */
export const EMPTY_CLOSE_MILESTONE = 'closed empty (legitimate exception):';

/** Whether a card's body records an empty-close justification. */
export function hasEmptyCloseJustification(body: string): boolean {
  return body.split(/\r?\n/).some((line) => /^\s*- /.test(line) && line.includes(EMPTY_CLOSE_MILESTONE));
}
