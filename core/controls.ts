/**
 * The code points that let text drive a terminal or reorder what a person reads: C0 controls
 * (ESC starts title, clipboard and cursor sequences; BEL ends them), DEL, C1 controls (CSI, OSC
 * in one byte), the line and paragraph separators, and the bidirectional marks, embeddings,
 * overrides and isolates. One list for every text that reaches a person's terminal (the shell, `--text`,
 * `runs`) and for new path names.
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

/** SGR reset, bold, normal intensity and the 16 foreground colours: nothing that hides or moves text. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const PLAIN_COLOUR = /\x1b\[(?:0|1|22|3[0-79]|9[0-7])m/;

export interface EscapeOptions {
  /** Escape tab and line feed too: for a table cell or any one-line field. */
  readonly singleLine?: boolean;
  /** Let plain colour changes through (what `irc status` prints for a terminal). */
  readonly keepPlainColour?: boolean;
  /** How a visible escape is shown (a colour around it, say); as it is by default. */
  readonly mark?: (escape: string) => string;
}

/**
 * Makes text safe to print to a person's terminal: every code point of the lists above becomes a
 * visible escape (`\x1b`, `\u202e`), so a command's output, a command line or a document can never
 * move the cursor, rewrite the screen, talk to the terminal or reorder what a person reads.
 */
export function escapeControls(text: string, options: EscapeOptions = {}): string {
  const controls = options.singleLine ? NAME_CONTROL : TERMINAL_CONTROL;
  const pattern = options.keepPlainColour
    ? new RegExp(`${PLAIN_COLOUR.source}|${controls.source}`, "gu")
    : new RegExp(controls.source, "gu");
  return text.replace(pattern, (found) => {
    if (found.length > 1) return found;
    const escape = escapeCodePoint(found);
    return options.mark ? options.mark(escape) : escape;
  });
}
