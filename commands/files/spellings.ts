/**
 * The real tools' spellings of `cat`, `head`, `tail` and `sed` that the flag parser cannot read
 * (`head -20`, `sed -n '5,10p'`), and a refusal naming the `read` line for every spelling that
 * would do something else than print lines (`sed -i`, `cat -A`, `sed 's/a/b/'`).
 */

import type { SpellingRewriter } from "../../core/declaration.ts";
import { PtermError } from "../../core/errors.ts";
import { quoteWord } from "../../core/grammar.ts";
import { readLine, type Selection } from "./run/lines.ts";

/** Refuses a spelling; the message names only the line to run in backticks (the refused one is not repeated). */
function refuse(words: readonly string[], why: string, instead: string): never {
  throw new PtermError("InvalidArgs", `${words[0]}: ${why} Run \`${instead}\`.`, { helpFor: words[0] });
}

/** Flags of the real tools that take the next word as their value. */
const TAKES_VALUE = /^(-[nce]|--(lines|bytes|expression))$/;

const files = (words: readonly string[]) =>
  words.filter((w, i) => i > 0 && (!w.startsWith("-") || w === "-") && !TAKES_VALUE.test(words[i - 1]));

/** `sed -n` scripts that only print lines: `A,Bp`, `Ap`, `$p`, `A,$p`. */
export function sedSelection(script: string): Selection | null {
  const match = /^\s*(\d+|\$)(?:\s*,\s*(\d+|\$))?\s*p\s*;?\s*$/.exec(script);
  if (!match) return null;
  const [, a, b] = match;
  if (a === "$") return { kind: "last", count: 1 };
  const from = Number(a);
  if (from < 1) return null;
  const to = b === undefined ? from : b === "$" ? Infinity : Math.max(from, Number(b));
  return { kind: "range", from, to };
}

const KEEP_FLAGS: Readonly<Record<string, RegExp>> = {
  cat: /^(-n|--number|--help|-h)$/,
  head: /^(-n\S*|--lines(=.*)?|--help|-h)$/,
  tail: /^(-n\S*|--lines(=.*)?|--help|-h)$/,
};

function rewriteLineTool(words: readonly string[]): string[] {
  const [command] = words;
  const out: string[] = [command];
  let afterDashes = false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (afterDashes || !word.startsWith("-") || word === "-") {
      out.push(word);
      continue;
    }
    if (word === "--") {
      afterDashes = true;
      out.push(word);
      continue;
    }
    // `head -20` is `head -n 20`, as in coreutils.
    if (command !== "cat" && /^-\d+$/.test(word)) {
      out.push("-n", word.slice(1));
      continue;
    }
    if (KEEP_FLAGS[command].test(word)) {
      out.push(word);
      if ((word === "-n" && command !== "cat") || word === "--lines") out.push(words[++i] ?? "");
      continue;
    }
    const paths = files(words);
    const shown = paths.length ? paths : ["<file>"];
    const what = command === "cat" ? "prints files as they are here; numbered lines are" : "counts lines here;";
    refuse(
      words,
      `${word} is not available: it is not a ${command} flag pterm reads (${what} --lines/--numbers).`,
      readLine(shown, { kind: "range", from: 1, to: Infinity }, command === "cat" && /n/.test(word)),
    );
  }
  return out;
}

function rewriteSed(words: readonly string[]): string[] {
  const rest = words.slice(1);
  if (rest.includes("--help") || rest.includes("-h")) return [...words];
  const quiet = rest.filter((w) => w === "-n" || w === "--quiet" || w === "--silent").length > 0;
  const others = rest.filter((w) => w !== "-n" && w !== "--quiet" && w !== "--silent");
  const flag = others.find((w) => w.startsWith("-") && w !== "-");
  const [script, ...paths] = others.filter((w) => !w.startsWith("-") || w === "-");
  const shown = paths.length ? paths : ["<file>"];
  if (flag !== undefined && /^(-i|--in-place)/.test(flag)) {
    refuse(
      words,
      "-i edits a file in place; pterm changes files with patch (exact text blocks, all or nothing).",
      "patch --help",
    );
  }
  const selection = script === undefined ? null : sedSelection(script);
  if (flag !== undefined || !quiet || selection === null || paths.length === 0) {
    const regex = script === undefined ? null : /^\/((?:[^/\\]|\\.)+)\/p$/.exec(script.trim());
    if (quiet && regex && paths.length) {
      refuse(
        words,
        "a /pattern/p script prints the lines matching a pattern; that is grep.",
        `grep -n ${quoteWord(regex[1])} ${paths.map(quoteWord).join(" ")}`,
      );
    }
    refuse(
      words,
      "this is not a form pterm reads: sed here only prints a range of lines (sed -n 'A,Bp' <file>), the same as read <file> --lines A:B.",
      readLine(shown, selection ?? { kind: "range", from: 1, to: Infinity }),
    );
  }
  return [...words];
}

/** `ls -1` (one name a line) is what pterm's ls always prints: the flag is dropped from its cluster. */
function rewriteLs(words: readonly string[]): string[] {
  return words.flatMap((word, i) => {
    if (i === 0 || !/^-[A-Za-z1]*1[A-Za-z1]*$/.test(word)) return [word];
    const rest = word.replaceAll("1", "");
    return rest === "-" ? [] : [rest];
  });
}

const FIND_TESTS = new Set(["-name", "-iname", "-path", "-wholename", "-type", "-maxdepth", "-mindepth"]);
const FIND_ACTIONS = new Set([
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-delete",
  "-fprint",
  "-fprint0",
  "-fprintf",
  "-fls",
  "-print0",
  "-printf",
  "-ls",
]);

/**
 * findutils' single-dash words (`-name`, `-type`) as pterm's flags; `-print` is what find always
 * does; actions that run, delete or write, and operators, are refused with the line that lists.
 */
function rewriteFind(words: readonly string[]): string[] {
  const out = [words[0]];
  // The same find without its action: every word before the first one.
  const listing = () => words.slice(0, words.findIndex((w) => FIND_ACTIONS.has(w))).map(quoteWord).join(" ");
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word === "--help" || word === "-h") return [...words];
    if (FIND_TESTS.has(word)) {
      out.push(`-${word}`, words[++i] ?? "");
      continue;
    }
    if (word === "-print") continue;
    if (FIND_ACTIONS.has(word)) {
      refuse(
        words,
        `${word} is not available: find here only lists paths (${word} would run, delete or write); ` +
          "read files with read, change them with patch.",
        listing(),
      );
    }
    if (
      /^(-o|-or|-a|-and|-not|!|\(|\)|\\\(|\\\))$/.test(word) ||
      (word.startsWith("-") && word.length > 1 && !word.startsWith("--"))
    ) {
      refuse(
        words,
        `${word} is not available: find here takes -name, -iname, -path, -type f|d|l, -maxdepth and -mindepth, ` +
          "combined with AND; run one find per alternative.",
        "find --help",
      );
    }
    out.push(word);
  }
  return out;
}

export const fileSpellings: SpellingRewriter = {
  rewrite(words) {
    if (words[0] === "sed") return rewriteSed(words);
    if (words[0] === "ls") return rewriteLs(words);
    if (words[0] === "find") return rewriteFind(words);
    return rewriteLineTool(words);
  },
};
