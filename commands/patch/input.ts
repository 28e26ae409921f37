/**
 * The patch formats `patch apply` / `patch check` read on stdin (or --file), told apart by their
 * text: pterm's XGit blocks, a plain unified diff (`git diff` / `diff -u` output, in a fence or
 * not), and codex's `*** Begin Patch` format. The last two become XGit blocks, so every format
 * runs through the same engine: all or nothing, one commit.
 */

import { isCodexPatch } from "./codex.ts";

export const INPUT_FORMATS = ["xgit", "unified_diff", "codex_patch"] as const;
export type InputFormat = typeof INPUT_FORMATS[number];

/** How an XGit patch starts: a header field or a block header (see format.ts). */
const XGIT_START = /^\s*(?:(?:repo|commitmsg|author)\s*:|===\s*[A-Za-z][\w.-]*\s*(?::.*)?===\s*$)/i;
const FENCE = /^\s*(```|~~~)/;

/**
 * Codex's `*** Begin Patch` first line makes a codex patch; XGit's first line (a header field or a
 * block) makes XGit; otherwise `diff --git` headers, or `---`/`+++` file headers with `@@` hunks,
 * make a unified diff. Anything else is read as XGit, whose parser says what it expected. Only the
 * first line decides for XGit: a diff may well hold `===` lines (a diff of an XGit patch, a
 * Markdown underline), and then its lines start with a space, `+` or `-`.
 */
export function detectInputFormat(text: string): InputFormat {
  if (isCodexPatch(text)) return "codex_patch";
  const first = text.split("\n").find((l) => l.trim() !== "" && !FENCE.test(l)) ?? "";
  if (XGIT_START.test(first)) return "xgit";
  const gitHeader = /^diff --git /m.test(text);
  const fileHeaders = /^--- \S/m.test(text) && /^\+\+\+ \S/m.test(text) && /^@@ /m.test(text);
  // A line starting `===` is no diff line and could end the git.diff block early: read as XGit, refused there.
  return (gitHeader || fileHeaders) && !/^===/m.test(text) ? "unified_diff" : "xgit";
}

/**
 * A unified diff as one `git.diff` block (and the 1-based lines of the diff left out of it): git.diff already reads diffs as `git diff` and models
 * write them (several files, renames, fences and prose around them). No line starts with `===`
 * (detectInputFormat sees to it), so none can end the block early. A diff sent with CRLF line breaks (its `diff --git`/`---`/`+++`/`@@` lines end with
 * `\r`) loses one `\r` per line, as an XGit patch does; a diff of a CRLF file sent with LF keeps
 * its `\r`s as content.
 */
export function wrapUnifiedDiff(text: string): { text: string; dropped: number[] } {
  let lines = text.replace(/\n+$/, "").split("\n");
  const headers = lines.filter((l) => /^(diff --git |--- |\+\+\+ |@@ )/.test(l));
  if (headers.filter((l) => l.endsWith("\r")).length * 2 > headers.length) {
    lines = lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  }
  const dropped: number[] = [];
  if (!lines.some((l) => l.startsWith("diff --git "))) lines = gnuHeadersAsGit(lines, dropped);
  return { text: `=== git.diff ===\n${lines.join("\n")}\n=== end ===\n=== PATCH EOF ===\n`, dropped };
}

/** GNU diff's stamp for a file that does not exist (`diff -N`): the epoch, in any time zone. */
const EPOCH = /\t19(?:70-01-01|69-12-31) \d\d:\d\d:\d\d(?:\.0+)? [+-]\d{4}$/;
/** The command line `diff -ruN old/x new/x` that GNU `diff -r` writes before each file. */
const GNU_COMMAND = /^diff (?:-{1,2}[\w-]+(?:=\S+)? )+\S+ \S+$/;

/**
 * `diff -ruN old new` output read the way `patch -p1` reads it: its per-file command lines go,
 * `old/x` and `new/x` after such a line become the file `x` (only when the two names differ in
 * their first folder and nowhere else; a lone `--- old/x` / `+++ new/x` stays as git.diff reads it), and a side stamped with the epoch (a file `diff -N` treated as empty
 * because it does not exist) is `/dev/null`. Only a `---` line followed by `+++` and a hunk is a
 * file header: a removed line `-- comment` is not touched.
 */
function gnuHeadersAsGit(lines: readonly string[], dropped: number[]): string[] {
  const out: string[] = [];
  // Only after `diff -r…`'s own command line are the names known to be relative to two folders.
  let recursive = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (GNU_COMMAND.test(line) && lines[i + 1]?.startsWith("--- ")) {
      recursive = true;
      dropped.push(i + 1);
      continue;
    }
    const next = lines[i + 1];
    if (!line.startsWith("--- ") || !next?.startsWith("+++ ") || !(lines[i + 2] ?? "").startsWith("@@")) {
      out.push(line);
      continue;
    }
    const side = (header: string) => {
      const raw = header.slice(4);
      const name = raw.split("\t")[0];
      return { name, absent: EPOCH.test(raw) };
    };
    const old = side(line);
    const neu = side(next);
    let oldName = old.name;
    let newName = neu.name;
    const [oldTop, ...oldRest] = oldName.split("/");
    const [newTop, ...newRest] = newName.split("/");
    if (recursive && oldRest.length && oldTop !== newTop && oldRest.join("/") === newRest.join("/")) {
      oldName = `a/${oldRest.join("/")}`;
      newName = `b/${newRest.join("/")}`;
    }
    out.push(`--- ${old.absent ? "/dev/null" : oldName}`, `+++ ${neu.absent ? "/dev/null" : newName}`);
    recursive = false;
    i++;
  }
  return out;
}
