/**
 * Control characters: what the board writes into a card, and what it prints for a person, holds
 * none raw but tab and newline (CONTRACT "What the census reads"). A card may carry any of them
 * as a YAML escape (`origin: "\e[31m"`): copied raw into the Record a NUL makes the card binary,
 * and an ESC printed on a terminal drives it. Each is written as its visible escape `\u001b`
 * instead, so nothing is lost and nothing is interpreted.
 */

/** C0 but tab and newline, DEL, and C1 (U+0080–U+009F; U+009B is a CSI to some terminals). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** The same and the line breaks, plus the bidi overrides that reorder what a terminal shows. */
const CONTROL_ON_ONE_LINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const visible = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Text safe to write into a card: every control character but tab and newline made visible. */
export function withoutControls(text: string): string {
  return text.replace(CONTROL, visible);
}

/** Strings anywhere in a field value (lists and maps too) made safe to write into a card. */
export function valueWithoutControls<T>(value: T): T {
  if (typeof value === 'string') return withoutControls(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => valueWithoutControls(v)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutControls(k), valueWithoutControls(v)])) as T;
  }
  return value;
}

/**
 * One line of human output from card-derived text (a name, a reason, a request): control
 * characters, line breaks and bidi overrides made visible, so nothing a card holds can drive the
 * terminal or forge another line of output.
 */
export function forTerminal(text: string): string {
  return text.replace(CONTROL_ON_ONE_LINE, visible);
}

/** Multi-line human output: each line escaped as `forTerminal` does, the line breaks kept. */
export function terminalLines(text: string): string {
  return text.split('\n').map(forTerminal).join('\n');
}

/** Whether the text holds anything `forTerminal` would escape: a control character, a line break, a bidi override. */
export function hasControlCharacter(text: string): boolean {
  CONTROL_ON_ONE_LINE.lastIndex = 0;
  const found = CONTROL_ON_ONE_LINE.test(text);
  CONTROL_ON_ONE_LINE.lastIndex = 0;
  return found;
}
