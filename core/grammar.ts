/**
 * The command-line grammar of `terminal_exec`.
 *
 * One line; words split on spaces and tabs; double quotes group with `\"` and `\\` as the
 * only escapes; single quotes group literally. Shell syntax outside quotes is refused
 * before anything runs, so no metacharacter can ever reach a command unquoted.
 */

import { PtermError } from "./errors.ts";

/** Characters refused anywhere outside quotes. `$` is refused only before `(` or `{`. */
const FORBIDDEN_OUTSIDE_QUOTES = new Set([";", "|", "&", ">", "<", "`", "*", "?", "[", "]"]);

const DESCRIPTIONS: Record<string, string> = {
  ";": "a command separator",
  "|": "a pipe",
  "&": "a background or `&&` operator",
  ">": "a redirection",
  "<": "a redirection",
  "`": "command substitution",
  "$(": "command substitution",
  "${": "variable expansion",
  "*": "a glob",
  "?": "a glob",
  "[": "a glob",
  "]": "a glob",
  "~": "home-directory expansion",
};

function refuse(what: string, column: number): never {
  const description = DESCRIPTIONS[what] ?? "shell syntax";
  throw new PtermError(
    "InvalidCommandLine",
    `\`${what}\` at column ${column} is ${description}, which pterm does not support: ` +
      "there is no shell. Run one command per call, pass multi-line text through stdin, " +
      "and quote the character if it is part of an argument (e.g. 'a;b').",
  );
}

/**
 * Characters that end a line somewhere: a terminal, an editor, a log viewer or a model's
 * tokenizer may show what follows as a second command, so a line holding one is refused.
 * Unicode's line and paragraph separators and NEL, vertical tab and form feed count as well
 * as CR and LF.
 */
const LINE_BREAKS = new Set(["\n", "\r", "\v", "\f", "\u0085", "\u2028", "\u2029"]);

/** Splits a command line into words, or throws `InvalidCommandLine` saying where and why. */
export function tokenize(line: string): string[] {
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (LINE_BREAKS.has(ch)) {
      throw new PtermError(
        "InvalidCommandLine",
        `the command line contains a line break at column ${i + 1}; ` +
          "a call runs exactly one line. Send multi-line text in the call's stdin field, to a command that reads it.",
      );
    }
    if (ch === "\0") {
      throw new PtermError(
        "InvalidCommandLine",
        `the command line contains a NUL character at column ${i + 1}; remove it.`,
      );
    }
  }

  const words: string[] = [];
  let current = "";
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const ch = line[i];
    if (ch === " " || ch === "\t") {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
      i++;
      continue;
    }
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) {
        throw new PtermError(
          "InvalidCommandLine",
          `the single quote at column ${i + 1} is never closed; add the closing '.`,
        );
      }
      current += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (ch === '"') {
      let j = i + 1;
      let closed = false;
      while (j < line.length) {
        const c = line[j];
        if (c === "\\" && (line[j + 1] === '"' || line[j + 1] === "\\")) {
          current += line[j + 1];
          j += 2;
          continue;
        }
        if (c === '"') {
          closed = true;
          break;
        }
        current += c;
        j++;
      }
      if (!closed) {
        throw new PtermError(
          "InvalidCommandLine",
          `the double quote at column ${i + 1} is never closed; add the closing ".`,
        );
      }
      inWord = true;
      i = j + 1;
      continue;
    }
    if (FORBIDDEN_OUTSIDE_QUOTES.has(ch)) refuse(ch, i + 1);
    if (ch === "$" && (line[i + 1] === "(" || line[i + 1] === "{")) refuse(ch + line[i + 1], i + 1);
    if (ch === "~" && !inWord) refuse("~", i + 1);
    current += ch;
    inWord = true;
    i++;
  }
  if (inWord) words.push(current);
  if (words.length === 0) {
    throw new PtermError(
      "InvalidCommandLine",
      "the command line is empty; run `help` to list the commands.",
    );
  }
  return words;
}

/** Quotes a word so that `tokenize` gives it back unchanged; used to print replayable command lines. */
export function quoteWord(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) && !word.startsWith("~")) return word;
  if (!word.includes("'")) return `'${word}'`;
  return `"${word.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}
