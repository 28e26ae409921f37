/**
 * git's patterns as JavaScript regular expressions: `git grep`, `log --grep` and `log --author`
 * take POSIX basic regular expressions by default (`-E` extended, `-F` fixed strings), in which
 * `(`, `)`, `{`, `}`, `|`, `+` and `?` are literal characters and their backslashed forms are the
 * operators (GNU's reading). Translating keeps `git grep "foo(bar"` meaning what git means
 * instead of failing, or matching something else, as a JavaScript pattern.
 */

import { PtermError } from "../../../core/errors.ts";
import { escapeLiteral, posixToJs } from "../../../lib/posix_regex.ts";

export type PatternSyntax = "basic" | "extended" | "fixed";

export interface PatternOptions {
  readonly syntax?: PatternSyntax;
  readonly ignoreCase?: boolean;
  /** `-w`: match whole words only. */
  readonly word?: boolean;
}

/** A matcher for one line of text, as git grep's pattern options describe it. */
export function compilePattern(pattern: string, options: PatternOptions = {}): RegExp {
  const syntax = options.syntax ?? "basic";
  try {
    let source = syntax === "fixed" ? escapeLiteral(pattern) : posixToJs(pattern, syntax === "extended");
    if (options.word) source = `(?<![A-Za-z0-9_])(?:${source})(?![A-Za-z0-9_])`;
    return new RegExp(source, options.ignoreCase ? "iu" : "u");
  } catch (error) {
    throw new PtermError(
      "InvalidArgs",
      `the pattern \`${pattern}\` is not a valid ${syntax} regular expression (${(error as Error).message}); ` +
        "use -F to search for the text as it is.",
    );
  }
}
