/**
 * Inbound IRC text is third-party input that ends up in an agent's context, in files and on
 * terminals. Before anything is stored or shown it loses everything that is not plain text:
 * terminal escape sequences (which could move a cursor, retitle a window or hide text), IRC
 * formatting codes, C0/C1 control characters and the Unicode controls that reorder or hide
 * text (bidi overrides, "Trojan Source").
 */

// ESC [ … final byte (CSI), ESC ] … BEL or ESC \ (OSC), ESC P/X/^/_ … ESC \ (DCS, SOS, PM, APC),
// then any other two-character escape.
const ANSI_ESCAPES =
  // deno-lint-ignore no-control-regex
  /\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[\x20-\x7e]?/g;

// \x03 colours take up to two digits for the foreground and optionally ",NN" for the background;
// \x04 takes hex RGB. Bold, italics, underline, strike, monospace, reverse and reset take nothing.
const IRC_FORMATTING =
  // deno-lint-ignore no-control-regex
  /\x03(?:\d{1,2}(?:,\d{1,2})?)?|\x04(?:[0-9a-fA-F]{6}(?:,[0-9a-fA-F]{6})?)?|[\x02\x0f\x11\x16\x1d\x1e\x1f]/g;

const TABS_AND_LINE_BREAKS = /[\t\n\r\u2028\u2029]/g;

// C0 (what remains after the above), DEL, C1, and the invisible controls that reorder text.
// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Plain, single-line text: safe to store, print on a terminal and hand to an agent. */
export function sanitizeText(raw: string): string {
  return raw
    .replace(ANSI_ESCAPES, "")
    .replace(IRC_FORMATTING, "")
    .replace(TABS_AND_LINE_BREAKS, " ")
    .replace(CONTROLS, "");
}

/** Nicks come from the server and are usually clean; the same rule applies anyway. */
export function sanitizeNick(raw: string): string {
  return sanitizeText(raw).replace(/\s+/g, "").slice(0, 64);
}
