/**
 * The code points that let text drive a terminal or reorder what a person reads: C0 controls
 * (ESC starts title, clipboard and cursor sequences; BEL ends them), DEL, C1 controls (CSI, OSC
 * in one byte), the line and paragraph separators, and the bidirectional marks, embeddings,
 * overrides and isolates. One list for the shell's terminal boundary and for new path names.
 */

/** Everything above, tab and line feed excepted: what may not reach a terminal raw. */
export const TERMINAL_CONTROL =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Everything above, tab and line feed included: what no new file or folder name may hold. */
// deno-lint-ignore no-control-regex
export const NAME_CONTROL = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** The first such code point of `text` as an escape (`\x1b`, `\u202e`), or null. */
export function firstNameControl(text: string): string | null {
  const found = NAME_CONTROL.exec(text);
  return found ? escapeCodePoint(found[0]) : null;
}

/** A code point as a visible escape: `\x1b`, `\u202e`. */
export function escapeCodePoint(ch: string): string {
  const code = ch.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}
