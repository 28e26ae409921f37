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
 * A unified diff as one `git.diff` block: git.diff already reads diffs as `git diff` and models
 * write them (several files, renames, fences and prose around them). No line starts with `===`
 * (detectInputFormat sees to it), so none can end the block early. A diff sent with CRLF line breaks (its `diff --git`/`---`/`+++`/`@@` lines end with
 * `\r`) loses one `\r` per line, as an XGit patch does; a diff of a CRLF file sent with LF keeps
 * its `\r`s as content.
 */
export function wrapUnifiedDiff(text: string): string {
  let lines = text.replace(/\n+$/, "").split("\n");
  const headers = lines.filter((l) => /^(diff --git |--- |\+\+\+ |@@ )/.test(l));
  if (headers.filter((l) => l.endsWith("\r")).length * 2 > headers.length) {
    lines = lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  }
  return `=== git.diff ===\n${lines.join("\n")}\n=== end ===\n=== PATCH EOF ===\n`;
}
