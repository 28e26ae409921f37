/**
 * POSIX regular expressions — the basic and extended syntax of GNU grep and of git's `grep`,
 * `log --grep` and `log --author` — as JavaScript ones. JavaScript's syntax is close to the
 * extended one; the basic one swaps which of `( ) { } | + ?` are special. What POSIX rejects
 * (an unknown `[:class:]`, an unclosed `[`) is rejected here too, as grep and git reject it,
 * never read as something else. The sources this makes are valid with and without the `u` flag.
 */

/** A pattern POSIX rejects; its message says why in grep's words. */
export class PosixPatternError extends Error {
  override name = "PosixPatternError";
}

const CLASSES: Record<string, string> = {
  alpha: "A-Za-z",
  digit: "0-9",
  alnum: "A-Za-z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: " \\t\\n\\r\\f\\v",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
  cntrl: "\\x00-\\x1f\\x7f",
  print: " -~",
  graph: "!-~",
  word: "A-Za-z0-9_",
};

/** Characters that mean something in a JavaScript pattern: written escaped when they stand for themselves. */
const JS_SYNTAX = "\\^$.*+?()[]{}|/";

/** The JavaScript source of a bracket expression starting at `pattern[start] === "["`, and where it ends. */
function bracket(pattern: string, start: number): { source: string; end: number } {
  let i = start + 1;
  let body = "";
  if (pattern[i] === "^") {
    body += "^";
    i++;
  }
  // A `]` right after `[` or `[^` is a member, not the end.
  if (pattern[i] === "]") {
    body += "\\]";
    i++;
  }
  for (; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "]") return { source: `[${body}]`, end: i };
    if (char === "[" && pattern[i + 1] === ":") {
      const close = pattern.indexOf(":]", i + 2);
      if (close > 0) {
        const name = pattern.slice(i + 2, close);
        const members = CLASSES[name];
        if (members === undefined) throw new PosixPatternError(`[:${name}:] is not a character class name`);
        body += members;
        i = close + 1;
        continue;
      }
    }
    // In a POSIX bracket expression a backslash and `[` are ordinary characters.
    body += char === "\\" || char === "[" ? `\\${char}` : char;
  }
  throw new PosixPatternError("unmatched [, [^, [:, [., or [=");
}

/** Translates a POSIX pattern to a JavaScript pattern's source; `extended` for `grep -E` / `git grep -E`. */
export function posixToJs(pattern: string, extended: boolean): string {
  let out = "";
  // Where a `*` is literal: at the start, after `\(`, `\|` or `^` (basic), after `(` or `|` (extended).
  let atStart = true;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    const wasStart = atStart;
    atStart = false;
    if (char === "[") {
      const parsed = bracket(pattern, i);
      out += parsed.source;
      i = parsed.end;
      continue;
    }
    if (char === "\\" && i + 1 < pattern.length) {
      const next = pattern[++i];
      if (next === "<" || next === ">") out += "\\b";
      else if (!extended && "(){}|+?".includes(next)) {
        out += next;
        if (next === "(" || next === "|") atStart = true;
      } else if (/[0-9bBwWsS]/.test(next)) out += `\\${next}`;
      else if (JS_SYNTAX.includes(next)) out += `\\${next}`;
      else out += next;
      continue;
    }
    if (!extended && "(){}|+?".includes(char)) {
      out += `\\${char}`;
      continue;
    }
    if (char === "*" && (wasStart || (extended && (out.endsWith("(") || out.endsWith("|"))))) {
      out += "\\*";
      continue;
    }
    if (char === "^") atStart = true;
    if (extended && (char === "(" || char === "|")) atStart = true;
    if (char === "/") {
      out += "\\/";
      continue;
    }
    out += char;
  }
  return out;
}

/** A text searched for as it is (`grep -F`, `git grep -F`): every pattern character escaped. */
export function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
