/**
 * POSIX regular expressions (grep's basic and extended syntax) as JavaScript ones. JavaScript's
 * syntax is close to the extended one; the basic one swaps which of `( ) { } | + ?` are special.
 */

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

/** A bracket expression starting at `pattern[start] === "["`: its JavaScript form and where it ends. */
function bracket(pattern: string, start: number): { source: string; end: number } | null {
  let i = start + 1;
  let body = "";
  if (pattern[i] === "^") {
    body += "^";
    i++;
  }
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
        body += CLASSES[pattern.slice(i + 2, close)] ?? "";
        i = close + 1;
        continue;
      }
    }
    // In a POSIX bracket expression a backslash and `[` are ordinary characters.
    body += char === "\\" || char === "[" ? `\\${char}` : char;
  }
  return null;
}

/** Translates a POSIX pattern; `extended` for `grep -E`. */
export function posixToJs(pattern: string, extended: boolean): string {
  let out = "";
  // Where a `*` is literal in a basic pattern: at the start, after `\(`, `\|` or `^`.
  let atStart = true;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    const wasStart = atStart;
    atStart = false;
    if (char === "[") {
      const parsed = bracket(pattern, i);
      if (parsed) {
        out += parsed.source;
        i = parsed.end;
      } else out += "\\[";
      continue;
    }
    if (char === "\\" && i + 1 < pattern.length) {
      const next = pattern[++i];
      if (next === "<" || next === ">") out += "\\b";
      else if (!extended && "(){}|+?".includes(next)) {
        out += next;
        if (next === "(" || next === "|") atStart = true;
      } else if (/[0-9bBwWsS]/.test(next)) out += `\\${next}`;
      else out += /[A-Za-z]/.test(next) ? next : `\\${next}`;
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

export function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

export interface MatchOptions {
  readonly syntax: "basic" | "extended" | "fixed" | "javascript";
  readonly ignoreCase: boolean;
  readonly word: boolean;
  readonly line: boolean;
}

/** One regular expression (global, for `-o`) for all patterns; an empty pattern matches every line. */
export function compile(patterns: readonly string[], options: MatchOptions): RegExp {
  const sources = patterns.flatMap((pattern) => pattern.split("\n")).map((pattern) =>
    options.syntax === "fixed"
      ? escapeLiteral(pattern)
      : options.syntax === "javascript"
      ? pattern
      : posixToJs(pattern, options.syntax === "extended")
  );
  let source = sources.map((s) => `(?:${s})`).join("|");
  if (options.word) source = `(?<![A-Za-z0-9_])(?:${source})(?![A-Za-z0-9_])`;
  if (options.line) source = `^(?:${source})$`;
  return new RegExp(source, options.ignoreCase ? "gi" : "g");
}
