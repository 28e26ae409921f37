/**
 * The `*** Begin Patch` format that codex-style agents emit (openai/codex's `apply_patch`), read
 * and turned into the equivalent XGit blocks, so that it runs through the same engine: all or
 * nothing, one commit.
 *
 *     *** Begin Patch
 *     *** Add File: <path>          every following `+` line is the new file's content
 *     *** Delete File: <path>
 *     *** Update File: <path>
 *     *** Move to: <path>           optional, right after Update File: rename as well
 *     @@ <anchor>                   optional: the chunk is searched below this line
 *      context / -removed / +added  lines of a chunk; several chunks per file, in file order
 *     *** End of File               optional: the chunk's old lines end the file
 *     *** End Patch
 *
 * Where a chunk goes follows codex's rules: an `@@ <anchor>` line is found (from the position of
 * the previous chunk on), then the chunk's old lines are found below it, first exactly, then
 * ignoring trailing whitespace, then all surrounding whitespace, then typographic punctuation.
 * Two things are stricter than codex, because a wrong place is worse than a refusal: a first
 * chunk with no anchor whose old lines occur more than once is refused (AmbiguousMatch; codex
 * takes the first), and `@@ <anchor>` with only `+` lines inserts right below the anchor (codex
 * appends those at the end of the file whatever the anchor says). The file's own lines become
 * the context and removed lines of an exact unified diff (a `git.diff` block) with the line
 * numbers found here, which the engine's `exact` strategy applies as they are. As in codex, a
 * CRLF file is compared without its `\r`s and keeps CRLF for added lines, kept context lines keep
 * the file's text, and an updated file ends with a line break. A unified-diff hunk header
 * (`@@ -1,3 +1,4 @@`) where codex wants `@@` is read as a bare `@@`. scripts/codex_differential.ts
 * compares all this with the real `apply_patch`.
 */

import { closestRegion, divergedText } from "./diff.ts";
import type { Problem } from "./errors.ts";

/** A line of a chunk: context (` `), removed (`-`) or added (`+`). */
export interface ChunkLine {
  readonly kind: " " | "-" | "+";
  readonly text: string;
}

export interface CodexChunk {
  readonly anchor: string | null;
  readonly lines: readonly ChunkLine[];
  readonly endOfFile: boolean;
  /** 1-based line of the chunk in the patch. */
  readonly line: number;
}

export type CodexSection =
  | { readonly kind: "add"; readonly path: string; readonly lines: readonly string[]; readonly line: number }
  | { readonly kind: "delete"; readonly path: string; readonly line: number }
  | {
    readonly kind: "update";
    readonly path: string;
    readonly moveTo: string | null;
    readonly chunks: readonly CodexChunk[];
    readonly line: number;
  };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File:";
const DELETE = "*** Delete File:";
const UPDATE = "*** Update File:";
const MOVE = "*** Move to:";
const END_OF_FILE = "*** End of File";
const FENCE = /^\s*(```|~~~)/;
const UNIFIED_HUNK = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/;
const HEREDOC_OPEN = /^(?:apply_patch\s*)?<<\s*['"]?(\w+)['"]?\s*$/;

interface Line {
  readonly text: string;
  readonly line: number;
}

/** The patch's lines without an outer code fence or heredoc (`<<'EOF'` … `EOF`) around them. */
function unwrapped(text: string): Line[] {
  let lines = text.split("\n").map((t, i) => ({ text: t.endsWith("\r") ? t.slice(0, -1) : t, line: i + 1 }));
  for (;;) {
    const used = lines.filter((l) => l.text.trim() !== "");
    if (used.length < 2) return used;
    const first = used[0];
    const last = used[used.length - 1];
    const heredoc = HEREDOC_OPEN.exec(first.text.trim());
    if ((FENCE.test(first.text) && FENCE.test(last.text)) || (heredoc && last.text.trim() === heredoc[1])) {
      lines = lines.slice(lines.indexOf(first) + 1, lines.indexOf(last));
      continue;
    }
    return lines.slice(lines.indexOf(first), lines.indexOf(last) + 1);
  }
}

/**
 * Whether `text` is meant as a codex patch: it has a `*** Begin Patch` line (the parser then
 * insists that it comes first, inside a fence or heredoc at most) and no XGit block.
 */
export function isCodexPatch(text: string): boolean {
  // A line that is `*** Begin Patch` once trimmed holds it: text without it is no codex patch.
  if (!text.includes(BEGIN)) return false;
  const lines = unwrapped(text);
  if (lines.length > 0 && lines[0].text.trim() === BEGIN) return true;
  return lines.some((l) => l.text.trim() === BEGIN) && !lines.some((l) => /^===.*===\s*$/.test(l.text.trim()));
}

export class CodexParseError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

function markerValue(text: string, marker: string): string | null {
  const t = text.trim();
  if (!t.startsWith(marker)) return null;
  return t.slice(marker.length).trim();
}

/** Parses a codex patch into its file sections; the first mistake throws (with its line). */
export function parseCodexPatch(text: string): CodexSection[] {
  const lines = unwrapped(text);
  if (lines.length === 0 || lines[0].text.trim() !== BEGIN) {
    const begin = lines.find((l) => l.text.trim() === BEGIN);
    throw new CodexParseError(
      lines[0]?.line ?? 1,
      begin
        ? `the patch must start with \`${BEGIN}\` (line ${begin.line}); remove the text before it`
        : `the first line must be \`${BEGIN}\``,
    );
  }
  const last = lines[lines.length - 1];
  if (lines.length < 2 || last.text.trim() !== END) {
    throw new CodexParseError(
      last.line,
      `the last line must be \`${END}\`; it is missing, so the patch may have been cut off`,
    );
  }
  const body = lines.slice(1, -1);
  const sections: CodexSection[] = [];
  let i = 0;
  const path = (value: string, at: Line, marker: string) => {
    if (value === "") throw new CodexParseError(at.line, `\`${marker}\` needs a path: \`${marker} src/app.py\``);
    return value;
  };
  while (i < body.length) {
    const at = body[i];
    if (at.text.trim() === "") {
      i++;
      continue;
    }
    const add = markerValue(at.text, ADD);
    const del = markerValue(at.text, DELETE);
    const update = markerValue(at.text, UPDATE);
    if (add !== null) {
      const content: string[] = [];
      i++;
      while (i < body.length && body[i].text.startsWith("+")) content.push(body[i++].text.slice(1));
      sections.push({ kind: "add", path: path(add, at, ADD), lines: content, line: at.line });
      continue;
    }
    if (del !== null) {
      sections.push({ kind: "delete", path: path(del, at, DELETE), line: at.line });
      i++;
      continue;
    }
    if (update !== null) {
      i++;
      let moveTo: string | null = null;
      const move = i < body.length ? markerValue(body[i].text, MOVE) : null;
      if (move !== null) {
        moveTo = path(move, body[i], MOVE);
        i++;
      }
      const chunks: CodexChunk[] = [];
      while (i < body.length) {
        const t = body[i].text;
        if (t.trim() === "" && chunks.length > 0) {
          i++;
          continue;
        }
        if (t.startsWith("*")) break;
        const parsed = parseChunk(body, i, chunks.length === 0);
        chunks.push(parsed.chunk);
        i = parsed.next;
      }
      if (chunks.length === 0) {
        throw new CodexParseError(
          at.line,
          `\`${UPDATE} ${update}\` has no changes; add \`@@\` and \` \`/\`-\`/\`+\` lines, or remove the section`,
        );
      }
      sections.push({ kind: "update", path: path(update, at, UPDATE), moveTo, chunks, line: at.line });
      continue;
    }
    throw new CodexParseError(
      at.line,
      `expected \`${ADD} <path>\`, \`${DELETE} <path>\`, \`${UPDATE} <path>\` or \`${END}\`, found \`${
        at.text.length > 80 ? at.text.slice(0, 80) + "…" : at.text
      }\``,
    );
  }
  if (sections.length === 0) throw new CodexParseError(lines[0].line, "the patch changes no file");
  return sections;
}

function parseChunk(body: readonly Line[], start: number, first: boolean): { chunk: CodexChunk; next: number } {
  let i = start;
  let anchor: string | null = null;
  const head = body[i].text;
  // A unified-diff hunk header (`@@ -12,7 +12,8 @@ def f():`) written where codex wants `@@`: its numbers
  // and git's function text are hints, not a line of the file; the chunk is found by its own lines.
  if (head.trim() === "@@" || UNIFIED_HUNK.test(head)) i++;
  else if (head.startsWith("@@ ")) {
    anchor = head.slice(3);
    i++;
  } else if (!first) {
    throw new CodexParseError(body[i].line, `expected \`@@\` to start the next chunk, found \`${head}\``);
  }
  const lines: ChunkLine[] = [];
  let endOfFile = false;
  let count = 0;
  for (; i < body.length; i++) {
    const t = body[i].text;
    if (t.trim() === END_OF_FILE) {
      endOfFile = true;
      i++;
      break;
    }
    const kind = t[0];
    if (t === "") lines.push({ kind: " ", text: "" });
    else if (kind === " " || kind === "-" || kind === "+") lines.push({ kind, text: t.slice(1) });
    else if (count === 0) {
      throw new CodexParseError(
        body[i].line,
        `every line of a chunk starts with \` \` (context), \`-\` (removed) or \`+\` (added); found \`${t}\``,
      );
    } else break;
    count++;
  }
  if (count === 0) throw new CodexParseError(body[start].line, "a chunk without lines; remove its `@@` line");
  return { chunk: { anchor, lines, endOfFile, line: body[start].line }, next: i };
}

// ---- placing chunks ---------------------------------------------------------------------------

const PUNCTUATION: Record<string, string> = {
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u00A0": " ",
  "\u202F": " ",
  "\u3000": " ",
};

/** The comparisons codex tries, strictest first. */
const LEVELS: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => s.trimEnd(),
  (s) => s.trim(),
  (s) =>
    s.trim().replace(
      /[\u2010-\u2015\u2212\u2018-\u201F\u00A0\u202F\u3000\u2002-\u200A\u205F]/g,
      (c) => PUNCTUATION[c] ?? " ",
    ),
];

/**
 * Every start at or after `from` where `pattern` matches, at the strictest level that matches
 * anywhere. `bare` is the file's lines as compared: without the `\r` of a CRLF file, as codex
 * compares them (it reads such a file with its line breaks normalised).
 */
function findAll(bare: readonly string[], pattern: readonly string[], from: number, endOfFile: boolean): number[] {
  if (pattern.length > bare.length) return [];
  const last = bare.length - pattern.length;
  // A chunk that ends the file has one place, and only if that is below the previous chunk.
  const starts = endOfFile
    ? (last >= from ? [last] : [])
    : Array.from({ length: Math.max(0, last - from + 1) }, (_, k) => from + k);
  for (const norm of LEVELS) {
    const wanted = pattern.map(norm);
    const found = starts.filter((s) => wanted.every((w, k) => norm(bare[s + k]) === w));
    if (found.length) return found;
  }
  return [];
}

/** Lines of the file from `start` on, as kept (` `, the file's own text), removed (`-`) and added (`+`). */
interface Replacement {
  readonly start: number;
  readonly lines: readonly ChunkLine[];
}

const oldLength = (r: Replacement) => r.lines.filter((l) => l.kind !== "+").length;
const newSide = (r: Replacement) => r.lines.filter((l) => l.kind !== "-").map((l) => l.text);

export class PlacementError extends Error {
  constructor(
    readonly code: "NoMatch" | "AmbiguousMatch" | "AlreadyApplied",
    readonly line: number,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Whether `pattern` stands in `bare` at `start`, exactly (trailing whitespace aside). */
function standsAt(bare: readonly string[], pattern: readonly string[], start: number): boolean {
  if (pattern.length === 0 || start < 0 || start + pattern.length > bare.length) return false;
  return pattern.every((p, k) => bare[start + k].trimEnd() === p.trimEnd());
}

/** The AlreadyApplied refusal of a chunk whose added lines already stand where it would put them. */
function alreadyApplied(chunk: CodexChunk, line: number): PlacementError {
  return new PlacementError(
    "AlreadyApplied",
    chunk.line,
    `the chunk is already applied: its result stands at line ${line} of the file (the patch ran before, or the ` +
      "change was made by hand); applying it again would repeat its lines",
    { line },
  );
}

/**
 * Codex's second try for a chunk whose last old-side line is empty (it often stands for the file's
 * final line break): that line leaves the old side, and the new side loses its own last line if
 * that is empty. Null when the chunk has no such line.
 */
function withoutTrailingBlank(lines: readonly ChunkLine[]): ChunkLine[] | null {
  const lastOld = lines.findLastIndex((l) => l.kind !== "+");
  if (lastOld < 0 || lines[lastOld].text !== "") return null;
  const lastNew = lines.findLastIndex((l) => l.kind !== "-");
  const newEndsBlank = lastNew >= 0 && lines[lastNew].text === "";
  const out = [...lines];
  if (lines[lastOld].kind === " " && !(newEndsBlank && lastNew === lastOld)) {
    // Kept on the new side only: it becomes an added line.
    out[lastOld] = { kind: "+", text: "" };
    if (newEndsBlank) out.splice(lastNew, 1);
    return out;
  }
  // Highest index first, so the other stays where it is.
  const drop = newEndsBlank && lastNew !== lastOld ? [lastOld, lastNew] : [lastOld];
  for (const index of drop.sort((a, b) => b - a)) out.splice(index, 1);
  return out;
}

/**
 * Where each chunk of an Update goes in `file` (its lines without the final line break): the
 * replacements, whose kept context lines are the file's own (as codex keeps them) and whose added
 * lines take the file's line ending.
 */
function placeChunks(
  file: readonly string[],
  chunks: readonly CodexChunk[],
  crlf: boolean,
  finalNewline: boolean,
  reapply: boolean,
): Replacement[] {
  const bare = crlf ? file.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l)) : file;
  const out: Replacement[] = [];
  let cursor = 0;
  const withEol = (l: string) => (crlf && !l.endsWith("\r") ? l + "\r" : l);
  // The file's last line gets a line break in the result (as codex ends every updated file with one).
  const kept = (index: number): ChunkLine[] =>
    index === file.length - 1 && !finalNewline
      ? [{ kind: "-", text: file[index] }, { kind: "+", text: withEol(file[index]) }]
      : [{ kind: " ", text: file[index] }];
  for (const chunk of chunks) {
    if (chunk.anchor !== null) {
      const at = findAll(bare, [chunk.anchor], cursor, false);
      if (!at.length) {
        throw new PlacementError(
          "NoMatch",
          chunk.line,
          `the anchor \`@@ ${chunk.anchor}\` is not a line of the file${cursor ? " below the previous chunk" : ""}`,
        );
      }
      cursor = at[0] + 1;
    }
    let lines = chunk.lines;
    const oldOf = (ls: readonly ChunkLine[]) => ls.filter((l) => l.kind !== "+").map((l) => l.text);
    if (oldOf(lines).length === 0) {
      // Only added lines: below the anchor, or at the end of the file.
      const start = chunk.anchor !== null && !chunk.endOfFile ? cursor : file.length;
      const added = lines.map((l) => l.text);
      const already = start === file.length ? file.length - added.length : start;
      if (!reapply && standsAt(bare, added, already)) throw alreadyApplied(chunk, already + 1);
      out.push({ start, lines: lines.map((l) => ({ kind: "+", text: withEol(l.text) })) });
      cursor = start;
      continue;
    }
    let found = findAll(bare, oldOf(lines), cursor, chunk.endOfFile);
    const trimmed = found.length ? null : withoutTrailingBlank(lines);
    if (trimmed) {
      lines = trimmed;
      found = oldOf(lines).length ? findAll(bare, oldOf(lines), cursor, chunk.endOfFile) : [cursor];
    }
    const newOf = (ls: readonly ChunkLine[]) => ls.filter((l) => l.kind !== "-").map((l) => l.text);
    const changes = chunk.lines.some((l) => l.kind !== " ");
    if (!found.length && !reapply && changes && newOf(chunk.lines).length) {
      // The old side is nowhere; the new side where the chunk would go: the patch ran before.
      const result = findAll(bare, newOf(chunk.lines), cursor, chunk.endOfFile);
      if (result.length) throw alreadyApplied(chunk, result[0] + 1);
    }
    if (found.length && !reapply && lines.some((l) => l.kind === "+") && !lines.some((l) => l.kind === "-")) {
      // The old side found, and the new side right there too (a chunk of context and added lines
      // only, with nothing after them to tell): applying it would repeat the added lines.
      if (found.every((s) => standsAt(bare, newOf(lines), s))) throw alreadyApplied(chunk, found[0] + 1);
    }
    if (!found.length) {
      const first = oldOf(chunk.lines).find((l) => l.trim() !== "") ?? "";
      const closest = closestRegion(bare, oldOf(chunk.lines), cursor);
      throw new PlacementError(
        "NoMatch",
        chunk.line,
        `the chunk's ${oldOf(chunk.lines).length} context/removed line(s) (starting \`${
          first.trim().slice(0, 60)
        }\`) ` +
          `are not in the file${chunk.endOfFile ? " at its end (`*** End of File`)" : ""}${
            cursor ? " below the previous chunk or anchor" : ""
          }${
            closest
              ? `; the closest place is line ${closest.line} (similarity ${closest.similarity})${
                divergedText(closest.diverged)
              }`
              : ""
          }; read the file again and copy its lines exactly`,
        { closest },
      );
    }
    if (found.length > 1 && chunk.anchor === null && cursor === 0) {
      throw new PlacementError(
        "AmbiguousMatch",
        chunk.line,
        `the chunk's lines occur ${found.length} times (at lines ${found.slice(0, 5).map((s) => s + 1).join(", ")}` +
          `${found.length > 5 ? ", …" : ""}); add an \`@@ <line>\` anchor naming a line above the right one ` +
          "(e.g. its function's `def`/`function` line), or more context lines",
      );
    }
    const start = found[0];
    const replacement: ChunkLine[] = [];
    let index = start;
    for (const line of lines) {
      if (line.kind === "+") replacement.push({ kind: "+", text: withEol(line.text) });
      else if (line.kind === " ") replacement.push(...kept(index++));
      else replacement.push({ kind: "-", text: file[index++] });
    }
    out.push({ start, lines: replacement });
    cursor = index;
  }
  const sorted = out.sort((a, b) => a.start - b.start || oldLength(a) - oldLength(b));
  for (let k = 1; k < sorted.length; k++) {
    // Chunks are found below one another, so they cannot overlap; were they to, no diff could say it.
    if (sorted[k].start < sorted[k - 1].start + oldLength(sorted[k - 1])) {
      throw new PlacementError(
        "AmbiguousMatch",
        chunks[0].line,
        `two chunks change the same lines (from line ${sorted[k].start + 1}); merge them into one chunk`,
      );
    }
  }
  return sorted;
}

// ---- the equivalent diff ----------------------------------------------------------------------

/** A path as `git diff` writes it: quoted when it holds a quote, a backslash or a control character. */
function diffPath(prefix: string, path: string): string {
  // deno-lint-ignore no-control-regex -- git quotes exactly these
  if (!/["\\\x00-\x1f\x7f]/.test(path)) return `${prefix}${path}`;
  // deno-lint-ignore no-control-regex -- git quotes exactly these
  const escaped = path.replace(/["\\]/g, (c) => `\\${c}`).replace(/[\x00-\x1f\x7f]/g, (c) => {
    const named: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
    return named[c] ?? `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`;
  });
  return `"${prefix}${escaped}"`;
}

const CONTEXT = 3;

/** Hunks turning `old` into `old` with `replacements` applied (exact line numbers, the file's own lines). */
function hunksFor(
  old: readonly string[],
  replacements: readonly Replacement[],
  oldHasFinalNewline: boolean,
): string[] {
  const out: string[] = [];
  let delta = 0;
  let r = 0;
  const endOf = (rep: Replacement) => rep.start + oldLength(rep);
  while (r < replacements.length) {
    // Group replacements whose context would touch.
    let end = r;
    while (end + 1 < replacements.length && replacements[end + 1].start - endOf(replacements[end]) <= 2 * CONTEXT) {
      end++;
    }
    const group = replacements.slice(r, end + 1);
    const from = Math.max(0, group[0].start - CONTEXT);
    const to = Math.min(old.length, endOf(group[group.length - 1]) + CONTEXT);
    const body: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    const noNewline = (index: number) => {
      if (index === old.length - 1 && !oldHasFinalNewline) body.push("\\ No newline at end of file");
    };
    let i = from;
    let g = 0;
    while (i < to || g < group.length) {
      const rep = group[g];
      if (rep && rep.start < i) throw new Error("codex: overlapping replacements reached the diff");
      if (rep && rep.start === i) {
        for (const line of rep.lines) {
          if (line.kind === "+") {
            body.push(`+${line.text}`);
            newCount++;
            continue;
          }
          body.push(`${line.kind}${old[i]}`);
          noNewline(i);
          oldCount++;
          if (line.kind === " ") newCount++;
          i++;
        }
        g++;
        continue;
      }
      if (i >= to) break;
      body.push(` ${old[i]}`);
      noNewline(i);
      oldCount++;
      newCount++;
      i++;
    }
    const oldStart = oldCount ? from + 1 : from;
    const newStart = newCount ? from + 1 + delta : from + delta;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...body);
    delta += newCount - oldCount;
    r = end + 1;
  }
  return out;
}

/** A file's text as lines without their `\n`, and whether it ends with one. */
function splitLines(text: string): { lines: string[]; finalNewline: boolean } {
  if (text === "") return { lines: [], finalNewline: true };
  const lines = text.split("\n");
  const finalNewline = lines[lines.length - 1] === "";
  if (finalNewline) lines.pop();
  return { lines, finalNewline };
}

/** What the conversion needs to know of the files: their text now (null: no such file). */
export type FileReader = (path: string) => Promise<string | null>;

export interface Conversion {
  /** The equivalent XGit patch. */
  readonly text: string;
  /** For each XGit block (1-based index - 1), the patch line of the codex section it comes from. */
  readonly sectionLines: readonly number[];
  readonly warnings: readonly string[];
  readonly problems: readonly Problem[];
}

function xgitQuoted(path: string): string {
  return `"${path}"`;
}

/**
 * The XGit blocks equivalent to `sections`, computed against the files as `read` returns them
 * (each section sees the files as the previous ones left them). Problems are collected, not
 * thrown: a failed conversion writes nothing.
 */
export async function codexToXGit(
  sections: readonly CodexSection[],
  read: FileReader,
  options: { readonly reapply?: boolean } = {},
): Promise<Conversion> {
  const files = new Map<string, string | null>();
  const current = async (path: string) => {
    if (!files.has(path)) files.set(path, await read(path));
    return files.get(path)!;
  };
  const blocks: string[] = [];
  const sectionLines: number[] = [];
  const warnings: string[] = [];
  const problems: Problem[] = [];
  const problem = (
    section: CodexSection,
    code: Problem["code"],
    message: string,
    line = section.line,
    details?: Record<string, unknown>,
  ) => {
    problems.push({
      code,
      message: `line ${line} (${section.kind} ${section.path}): ${message}`,
      block_index: null,
      op: null,
      path: section.path,
      patch_line: line,
      ...(details && Object.keys(details).length ? { details } : {}),
    });
  };
  const emit = (section: CodexSection, block: string) => {
    blocks.push(block);
    sectionLines.push(section.line);
  };

  for (const section of sections) {
    let existing: string | null;
    try {
      existing = await current(section.path);
    } catch (error) {
      problem(section, (error as { code?: Problem["code"] }).code ?? "PatchApplyError", (error as Error).message);
      continue;
    }
    if (section.kind === "add") {
      const content = section.lines.map((l) => l + "\n").join("");
      const header = [
        `diff --git ${diffPath("a/", section.path)} ${diffPath("b/", section.path)}`,
      ];
      let hunks: string[];
      if (existing === null) {
        header.push("new file mode 100644", "--- /dev/null", `+++ ${diffPath("b/", section.path)}`);
        hunks = section.lines.length
          ? [`@@ -0,0 +1,${section.lines.length} @@`, ...section.lines.map((l) => `+${l}`)]
          : [];
        if (!section.lines.length) header.splice(2);
      } else {
        warnings.push(
          `\`*** Add File: ${section.path}\` (line ${section.line}): the file existed; its content was replaced, as apply_patch does.`,
        );
        const old = splitLines(existing);
        header.push(`--- ${diffPath("a/", section.path)}`, `+++ ${diffPath("b/", section.path)}`);
        const replaced: ChunkLine[] = [
          ...old.lines.map((text) => ({ kind: "-" as const, text })),
          ...section.lines.map((text) => ({ kind: "+" as const, text })),
        ];
        hunks = hunksFor(old.lines, [{ start: 0, lines: replaced }], old.finalNewline);
        if (existing === content) hunks = [];
      }
      files.set(section.path, content);
      if (existing !== null && hunks.length === 0) continue;
      emit(section, `=== git.diff ===\n${[...header, ...hunks].join("\n")}\n=== end ===`);
      continue;
    }
    if (existing === null) {
      problem(
        section,
        "NotFound",
        `\`${section.path}\` does not exist (${
          section.kind === "delete" ? "nothing to delete" : "use `*** Add File:` to create it"
        })`,
      );
      continue;
    }
    if (section.kind === "delete") {
      files.set(section.path, null);
      emit(section, `=== file.delete: ${xgitQuoted(section.path)} ===\n=== end ===`);
      continue;
    }
    const old = splitLines(existing);
    // CRLF when most line breaks are (the last line of a file without a final line break has none).
    const broken = old.finalNewline ? old.lines : old.lines.slice(0, -1);
    const crlf = broken.length > 0 && broken.filter((l) => l.endsWith("\r")).length * 2 > broken.length;
    let replacements: Replacement[];
    try {
      replacements = placeChunks(old.lines, section.chunks, crlf, old.finalNewline, options.reapply === true);
    } catch (error) {
      if (!(error instanceof PlacementError)) throw error;
      problem(section, error.code, error.message, error.line, { file: section.path, ...error.details });
      continue;
    }
    if (!old.finalNewline && old.lines.length > 0) {
      // An updated file ends with a line break, as codex leaves it.
      const last = old.lines.length - 1;
      const covered = replacements.some((r) => r.start <= last && last < r.start + oldLength(r));
      const ending = crlf ? `${old.lines[last]}\r` : old.lines[last];
      if (!covered) {
        const lines: ChunkLine[] = [{ kind: "-", text: old.lines[last] }, { kind: "+", text: ending }];
        replacements = [...replacements, { start: last, lines }];
      }
    }
    const target = section.moveTo ?? section.path;
    const header = [`diff --git ${diffPath("a/", section.path)} ${diffPath("b/", target)}`];
    if (section.moveTo !== null && section.moveTo !== section.path) {
      let destination: string | null;
      try {
        destination = await current(section.moveTo);
      } catch (error) {
        problem(section, (error as { code?: Problem["code"] }).code ?? "PatchApplyError", (error as Error).message);
        continue;
      }
      if (destination !== null) {
        warnings.push(
          `\`*** Move to: ${section.moveTo}\` (line ${section.line}): the file there was replaced, as apply_patch does.`,
        );
        emit(section, `=== file.delete: ${xgitQuoted(section.moveTo)} ===\n=== end ===`);
      }
      header.push(`rename from ${diffPath("", section.path)}`, `rename to ${diffPath("", section.moveTo)}`);
    }
    header.push(`--- ${diffPath("a/", section.path)}`, `+++ ${diffPath("b/", target)}`);
    const hunks = hunksFor(old.lines, replacements, old.finalNewline);
    const next = [...old.lines];
    for (const r of [...replacements].reverse()) next.splice(r.start, oldLength(r), ...newSide(r));
    files.set(section.path, null);
    files.set(target, next.length ? next.join("\n") + "\n" : "");
    if (hunks.length === 0 && section.moveTo === null) continue;
    emit(section, `=== git.diff ===\n${[...header, ...hunks].join("\n")}\n=== end ===`);
  }
  return { text: `${blocks.join("\n")}\n=== PATCH EOF ===\n`, sectionLines, warnings, problems };
}
