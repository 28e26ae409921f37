/**
 * Credentials an agent put in a URL (`https://user:token@host/...`) never leave a call: not in its
 * errors, not in its result, not in the audit record. One function, `redactCredentials`, does it
 * for all three, on structured values — each string of the record or result, never its
 * serialised JSON (where a `"` or `\` in the token would be escaped and slip past).
 *
 * The words of the call (its argv, or the whole line when it did not parse) say what a token is:
 * from after `scheme://` to the last `@` of that URL, whatever it holds — a token with `/`, `"`,
 * `\` or a space, which a URL parser would cut short. Every other text (a message, an output)
 * loses those exact tokens in any spelling a message gives them, and the credentials of any
 * well-formed URL it holds.
 */

import { quoteWord } from "./grammar.ts";
import { mapStrings } from "./strings.ts";

export const REDACTED = "***";

/** The longest scheme looked for before a `://` (`git+https`, `svn+ssh`...). */
const MAX_SCHEME = 32;

/**
 * Where each URL in `text` starts and where its part after `scheme://` starts. Found from each
 * `://` by looking back over the scheme's characters (a bounded, linear scan: a 50 MB line must
 * cost no more than reading it).
 */
function urlStarts(text: string): Array<{ at: number; end: number }> {
  const starts: Array<{ at: number; end: number }> = [];
  for (let sep = text.indexOf("://"); sep >= 0; sep = text.indexOf("://", sep + 3)) {
    let at = sep;
    while (at > 0 && sep - at < MAX_SCHEME && /[a-z0-9+.-]/i.test(text[at - 1])) at--;
    while (at < sep && !/[a-z]/i.test(text[at])) at++;
    if (at < sep) starts.push({ at, end: sep + 3 });
  }
  return starts;
}

/**
 * The credentials of the URLs in one word: for each `scheme://`, the text up to the last `@`
 * before the next URL or the word's end. A URL that parses without credentials and whose `@`
 * follows a `/` (`https://registry.example/@scope/pkg`) is a path, not a token.
 */
export function credentialsInWord(word: string): string[] {
  const starts = urlStarts(word);
  const found: string[] = [];
  starts.forEach((start, i) => {
    const span = word.slice(start.end, i + 1 < starts.length ? starts[i + 1].at : word.length);
    const at = span.lastIndexOf("@");
    if (at <= 0) return;
    if (span[at - 1] === "/" && parsesWithoutCredentials(word.slice(start.at, start.end) + span)) return;
    found.push(span.slice(0, at));
  });
  return found;
}

function parsesWithoutCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username === "" && parsed.password === "";
  } catch {
    return false;
  }
}

/** The credentials of every well-formed URL in free text (`scheme://userinfo@host`, the authority ending at `/?#` or a space). */
function redactUrlsInText(text: string): string {
  let out = "";
  let copied = 0;
  for (const { end } of urlStarts(text)) {
    if (end < copied) continue;
    let i = end;
    while (i < text.length && !/[\s/?#@]/.test(text[i])) i++;
    if (i > end && text[i] === "@") {
      out += text.slice(copied, end) + REDACTED;
      copied = i;
    }
  }
  return out + text.slice(copied);
}

/** The spellings a message may give a token: as typed, inside a JSON string, and percent-encoded in a URL. */
function spellings(secret: string): string[] {
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])];
}

/**
 * A text without any spelling of the secret values a command knows (an IRC password from its config, the
 * token of an Authorization header): every occurrence becomes `***`, longest secret first so one that
 * contains another goes whole. For texts that come from elsewhere — a server's error, a remote's progress
 * line — where a secret could appear anywhere, not only in a URL.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) {
    for (const spelling of spellings(secret)) out = out.replaceAll(spelling, REDACTED);
  }
  return out;
}

function redactString(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    for (const spelling of spellings(secret)) out = out.replaceAll(`://${spelling}@`, `://${REDACTED}@`);
  }
  return redactUrlsInText(out);
}

/** The tokens in the words of a call, longest first (so one that contains another goes whole). */
export function credentialsOf(words: readonly string[]): string[] {
  const secrets = new Set(words.flatMap(credentialsInWord));
  return [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * Whether some string of `value` may hold `://`, which every string redaction changes holds (a
 * token is replaced only as `://<token>@`, a URL's credentials only after its `://`). JSON writes
 * `:` and `/` as they are, so a value whose JSON text lacks `://` has no such string: one native
 * pass instead of a walk over every string. A value JSON cannot write (a cycle, a BigInt) is walked.
 */
function mayHoldUrl(value: unknown): boolean {
  try {
    return (JSON.stringify(value) ?? "").includes("://");
  } catch {
    return true;
  }
}

/**
 * `value` with no string holding URL credentials: `words` are the call's words. What holds none is
 * returned as it is (a result of thousands of entries is not copied to find nothing); an array or
 * object with a string to redact is a copy, the value given is never changed.
 */
export function redactCredentials<T>(value: T, words: readonly string[]): T {
  if (!mayHoldUrl(value)) return value;
  const secrets = credentialsOf(words);
  return mapStrings(value, (text) => redactString(text, secrets));
}

/**
 * A command line without the credentials of its words: the words re-quoted when it held any (a
 * token typed with quotes or escapes has no other reliable spelling), else the line as sent. A
 * line that did not split into words counts as one word.
 */
export function redactCommandLine(line: string, words: readonly string[] | null): string {
  if (words === null) return redactString(line, credentialsOf([line]));
  const secrets = credentialsOf(words);
  if (secrets.length === 0) return redactUrlsInText(line);
  return words.map((word) => quoteWord(redactString(word, secrets))).join(" ");
}
