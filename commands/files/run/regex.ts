/** grep's patterns (basic, extended, fixed, or JavaScript's own syntax) as one JavaScript regular expression. */

import { escapeLiteral, posixToJs } from "../../../lib/posix_regex.ts";

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
