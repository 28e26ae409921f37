/**
 * `read` and its habitual spellings `cat`, `head`, `tail`, `sed -n 'A,Bp'`: one way to print
 * lines of files, so each spelling prints exactly what `read` with the same range prints.
 */

import type { CommandContext } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { loadText, named, splitLines } from "../visible.ts";

/** Which lines to print: a 1-based inclusive range, or a count from the end. */
export type Selection =
  | { readonly kind: "range"; readonly from: number; readonly to: number }
  /** `tail -n N`: the last N lines. */
  | { readonly kind: "last"; readonly count: number }
  /** `head -n -N`: all but the last N lines. */
  | { readonly kind: "allBut"; readonly count: number };

const ALL: Selection = { kind: "range", from: 1, to: Infinity };

interface FileShown {
  path: string;
  lines: number;
  bytes: number;
  from: number;
  to: number;
}

function pick(lines: readonly string[], selection: Selection): { from: number; shown: string[] } {
  if (selection.kind === "last") {
    const from = Math.max(0, lines.length - selection.count);
    return { from: from + 1, shown: lines.slice(from) };
  }
  if (selection.kind === "allBut") {
    return { from: 1, shown: lines.slice(0, Math.max(0, lines.length - selection.count)) };
  }
  const to = Math.min(selection.to, lines.length);
  return { from: selection.from, shown: selection.from > to ? [] : lines.slice(selection.from - 1, to) };
}

/** `cat -n`'s numbering: the number right-aligned in six columns, a tab, the line. */
function numbered(shown: readonly string[], from: number): string {
  return shown.map((line, i) => `${String(from + i).padStart(6)}\t${line}`).join("");
}

/** The `read` line that prints the same thing: what every refused spelling suggests. */
export function readLine(paths: readonly string[], selection: Selection, numbers = false): string {
  const words = ["read", ...paths.map(quoteWord)];
  if (selection.kind === "range" && !(selection.from === 1 && selection.to === Infinity)) {
    words.push("--lines", `${selection.from}:${selection.to === Infinity ? "" : selection.to}`);
  }
  if (selection.kind === "last") words.push("--lines", `-${selection.count}:`);
  if (numbers) words.push("--numbers");
  return words.join(" ");
}

const DOCUMENT = /\.(pdf|docx|xlsx|pptx)$/i;

/**
 * Prints the selected lines of files. `stream` (cat, sed) reads the files as one input, as those
 * tools do (`cat -n a b` numbers on across files, `sed -n 2,3p a b` counts lines over both);
 * otherwise (head, tail) each file is selected alone, with `==> name <==` before each when there are
 * several, as GNU does. Folders, documents and binary files fail the call before anything is printed.
 */
export function printLines(
  ctx: CommandContext,
  command: string,
  paths: readonly string[],
  selection: Selection,
  options: { numbers?: boolean; headers?: boolean; stream?: "text" | "lines" } = {},
): Promise<Record<string, unknown>> {
  const loaded = paths.map((path) => {
    const file = named(ctx.workspace.root, path, command);
    if (file.info.isDirectory) {
      throw new PtermError(
        "InvalidPath",
        `${command}: ${path}: Is a directory. List it with \`ls ${quoteWord(path)}\`.`,
      );
    }
    const { text, binary, bytes } = loadText(file.abs, path, command);
    // A document (PDF, Office) is a container, not text: its text comes from `doc extract`.
    const document = DOCUMENT.test(path) && (binary || text.startsWith("%PDF-") || text.startsWith("PK\u0003\u0004"));
    if (document) {
      throw new PtermError(
        "UnsupportedFormat",
        `${command}: ${path} is a document (${bytes} bytes), not text. Read its text with \`doc extract ${
          quoteWord(path)
        }\`.`,
      );
    }
    if (binary) {
      throw new PtermError(
        "UnsupportedFormat",
        `${command}: ${path}: binary file (${bytes} bytes, holds NUL bytes); it is not printed as text. ` +
          `Its size: \`wc -c ${quoteWord(path)}\`.`,
      );
    }
    return { rel: file.rel, path, text, bytes, lines: splitLines(text).length };
  });
  const files: FileShown[] = [];
  if (options.stream) {
    // cat joins the bytes (a last line without its newline runs into the next file's first);
    // sed reads each file's lines, and ends a line that lacked its newline only when more follows.
    const all = options.stream === "text"
      ? splitLines(loaded.map((f) => f.text).join(""))
      : loaded.flatMap((f) => splitLines(f.text));
    const { from, shown } = pick(all, selection);
    const ended = options.stream === "lines"
      ? shown.map((line, i) => (i < shown.length - 1 && !line.endsWith("\n") ? `${line}\n` : line))
      : shown;
    ctx.stdout.write(options.numbers ? numbered(ended, from) : ended.join(""));
    // Each file's part of what was printed, in its own line numbers.
    let before = 0;
    const to = from + shown.length - 1;
    for (const file of loaded) {
      const first = Math.max(from, before + 1);
      const last = Math.min(to, before + file.lines);
      files.push({
        path: file.rel,
        lines: file.lines,
        bytes: file.bytes,
        from: first - before,
        to: Math.max(first - 1, last) - before,
      });
      before += file.lines;
    }
    return Promise.resolve({ files });
  }
  loaded.forEach((file, index) => {
    const lines = splitLines(file.text);
    const { from, shown } = pick(lines, selection);
    if (options.headers && paths.length > 1) ctx.stdout.write(`${index > 0 ? "\n" : ""}==> ${file.path} <==\n`);
    ctx.stdout.write(options.numbers ? numbered(shown, from) : shown.join(""));
    files.push({ path: file.rel, lines: lines.length, bytes: file.bytes, from, to: from + shown.length - 1 });
  });
  return Promise.resolve({ files });
}

/** `--lines A:B`, `A:`, `:B`, `A`, `-N:` (the last N): the selection, or an error naming the forms. */
export function parseLines(command: string, spec: string | undefined): Selection {
  if (spec === undefined) return ALL;
  const last = /^-(\d+):?$/.exec(spec);
  if (last) return { kind: "last", count: Number(last[1]) };
  const match = /^(\d*)(?:[:,](\d*))?$/.exec(spec);
  if (match && spec !== "" && spec !== ":" && spec !== ",") {
    const from = match[1] === "" ? 1 : Number(match[1]);
    const to = match[2] === undefined ? from : match[2] === "" ? Infinity : Number(match[2]);
    if (from >= 1) return { kind: "range", from, to };
  }
  throw new PtermError(
    "InvalidArgs",
    `${command}: --lines takes A:B (lines A to B, from 1), A: (A to the end), :B, A (one line) or -N: (the last N), ` +
      `not \`${spec}\`; e.g. \`read notes.txt --lines 1:40\`.`,
    { helpFor: command },
  );
}

/** A line count as `head`/`tail -n` take it: `N`, `-N` (head: all but the last N) or `+N` (tail: from line N). */
export function parseCount(
  command: string,
  raw: string,
  paths: readonly string[],
): { sign: "" | "-" | "+"; count: number } {
  const match = /^([+-]?)(\d+)$/.exec(raw);
  if (!match) {
    throw new PtermError(
      "InvalidArgs",
      `${command}: invalid number of lines: '${raw}'; e.g. \`${
        [command, "-n", "20", ...paths.map(quoteWord)].join(" ")
      }\`.`,
      { helpFor: command },
    );
  }
  return { sign: match[1] as "" | "-" | "+", count: Number(match[2]) };
}
