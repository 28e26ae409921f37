/**
 * git's patterns as JavaScript regular expressions: `git grep`, `log --grep` and `log --author`
 * take POSIX basic regular expressions by default (`-E` extended, `-F` fixed strings), in which
 * `(`, `)`, `{`, `}`, `|`, `+` and `?` are literal characters and their backslashed forms are the
 * operators (GNU's reading). Translating keeps `git grep "foo(bar"` meaning what git means
 * instead of failing, or matching something else, as a JavaScript pattern.
 */

import { PtermError } from "../../../core/errors.ts";

export type PatternSyntax = "basic" | "extended" | "fixed";

const POSIX_CLASSES: Record<string, string> = {
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: " \\t\\n\\r\\f\\v",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
  word: "a-zA-Z0-9_",
};

/** The JavaScript source of a bracket expression starting at `start` (`[`); returns it and where it ends. */
function bracket(pattern: string, start: number): [string, number] {
  let i = start + 1;
  let out = "[";
  if (pattern[i] === "^") {
    out += "^";
    i++;
  }
  // A `]` right after `[` or `[^` is a literal member.
  if (pattern[i] === "]") {
    out += "\\]";
    i++;
  }
  while (i < pattern.length && pattern[i] !== "]") {
    const cls = pattern.slice(i).match(/^\[:([a-z]+):\]/);
    if (cls) {
      const members = POSIX_CLASSES[cls[1]];
      if (!members) throw new PtermError("InvalidArgs", `[:${cls[1]}:] is not a character class git knows.`);
      out += members;
      i += cls[0].length;
      continue;
    }
    // Backslash is literal inside a POSIX bracket expression.
    out += pattern[i] === "\\" ? "\\\\" : pattern[i];
    i++;
  }
  if (i >= pattern.length) throw new PtermError("InvalidArgs", `the pattern \`${pattern}\` has an unclosed [.`);
  return [out + "]", i + 1];
}

/** The JavaScript source for a POSIX basic or extended regular expression. */
function translate(pattern: string, syntax: "basic" | "extended"): string {
  const operators = new Set(["(", ")", "{", "}", "|", "+", "?"]);
  let out = "";
  for (let i = 0; i < pattern.length;) {
    const ch = pattern[i];
    if (ch === "[") {
      const [source, next] = bracket(pattern, i);
      out += source;
      i = next;
      continue;
    }
    if (ch === "\\" && i + 1 < pattern.length) {
      const next = pattern[i + 1];
      if (syntax === "basic" && operators.has(next)) out += next;
      else if (/[<>]/.test(next)) out += "\\b";
      else out += `\\${next}`;
      i += 2;
      continue;
    }
    if (syntax === "basic" && operators.has(ch)) out += `\\${ch}`;
    else out += ch;
    i++;
  }
  return out;
}

export interface PatternOptions {
  readonly syntax?: PatternSyntax;
  readonly ignoreCase?: boolean;
  /** `-w`: match whole words only. */
  readonly word?: boolean;
}

/** A matcher for one line of text, as git grep's pattern options describe it. */
export function compilePattern(pattern: string, options: PatternOptions = {}): RegExp {
  const syntax = options.syntax ?? "basic";
  let source = syntax === "fixed" ? pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : translate(pattern, syntax);
  if (options.word) source = `(?<![A-Za-z0-9_])(?:${source})(?![A-Za-z0-9_])`;
  try {
    return new RegExp(source, options.ignoreCase ? "iu" : "u");
  } catch (error) {
    throw new PtermError(
      "InvalidArgs",
      `the pattern \`${pattern}\` is not a valid ${syntax} regular expression (${(error as Error).message}); ` +
        "use -F to search for the text as it is.",
    );
  }
}
