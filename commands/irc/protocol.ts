/**
 * The IRC wire format (RFC 1459/2812 with IRCv3 message tags), as far as pterm needs it:
 * parsing inbound lines, building outbound ones that can never carry a second command, and
 * splitting long texts into PRIVMSG lines that fit the 512-byte limit.
 */

import { sanitizeText } from "./sanitize.ts";

/** RFC 2812: a line is at most 512 bytes including CR LF. */
export const IRC_LINE_BYTES = 512;

/**
 * Room left for the `:nick!user@host ` prefix the server adds when it relays our line: nick
 * (9 here), user (≤ 10 on most servers), host (≤ 63) and the punctuation.
 */
export const RELAY_PREFIX_RESERVE = 1 + 9 + 1 + 10 + 1 + 63 + 1;

export interface IrcMessage {
  readonly tags: Readonly<Record<string, string>>;
  /** `nick!user@host` or a server name, without the colon; null when absent. */
  readonly prefix: string | null;
  /** Upper-cased command or the three-digit numeric. */
  readonly command: string;
  readonly params: readonly string[];
}

function unescapeTagValue(value: string): string {
  return value.replace(/\\(.?)/g, (_, c: string) => ({ ":": ";", s: " ", r: "\r", n: "\n", "\\": "\\" })[c] ?? c);
}

/** Parses one line (without CR LF); null for an empty or malformed line. */
export function parseLine(line: string): IrcMessage | null {
  let rest = line;
  const tags: Record<string, string> = {};
  if (rest.startsWith("@")) {
    const space = rest.indexOf(" ");
    if (space < 0) return null;
    for (const pair of rest.slice(1, space).split(";")) {
      if (!pair) continue;
      const eq = pair.indexOf("=");
      if (eq < 0) tags[pair] = "";
      else tags[pair.slice(0, eq)] = unescapeTagValue(pair.slice(eq + 1));
    }
    rest = rest.slice(space + 1).replace(/^ +/, "");
  }
  let prefix: string | null = null;
  if (rest.startsWith(":")) {
    const space = rest.indexOf(" ");
    if (space < 0) return null;
    prefix = rest.slice(1, space);
    rest = rest.slice(space + 1).replace(/^ +/, "");
  }
  const params: string[] = [];
  let command = "";
  while (rest.length > 0) {
    if (command && rest.startsWith(":")) {
      params.push(rest.slice(1));
      break;
    }
    const space = rest.indexOf(" ");
    const word = space < 0 ? rest : rest.slice(0, space);
    if (!command) command = word.toUpperCase();
    else params.push(word);
    if (space < 0) break;
    rest = rest.slice(space + 1).replace(/^ +/, "");
  }
  if (!command) return null;
  return { tags, prefix, command, params };
}

/** The nick of a `nick!user@host` prefix. */
export function nickOf(prefix: string | null): string {
  if (!prefix) return "";
  const bang = prefix.indexOf("!");
  return bang < 0 ? prefix : prefix.slice(0, bang);
}

const FORBIDDEN_IN_LINE = /[\0\r\n]/;

/**
 * Builds one outbound line. Throws when a parameter could end the line early or smuggle in a
 * second command: that is a bug in the caller, never something user text may cause.
 */
export function formatLine(command: string, params: readonly string[] = []): string {
  if (!/^[A-Za-z]+$|^\d{3}$/.test(command)) throw new Error(`not an IRC command: ${command}`);
  const parts = [command];
  params.forEach((param, index) => {
    if (FORBIDDEN_IN_LINE.test(param)) throw new Error("an IRC parameter may not contain CR, LF or NUL");
    const last = index === params.length - 1;
    if (!last && (param === "" || param.includes(" ") || param.startsWith(":"))) {
      throw new Error("only the last IRC parameter may be empty, contain spaces or start with a colon");
    }
    parts.push(last && (param === "" || param.includes(" ") || param.startsWith(":")) ? `:${param}` : param);
  });
  return parts.join(" ");
}

// deno-lint-ignore no-control-regex
const CHANNEL = /^[#&+!][^\0\x07\r\n ,:]{1,49}$/;
const NICK = /^[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}$/;

export function isChannelName(name: string): boolean {
  return CHANNEL.test(name);
}

export function isNickName(name: string): boolean {
  return NICK.test(name);
}

/** The case mappings servers announce in ISUPPORT (`005 ... CASEMAPPING=`). */
export type CaseMapping = "ascii" | "rfc1459" | "strict-rfc1459";

/** A server's announced CASEMAPPING, or null for one this client does not know (it keeps its current one). */
export function parseCaseMapping(value: string): CaseMapping | null {
  const v = value.toLowerCase();
  return v === "ascii" || v === "rfc1459" || v === "strict-rfc1459" ? v : null;
}

/**
 * Case-insensitive identity of a channel or nick under the server's case mapping: `ascii` folds
 * A-Z; `rfc1459` also folds `[]\~` to `{}|^` (the Scandinavian upper case of RFC 1459), and
 * `strict-rfc1459` all but `~`. Before a server has said (no 005 yet) rfc1459 is RFC 2812's default.
 */
export function foldName(name: string, mapping: CaseMapping = "rfc1459"): string {
  const upper = mapping === "ascii" ? /[A-Z]/g : mapping === "rfc1459" ? /[A-Z[\]\\~]/g : /[A-Z[\]\\]/g;
  return name.replace(
    upper,
    (c) => c === "[" ? "{" : c === "]" ? "}" : c === "\\" ? "|" : c === "~" ? "^" : c.toLowerCase(),
  );
}

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Units that must not be split: grapheme clusters, or code points when a cluster alone is too long. */
function* units(text: string, maxBytes: number): Generator<string> {
  for (const { segment } of graphemes.segment(text)) {
    if (utf8Bytes(segment) <= maxBytes) yield segment;
    else yield* segment; // a pathological cluster (e.g. hundreds of combining marks): fall back to code points
  }
}

/**
 * Splits one line of text into pieces of at most `maxBytes` UTF-8 bytes, never inside a
 * character, preferring to break before a space in the second half of a piece. Joining the
 * pieces gives the line back.
 */
export function splitUtf8(line: string, maxBytes: number): string[] {
  if (maxBytes < 4) throw new Error("a piece must hold at least one UTF-8 character");
  const pieces: string[] = [];
  let current: string[] = [];
  let currentBytes = 0;
  for (const unit of units(line, maxBytes)) {
    const size = utf8Bytes(unit);
    if (currentBytes + size > maxBytes) {
      // Break before a space, so it starts the next piece: servers strip trailing spaces from a
      // line, but keep the text after the colon whole, so nothing is lost.
      let cut = current.length;
      for (let i = current.length - 1; i > current.length / 2; i--) {
        if (current[i] === " ") {
          cut = i;
          break;
        }
      }
      pieces.push(current.slice(0, cut).join(""));
      current = current.slice(cut);
      currentBytes = utf8Bytes(current.join(""));
    }
    current.push(unit);
    currentBytes += size;
  }
  if (current.length > 0) pieces.push(current.join(""));
  return pieces;
}

/** The most text bytes one PRIVMSG to `target` may carry so the relayed line still fits in 512 bytes. */
export function maxTextBytes(target: string, prefixReserve = RELAY_PREFIX_RESERVE): number {
  return IRC_LINE_BYTES - 2 - utf8Bytes(`PRIVMSG ${target} :`) - prefixReserve;
}

/**
 * Turns an agent's text into PRIVMSG texts for `target`: CR, LF and CR LF separate lines (so
 * no text can start a raw IRC command), control characters and escapes are removed, empty
 * lines are skipped, and long lines are split on character boundaries.
 */
export function privmsgTexts(text: string, target: string, prefixReserve = RELAY_PREFIX_RESERVE): string[] {
  const max = maxTextBytes(target, prefixReserve);
  const out: string[] = [];
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = sanitizeText(rawLine);
    if (line.trim() === "") continue;
    out.push(...splitUtf8(line, max));
  }
  return out;
}

/** `AB:CD:...` or `abcd...` → 64 lower-case hex digits, or null when it is not a SHA-256 fingerprint. */
export function normalizeFingerprint(text: string): string | null {
  const hex = text.replace(/[:\s]/g, "").toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

/** Whether `text` matches the glob `mask` (`*` any run, `?` one character), compared after `fold`. */
export function globMatches(mask: string, text: string, fold: (s: string) => string): boolean {
  const pattern = fold(mask).replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${pattern}$`, "s").test(fold(text));
}
