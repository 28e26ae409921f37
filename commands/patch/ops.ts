/**
 * The file, line, block and diff instructions of the XGit patch protocol, applied to the virtual view. An
 * op either succeeds and updates the view, or throws before changing it.
 */

import { applyBinaryHunk, BinaryPatchError, blobId, blobIdSync } from "./binary.ts";
import {
  applyHunks,
  DiffParseError,
  divergedText,
  type FileDiff,
  HunkError,
  type HunkReport,
  parseDiff,
  reversedDiff,
} from "./diff.ts";
import { OpError } from "./errors.ts";
import type { Block, Param } from "./format.ts";
import { closestLines, keysAsGiven, locate, locateEnd, parseKeys, type Scope, wholeDoc } from "./keys.ts";
import { countChanges, TextDoc } from "./text.ts";
import { bytesOf, DEFAULT_FILE_MODE, type FileState, type View, ViewError } from "./view.ts";

export type BlockStatus =
  | "created"
  | "modified"
  | "deleted"
  | "moved"
  | "mode_changed"
  | "unchanged"
  | "reset"
  | "reverted"
  | "tagged"
  | "committed";

export interface BlockOutcome {
  readonly status: BlockStatus;
  readonly lines_added: number;
  readonly lines_removed: number;
  /** 1-based line of the file where a line or block op acted (before it changed the file). */
  readonly at_line?: number;
  /** Every file the block changed, for ops that can change several (folders, diffs, moves). */
  readonly files?: readonly string[];
  /** For git.diff: where and by which strategy each hunk applied. */
  readonly hunks?: readonly (HunkReport & { file: string })[];
  /**
   * For a diff applied as `git apply` does: what git apply says on stderr as it goes, in order
   * (`--3way`'s merges, its `error:` lines), and the files `--3way` left with conflicts.
   */
  readonly git_stderr?: readonly GitSaid[];
  readonly git_conflicts?: readonly string[];
  /** For git blocks: what git did. */
  readonly git?: {
    readonly head?: string;
    readonly commit_id?: string | null;
    readonly tag?: string;
    readonly target?: string;
  };
}

/** A line git apply says on stderr, and the patch line of the file's diff it is about. */
export interface GitSaid {
  readonly text: string;
  readonly at: number;
}

// ---- parameters -------------------------------------------------------------------------------

function param(block: Block, key: string): Param | undefined {
  return block.params.get(key);
}

function positiveInt(block: Block, key: string): number | undefined {
  const p = param(block, key);
  if (!p) return undefined;
  if (!/^\d+$/.test(p.value) || Number(p.value) < 1) {
    throw new OpError(
      "PatchParseError",
      `${key}=${p.value} must be a whole number from 1 (e.g. ${key}=2)`,
      { parameter: key, expected: "a positive whole number", found: p.value },
      p.line,
    );
  }
  return Number(p.value);
}

export function booleanParam(block: Block, key: string, fallback: boolean): boolean {
  const p = param(block, key);
  if (!p) return fallback;
  const v = p.value.toLowerCase();
  if (["true", "yes", "1", "on"].includes(v)) return true;
  if (["false", "no", "0", "off"].includes(v)) return false;
  throw new OpError(
    "PatchParseError",
    `${key}=${p.value} must be true or false`,
    { parameter: key, expected: "true or false", found: p.value },
    p.line,
  );
}

function keysParam(block: Block, key: string): string[] | undefined {
  const p = param(block, key);
  if (!p) return undefined;
  const keys = parseKeys(p.value);
  if (keys.length === 0) {
    throw new OpError(
      "PatchParseError",
      `${key} is empty; give text the line contains (alternatives separated by | or ,)`,
      { parameter: key },
      p.line,
    );
  }
  return keys;
}

/** Body lines as text for a file: the patch's own line breaks dropped. */
function body(block: Block): string[] {
  return block.body.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

function rejectSuspiciousBody(block: Block): void {
  const s = block.suspiciousFirstBodyLine;
  if (!s) return;
  throw new OpError(
    "PatchParseError",
    `the body starts with \`${s.key}=…\`, which looks like a misspelled parameter (did you mean \`${s.suggestion}\`?). ` +
      "If it really is text of the body, put one blank line between the parameters and the body.",
    { expected: `parameter ${s.suggestion}`, found: s.key },
    block.bodyLine,
  );
}

// ---- locating lines ---------------------------------------------------------------------------

function describeScope(doc: TextDoc, scope: Scope): string {
  if (scope.first === 0 && scope.last === doc.length - 1) return `the file (${doc.length} lines)`;
  return `lines ${scope.first + 1}–${scope.last + 1}`;
}

function showLine(doc: TextDoc, i: number): string {
  const text = doc.plain(i).trim();
  return `${i + 1}: \`${text.length > 70 ? text.slice(0, 70) + "…" : text}\``;
}

/** A keys location that must come down to one line: unique, or chosen by `pick` (`nthl`/`nthb`). */
function oneLine(
  doc: TextDoc,
  scope: Scope,
  keys: readonly string[],
  raw: string,
  keyParam: string,
  pickParam: "nthl" | "nthb",
  pick: number | undefined,
  patchLine: number,
): number {
  const found = locate(doc, scope, keys);
  const where = describeScope(doc, scope);
  if (found.kind === "none") {
    const given = keysAsGiven(raw);
    const closest = closestLines(doc, scope, keys);
    const hint = closest.length
      ? `; closest: ${closest.map((c) => `${c.line}: \`${c.text.trim()}\` (${c.similarity})`).join(", ")}`
      : doc.length === 0
      ? "; the file is empty"
      : "";
    throw new OpError(
      "NoMatch",
      `no line in ${where} contains ${given.map((k) => `\`${k}\``).join(" or ")} (${keyParam}, case and indentation ` +
        `ignored)${hint}`,
      { parameter: keyParam, keys: given, scope: { first_line: scope.first + 1, last_line: scope.last + 1 }, closest },
      patchLine,
    );
  }
  if (found.kind === "unique") {
    if (pick !== undefined && pick !== 1) {
      throw new OpError(
        "NoMatch",
        `${pickParam}=${pick} asks for match ${pick}, but ${keyParam} matches one line only (${
          showLine(doc, found.line)
        }); remove ${pickParam} or use ${pickParam}=1`,
        { parameter: pickParam, matches: [{ line: found.line + 1, text: doc.plain(found.line), [pickParam]: 1 }] },
        patchLine,
      );
    }
    return found.line;
  }
  const matches = found.lines.map((line, i) => ({ line: line + 1, text: doc.plain(line), [pickParam]: i + 1 }));
  if (pick !== undefined) {
    if (pick <= found.lines.length) return found.lines[pick - 1];
    throw new OpError(
      "NoMatch",
      `${pickParam}=${pick} is past the ${found.lines.length} lines ${keyParam} matches in ${where}: ${
        found.lines.map((l, i) => `${pickParam}=${i + 1} → ${showLine(doc, l)}`).join(", ")
      }`,
      { parameter: pickParam, matches },
      patchLine,
    );
  }
  throw new OpError(
    "AmbiguousMatch",
    `${keyParam} matches ${found.lines.length} lines in ${where}: ${
      found.lines.map((l, i) => `${pickParam}=${i + 1} → ${showLine(doc, l)}`).join(", ")
    }; add the ${pickParam}=N that picks the line you mean, or make the keys more specific`,
    { parameter: keyParam, keys, matches },
    patchLine,
  );
}

/** The scope of `start-keys`/`end-keys` for line and block instructions; the whole file without them. */
function resolveScope(doc: TextDoc, block: Block): Scope {
  const startKeys = keysParam(block, "start-keys");
  const endKeys = keysParam(block, "end-keys");
  const nthb = positiveInt(block, "nthb");
  if (nthb !== undefined && !startKeys) {
    throw new OpError(
      "PatchParseError",
      "nthb chooses among the lines start-keys matches; give start-keys too",
      { parameter: "nthb" },
      param(block, "nthb")!.line,
    );
  }
  let first = 0;
  if (startKeys) {
    first = oneLine(
      doc,
      wholeDoc(doc),
      startKeys,
      param(block, "start-keys")!.value,
      "start-keys",
      "nthb",
      nthb,
      param(block, "start-keys")!.line,
    );
  }
  let last = doc.length - 1;
  if (endKeys) {
    const from = startKeys ? first : first - 1;
    const endParam = param(block, "end-keys")!;
    const found = locateEnd(doc, from, doc.length - 1, endParam.value);
    if (found.kind === "many") {
      const shown = found.candidates.map((c) =>
        `${showLine(doc, c.line)} (first line with ${c.keys.map((k) => `\`${k}\``).join(", ")})`
      );
      throw new OpError(
        "AmbiguousMatch",
        `no line after the scope's start (line ${
          first + 1
        }) contains the whole end-keys \`${endParam.value.trim()}\`, ` +
          `and its parts first occur on different lines: ${shown.join("; ")}; give end-keys the text of the one line ` +
          "that ends the block (a part that only that line contains, or the whole line without separators)",
        {
          parameter: "end-keys",
          keys: endKeys,
          start_line: first + 1,
          matches: found.candidates.map((c) => ({ line: c.line + 1, text: doc.plain(c.line), keys: c.keys })),
        },
        endParam.line,
      );
    }
    const end = found.kind === "unique" ? found.line : null;
    if (end === null) {
      const searched = { first: Math.min(from + 1, doc.length - 1), last: doc.length - 1 };
      const closest = searched.first <= searched.last ? closestLines(doc, searched, endKeys) : [];
      throw new OpError(
        "NoMatch",
        `no line after the scope's start (line ${first + 1}) contains ${
          keysAsGiven(endParam.value).map((k) => `\`${k}\``).join(" or ")
        } (end-keys)${
          closest.length
            ? `; closest: ${closest.map((c) => `${c.line}: \`${c.text.trim()}\` (${c.similarity})`).join(", ")}`
            : ""
        }`,
        { parameter: "end-keys", keys: endKeys, start_line: first + 1, closest },
        param(block, "end-keys")!.line,
      );
    }
    last = end;
  }
  return { first, last };
}

/** The 0-based target line of a line op; `insertion` allows one past the scope's end. */
function resolveTarget(doc: TextDoc, scope: Scope, block: Block, insertion: boolean): number {
  const keys = keysParam(block, "keys");
  const lineno = positiveInt(block, "lineno");
  const nthl = positiveInt(block, "nthl");
  const offsetParam = param(block, "offset");
  if (keys && lineno !== undefined) {
    throw new OpError(
      "PatchParseError",
      "give either keys or lineno, not both (nthl chooses among several keys matches)",
      { parameter: "lineno" },
      param(block, "lineno")!.line,
    );
  }
  if (!keys && lineno === undefined) {
    // `keys = x` (spaces around =) is body text, not a parameter: say so when that is what happened.
    const spaced = block.body.map((l) => /^(keys|lineno)\s+=\s*(.*)$/i.exec(l)).find((m) => m !== null);
    throw new OpError(
      "PatchParseError",
      `${block.op} needs keys=<text of the line> or lineno=<N> to say which line${
        spaced
          ? ` (\`${spaced[0]}\` is body text: write \`${spaced[1].toLowerCase()}=${spaced[2]}\`, = right after the key)`
          : ""
      }`,
      { expected: "keys= or lineno=" },
      block.line,
    );
  }
  if (nthl !== undefined && !keys) {
    throw new OpError(
      "PatchParseError",
      "nthl chooses among the lines keys matches; it needs keys",
      { parameter: "nthl" },
      param(block, "nthl")!.line,
    );
  }
  let target: number;
  const scopeLength = scope.last - scope.first + 1;
  if (lineno !== undefined) {
    const max = insertion ? scopeLength + 1 : scopeLength;
    if (lineno > max) {
      throw new OpError(
        "NoMatch",
        `lineno=${lineno} is past the end of ${describeScope(doc, scope)}${
          scope.first > 0 || scope.last < doc.length - 1 ? " (lineno counts from the scope's first line)" : ""
        }; the largest is ${max}`,
        { parameter: "lineno", max },
        param(block, "lineno")!.line,
      );
    }
    target = scope.first + lineno - 1;
  } else {
    target = oneLine(doc, scope, keys!, param(block, "keys")!.value, "keys", "nthl", nthl, param(block, "keys")!.line);
  }
  if (offsetParam) {
    if (param(block, "start-keys") || param(block, "end-keys")) {
      throw new OpError(
        "PatchParseError",
        "offset works without a scope only; inside start-keys/end-keys use lineno instead",
        { parameter: "offset" },
        offsetParam.line,
      );
    }
    const m = /^([+-])(\d+)$/.exec(offsetParam.value);
    if (!m) {
      throw new OpError(
        "PatchParseError",
        `offset=${offsetParam.value} must be +N or -N (e.g. offset=+2)`,
        { parameter: "offset", expected: "+N or -N", found: offsetParam.value },
        offsetParam.line,
      );
    }
    const moved = target + (m[1] === "+" ? 1 : -1) * Number(m[2]);
    const max = insertion ? doc.length : doc.length - 1;
    if (moved < 0 || moved > max) {
      throw new OpError(
        "NoMatch",
        `offset=${offsetParam.value} from line ${target + 1} lands outside the file (1–${max + 1})`,
        { parameter: "offset" },
        offsetParam.line,
      );
    }
    target = moved;
  }
  return target;
}

// ---- ops ----------------------------------------------------------------------------------------

async function lineOp(block: Block, view: View, rel: string, abs: string): Promise<BlockOutcome> {
  const doc = await view.text(rel, abs);
  if (block.op !== "line.delete") rejectSuspiciousBody(block);
  const scope = resolveScope(doc, block);
  const insertion = block.op === "line.insert";
  const target = resolveTarget(doc, scope, block, insertion);
  const lines = doc.adopt(body(block));
  const before = target < doc.length ? doc.lines[target] : null;
  switch (block.op) {
    case "line.insert":
      doc.splice(target, 0, lines);
      break;
    case "line.append":
      doc.splice(target + 1, 0, lines);
      break;
    case "line.replace":
      doc.splice(target, 1, lines);
      break;
    case "line.delete":
      doc.splice(target, 1, []);
      break;
  }
  doc.ensureFinalNewline();
  await view.set(rel, abs, { kind: "file", content: doc, mode: await modeOf(view, rel, abs) });
  const unchanged = block.op === "line.replace" && lines.length === 1 && lines[0] === before;
  return {
    status: unchanged ? "unchanged" : "modified",
    lines_added: unchanged || block.op === "line.delete" ? 0 : lines.length,
    lines_removed: unchanged || block.op === "line.insert" || block.op === "line.append" ? 0 : 1,
    at_line: target + 1,
  };
}

async function blockOp(block: Block, view: View, rel: string, abs: string): Promise<BlockOutcome> {
  const doc = await view.text(rel, abs);
  if (block.op === "block.replace") rejectSuspiciousBody(block);
  const scope = resolveScope(doc, block);
  const count = Math.max(0, scope.last - scope.first + 1);
  const removed = doc.lines.slice(scope.first, scope.first + count);
  const lines = block.op === "block.replace" ? doc.adopt(body(block)) : [];
  doc.splice(scope.first, count, lines);
  doc.ensureFinalNewline();
  await view.set(rel, abs, { kind: "file", content: doc, mode: await modeOf(view, rel, abs) });
  const changes = countChanges(removed, lines);
  return {
    status: changes.added + changes.removed === 0 ? "unchanged" : "modified",
    lines_added: changes.added,
    lines_removed: changes.removed,
    at_line: scope.first + 1,
  };
}

async function modeOf(view: View, rel: string, abs: string): Promise<number> {
  const state = await view.get(rel, abs);
  return state.kind === "file" ? state.mode : DEFAULT_FILE_MODE;
}

/** Lines as `git diff --numstat` compares them: a last line without its newline differs from one with it. */
function countable(lines: readonly string[], finalNewline: boolean): string[] {
  if (finalNewline || lines.length === 0) return [...lines];
  return [...lines.slice(0, -1), lines[lines.length - 1] + "\u0000no-newline"];
}

function linesOf(state: FileState): string[] {
  if (state.kind !== "file") return [];
  const doc = state.content instanceof TextDoc ? state.content : TextDoc.fromBytes(state.content);
  return doc ? countable(doc.lines, doc.finalNewline) : [];
}

/** `file.write`'s text: LF line breaks, a final newline, parent folders created. */
function writtenText(lines: readonly string[]): TextDoc {
  return new TextDoc([...lines], lines.length > 0);
}

async function writeOp(block: Block, view: View, rel: string, abs: string): Promise<BlockOutcome> {
  const before = await view.get(rel, abs);
  const doc = writtenText(body(block));
  await view.set(rel, abs, {
    kind: "file",
    content: doc,
    mode: before.kind === "file" ? before.mode : DEFAULT_FILE_MODE,
  });
  const changes = countChanges(linesOf(before), doc.lines);
  const same = before.kind === "file" && changes.added + changes.removed === 0 &&
    sameBytes(bytesOf(before), doc.toBytes());
  return {
    status: before.kind === "absent" ? "created" : same ? "unchanged" : "modified",
    lines_added: changes.added,
    lines_removed: changes.removed,
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function appendOp(block: Block, view: View, rel: string, abs: string): Promise<BlockOutcome> {
  const state = await view.get(rel, abs);
  if (state.kind === "absent" && !view.isDir(rel, abs)) {
    const outcome = await writeOp(block, view, rel, abs);
    return outcome;
  }
  const doc = await view.text(rel, abs);
  const lines = doc.adopt(body(block));
  doc.ensureFinalNewline();
  if (block.op === "file.append") doc.splice(doc.length, 0, lines);
  else doc.splice(0, 0, lines);
  doc.ensureFinalNewline();
  await view.set(rel, abs, { kind: "file", content: doc, mode: await modeOf(view, rel, abs) });
  return { status: "modified", lines_added: lines.length, lines_removed: 0 };
}

async function deleteOp(_block: Block, view: View, rel: string, abs: string): Promise<BlockOutcome> {
  const state = await view.get(rel, abs);
  const parent = rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "";
  if (state.kind === "file") {
    const removed = linesOf(state).length;
    await view.set(rel, abs, { kind: "absent" });
    if (parent) view.cleanupCandidates.add(parent);
    return { status: "deleted", lines_added: 0, lines_removed: removed };
  }
  if (view.isDir(rel, abs)) {
    const files = await view.filesUnder(rel, abs);
    let removed = 0;
    for (const file of files) {
      const fileAbs = view.absOf(file);
      removed += linesOf(await view.get(file, fileAbs)).length;
      await view.set(file, fileAbs, { kind: "absent" });
    }
    view.deletedDirs.add(rel);
    if (parent) view.cleanupCandidates.add(parent);
    return { status: "deleted", lines_added: 0, lines_removed: removed, files };
  }
  throw new ViewError("NotFound", `\`${rel}\` does not exist, so there is nothing to delete.`);
}

async function moveOp(block: Block, view: View, rel: string, abs: string): Promise<BlockOutcome> {
  const to = param(block, "to");
  if (!to || to.value === "") {
    throw new OpError("PatchParseError", "file.move needs to=<new path> (e.g. to=src/new_name.py)", {
      expected: "to=<path>",
    }, block.line);
  }
  let target = await view.locate(to.value, "to");
  if (to.value.endsWith("/") || view.isDir(target.rel, target.abs)) {
    const name = rel.slice(rel.lastIndexOf("/") + 1);
    target = await view.locate(`${target.rel}/${name}`, "to");
  }
  if (target.rel === rel) {
    throw new OpError("PatchApplyError", `to=${to.value} is the file itself; nothing would move`, {}, to.line);
  }
  if (target.rel.startsWith(rel + "/")) {
    throw new OpError("PatchApplyError", `cannot move \`${rel}\` into itself (\`${target.rel}\`)`, {}, to.line);
  }
  const parent = rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "";
  const state = await view.get(rel, abs);
  const pairs: [string, string][] = [];
  const isDir = state.kind !== "file" && view.isDir(rel, abs);
  if (state.kind === "file") pairs.push([rel, target.rel]);
  else if (isDir) {
    for (const file of await view.filesUnder(rel, abs)) pairs.push([file, target.rel + file.slice(rel.length)]);
  } else throw new ViewError("NotFound", `\`${rel}\` does not exist, so it cannot be moved.`);
  // Validate every destination before changing anything, so a failure leaves the view as it was.
  const moves: { from: string; to: string; state: FileState }[] = [];
  for (const [from, dest] of pairs) {
    const destAbs = view.absOf(dest);
    await view.locate(dest, "to");
    if ((await view.get(dest, destAbs)).kind === "file") {
      throw new ViewError("AlreadyExists", `\`${dest}\` already exists; delete it first or move to another name.`);
    }
    moves.push({ from, to: dest, state: await view.get(from, view.absOf(from)) });
  }
  for (const m of moves) await view.set(m.from, view.absOf(m.from), { kind: "absent" });
  for (const m of moves) await view.set(m.to, view.absOf(m.to), m.state);
  if (isDir) view.deletedDirs.add(rel);
  if (parent) view.cleanupCandidates.add(parent);
  return { status: "moved", lines_added: 0, lines_removed: 0, files: moves.map((m) => m.to) };
}

async function chmodOp(block: Block, view: View, rel: string, abs: string): Promise<BlockOutcome> {
  const p = param(block, "mode");
  if (!p || !/^0?[0-7]{3}$/.test(p.value)) {
    throw new OpError(
      "PatchParseError",
      p ? `mode=${p.value} must be an octal mode like 644 or 755` : "file.chmod needs mode=<octal> (e.g. mode=755)",
      { parameter: "mode", expected: "three octal digits", found: p?.value ?? null },
      p?.line ?? block.line,
    );
  }
  const mode = parseInt(p.value, 8);
  if ((mode & ~0o755) !== 0) {
    // A patch grants no more than a git checkout would: 644, 755 or fewer bits — never a file that
    // others may write (a hook or a script anyone can change) nor any bit git does not record.
    throw new OpError(
      "PatchApplyError",
      `mode=${p.value} gives permissions a git checkout never does (write for group or others); use 644 or 755 ` +
        "(or fewer bits, e.g. 600 or 700)",
      { parameter: "mode", expected: "a mode within 755", found: p.value },
      p.line,
    );
  }
  const state = await view.get(rel, abs);
  if (state.kind !== "file") {
    if (view.isDir(rel, abs)) {
      throw new ViewError("PatchApplyError", `\`${rel}\` is a folder; file.chmod changes files.`);
    }
    throw new ViewError("NotFound", `\`${rel}\` does not exist.`);
  }
  await view.set(rel, abs, { kind: "file", content: state.content, mode });
  return { status: state.mode === mode ? "unchanged" : "mode_changed", lines_added: 0, lines_removed: 0 };
}

async function eolOp(block: Block, view: View, rel: string, abs: string): Promise<BlockOutcome> {
  const style = (param(block, "style")?.value ?? "lf").toLowerCase();
  if (style !== "lf" && style !== "crlf") {
    const p = param(block, "style")!;
    throw new OpError("PatchParseError", `style=${p.value} must be lf or crlf`, { parameter: "style" }, p.line);
  }
  const ensure = booleanParam(block, "ensure-nl", true);
  const doc = await view.text(rel, abs);
  const before = [...doc.lines];
  const beforeFinal = doc.finalNewline;
  const converted = doc.lines.map((l) => {
    const bare = l.endsWith("\r") ? l.slice(0, -1) : l;
    return style === "crlf" ? bare + "\r" : bare;
  });
  const finalNewline = ensure ? doc.length > 0 : doc.finalNewline;
  // Without a final newline the last line has no line break to carry a `\r`.
  if (!finalNewline && converted.length > 0 && style === "crlf") {
    converted[converted.length - 1] = converted[converted.length - 1].replace(/\r$/, "");
  }
  doc.splice(0, doc.length, converted);
  doc.finalNewline = finalNewline;
  await view.set(rel, abs, { kind: "file", content: doc, mode: await modeOf(view, rel, abs) });
  const changes = countChanges(countable(before, beforeFinal), countable(converted, finalNewline));
  const changed = changes.added + changes.removed > 0;
  return {
    status: changed ? "modified" : "unchanged",
    lines_added: changes.added,
    lines_removed: changes.removed,
  };
}

const IMAGE_MAGIC: Record<string, (b: Uint8Array) => boolean> = {
  png: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  jpg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  jpeg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  gif: (b) => String.fromCharCode(...b.subarray(0, 4)) === "GIF8",
  webp: (b) =>
    String.fromCharCode(...b.subarray(0, 4)) === "RIFF" && String.fromCharCode(...b.subarray(8, 12)) === "WEBP",
  bmp: (b) => b[0] === 0x42 && b[1] === 0x4d,
  ico: (b) => b[0] === 0 && b[1] === 0 && b[2] === 1 && b[3] === 0,
};

export function decodeBase64(block: Block): Uint8Array {
  let text = block.body.join("").replace(/\s+/g, "");
  const dataUri = /^data:[\w.+-]+\/[\w.+-]+;base64,/.exec(text);
  if (dataUri) text = text.slice(dataUri[0].length);
  text = text.replaceAll("-", "+").replaceAll("_", "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.replace(/=+$/, "").length % 4 === 1) {
    throw new OpError(
      "PatchParseError",
      `the body of ${block.op} is not Base64 (only A–Z, a–z, 0–9, +, / and = padding; whitespace is ignored)`,
      { expected: "Base64" },
      block.bodyLine,
    );
  }
  const padded = text.replace(/=+$/, "");
  const binary = atob(padded + "=".repeat((4 - (padded.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function binaryOp(block: Block, view: View, rel: string, abs: string): Promise<BlockOutcome> {
  const bytes = decodeBase64(block);
  if (block.op === "file.image") {
    const ext = rel.slice(rel.lastIndexOf(".") + 1).toLowerCase();
    const check = IMAGE_MAGIC[ext];
    if (check && (bytes.length < 12 || !check(bytes))) {
      throw new OpError(
        "UnsupportedFormat",
        `the decoded content is not a ${ext.toUpperCase()} image (its first bytes do not match the format); ` +
          "check the Base64 text or the file extension",
        { expected: ext },
        block.bodyLine,
      );
    }
  }
  const before = await view.get(rel, abs);
  await view.set(rel, abs, {
    kind: "file",
    content: bytes,
    mode: before.kind === "file" ? before.mode : DEFAULT_FILE_MODE,
  });
  const same = before.kind === "file" && sameBytes(bytesOf(before), bytes);
  return {
    status: before.kind === "absent" ? "created" : same ? "unchanged" : "modified",
    lines_added: 0,
    lines_removed: 0,
  };
}

// ---- git.diff -----------------------------------------------------------------------------------

function hunkProblem(error: HunkError, file: string): OpError {
  const f = error.failure;
  if (f.kind === "no-match") {
    const closest = f.closest
      ? `; the closest place is line ${f.closest.line} (similarity ${f.closest.similarity}): ${
        f.closest.text.slice(0, 4).map((t) => `\`${t.trim()}\``).join(" / ")
      }${divergedText(f.closest.diverged)}`
      : "; the file is empty";
    if (f.unanchored) {
      const { line, rule } = f.unanchored;
      const why = rule === "end"
        ? "a hunk without trailing context must end the file (git apply reads it so), and the file goes on " +
          "after them; add the line that follows as a context line"
        : "a hunk stated at line 1 (or 0) must start the file (git apply reads it so); state the line it is at " +
          "in `@@ -N,M +N,M @@`";
      return new OpError(
        "NoMatch",
        `hunk ${f.hunk} of \`${file}\` does not fit where it must: its lines are at line ${line}, but ${why}`,
        { file, hunk: f.hunk, closest: f.closest, anchored_to: rule === "end" ? "end of file" : "start of file" },
        f.patchLine,
      );
    }
    return new OpError(
      "NoMatch",
      `hunk ${f.hunk} of \`${file}\` fits nowhere: its context and removed lines are not in the file, not even ` +
        `with whitespace differences, shifted, or with changed context lines (removed lines must match)${closest}`,
      { file, hunk: f.hunk, closest: f.closest },
      f.patchLine,
    );
  }
  if (f.kind === "already-applied") {
    const why = f.elsewhere === undefined
      ? `its result stands at line ${f.line} and the lines it changes are not in the file`
      : `its result stands at line ${f.line}, where the hunk says, and the lines it changes stand only at line ` +
        `${f.elsewhere}, another place that reads the same, which it would edit instead`;
    return new OpError(
      "AlreadyApplied",
      `hunk ${f.hunk} of \`${file}\` is already applied: ${why} (the patch ran before, or the change was made by hand)`,
      { file, hunk: f.hunk, line: f.line, ...(f.elsewhere === undefined ? {} : { elsewhere: f.elsewhere }) },
      f.patchLine,
    );
  }
  if (f.kind === "ambiguous") {
    const places = f.lines.map((line, i) => {
      const text = f.texts[i].trim();
      return `line ${line} \`${text.length > 60 ? text.slice(0, 60) + "…" : text}\``;
    });
    const stated = f.stated === null
      ? "its `@@` line states no line number"
      : `its \`@@\` line states line ${f.stated}, and no place is nearer to it than all the others`;
    return new OpError(
      "AmbiguousMatch",
      `hunk ${f.hunk} of \`${file}\` fits ${f.lines.length} places (${f.strategy}): ${places.join(", ")}; ${stated}. ` +
        "A hunk is never applied to a guessed place: give the right line number in `@@ -N,M +N,M @@` (the " +
        "place nearest it wins), or add context lines that only one place has",
      {
        file,
        hunk: f.hunk,
        strategy: f.strategy,
        stated_line: f.stated,
        matches: f.lines.map((line, i) => ({ line, text: f.texts[i] })),
      },
      f.patchLine,
    );
  }
  return new OpError(
    "PatchApplyError",
    `hunk ${f.hunk} of \`${file}\` only adds lines and has neither context nor a line number to place them; ` +
      "add a context line or `@@ -N,0 +M,K @@`",
    { file, hunk: f.hunk },
    f.patchLine,
  );
}

/**
 * A submodule pointer's diff against what the index records, as `git apply --index` checks it: a new
 * pointer must not be there yet (and one already at the new commit is AlreadyApplied), a changed or
 * removed one must be at the commit its `-Subproject commit` line names. Outside a repository there
 * is no index to check.
 */
async function checkPointerPreimage(
  view: View,
  file: FileDiff,
  rel: string,
  created: boolean,
  newOid: string | null,
): Promise<void> {
  if (!view.indexGitlink) return;
  const recorded = await view.indexGitlink(rel);
  const oldOid = file.hunks.flatMap((h) => h.lines).filter((l) => l.kind === "-")
    .map((l) => /^Subproject commit ([0-9a-f]{40})\s*$/.exec(l.text)?.[1]).find((id) => id !== undefined) ?? null;
  if (recorded !== null && recorded === newOid && recorded !== oldOid) {
    throw new OpError(
      "AlreadyApplied",
      `the submodule \`${rel}\` already points at ${newOid}, the commit the diff sets (the patch ran before)`,
      { file: rel },
      file.patchLine,
    );
  }
  if (created && recorded !== null) {
    throw new OpError("AlreadyExists", `the diff adds the submodule \`${rel}\`, which the index already has`, {
      file: rel,
    }, file.patchLine);
  }
  if (!created && oldOid !== null && recorded !== oldOid) {
    throw new OpError(
      recorded === null ? "NotFound" : "Conflict",
      `the diff changes the submodule \`${rel}\` from ${oldOid}, but the index records ${
        recorded ?? "no submodule there"
      }`,
      { file: rel, expected: oldOid, found: recorded },
      file.patchLine,
    );
  }
}

/** Which file a diff section edits: its own paths, or the block's path for a diff with no file headers. */
function diffTargets(block: Block, file: FileDiff, count: number): { from: string | null; to: string | null } {
  const blockPath = block.path === "." ? "" : block.path.replace(/\/+$/, "");
  if (!file.hasPaths) {
    if (!blockPath) {
      throw new OpError(
        "PatchParseError",
        "the diff has no `--- a/<path>` / `+++ b/<path>` lines; add them, or name the file in the block header " +
          '(`=== git.diff: "<path>" ===`)',
        { expected: "--- / +++ file headers" },
        file.patchLine,
      );
    }
    return { from: blockPath, to: blockPath };
  }
  if (!blockPath) return { from: file.oldPath, to: file.newPath };
  const inside = (p: string | null) => p === null || p === blockPath || p.startsWith(blockPath + "/");
  if (inside(file.oldPath) && inside(file.newPath)) return { from: file.oldPath, to: file.newPath };
  const named = file.newPath ?? file.oldPath!;
  // A single-file diff written relative to a subfolder: its path is the end of the block's path.
  if (count === 1 && file.oldPath === file.newPath && blockPath.endsWith("/" + named)) {
    return { from: blockPath, to: blockPath };
  }
  throw new OpError(
    "PatchApplyError",
    `the block names \`${block.path}\` but the diff edits \`${named}\`; use "." in the block header for a diff of ` +
      "several files, or make the paths agree",
    { diff_path: named },
    file.patchLine,
  );
}

/**
 * A binary hunk of `git diff --binary`, applied as `git apply` does: the file must be the blob the
 * `index` line names (a delta against anything else would be garbage), and so must the result.
 */
async function applyBinaryDiff(file: FileDiff, base: Uint8Array, rel: string): Promise<Uint8Array> {
  const ids = file.blobIds;
  const isNull = (id: string) => /^0+$/.test(id);
  if (ids && !isNull(ids.old) && !(await blobId(base)).startsWith(ids.old)) {
    throw new OpError(
      "Conflict",
      `\`${rel}\` is not the file this binary diff was made from (its blob is not ${ids.old}); make the diff ` +
        "again from the file as it is now",
      { file: rel, expected_blob: ids.old, found_blob: await blobId(base) },
      file.patchLine,
    );
  }
  if (!ids && file.binaryHunk!.kind === "delta") {
    throw new OpError(
      "PatchParseError",
      `the binary delta for \`${rel}\` comes without its \`index <old>..<new>\` line, so it cannot be checked; ` +
        "send the output of `git diff --binary` unchanged",
      { file: rel },
      file.patchLine,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = applyBinaryHunk(file.binaryHunk!, base);
  } catch (error) {
    if (!(error instanceof BinaryPatchError)) throw error;
    throw new OpError("CorruptInput", `the binary diff of \`${rel}\` cannot be applied: ${error.message}`, {
      file: rel,
    }, file.patchLine);
  }
  if (ids && !isNull(ids.new) && !(await blobId(bytes)).startsWith(ids.new)) {
    throw new OpError(
      "CorruptInput",
      `the binary diff of \`${rel}\` does not produce the blob its index line names (${ids.new}); the patch was ` +
        "damaged — send the output of `git diff --binary` unchanged",
      { file: rel, expected_blob: ids.new },
      file.patchLine,
    );
  }
  return bytes;
}

/**
 * What `git apply` checks of one file before it applies its hunks (apply.c's check_preimage and
 * check_to_create), as its messages: the file it edits must exist (with --index: be in the index
 * and match it), and the file it creates, or renames or copies to, must not. A path an earlier
 * file of the same diff wrote is taken as that file left it, as git does — but for a copy's source,
 * which git reads as it was before the diff.
 */
async function checkAsGitApply(
  view: View,
  file: FileDiff,
  from: string | null,
  to: string | null,
  results: Map<string, FileState>,
  leaving: ReadonlySet<string>,
): Promise<void> {
  const git = view.gitApply!;
  const fromLoc = from === null ? null : await view.locate(from, "diff path");
  const toLoc = to === null ? null : await view.locate(to, "diff path");
  // A submodule pointer has no file to read: only its index entry is checked.
  const pointer = file.entryMode === 0o160000;
  // git's previous_patch leaves copies out: a copy's source is checked as the disk and the index have it,
  // even where an earlier file of the diff wrote that path.
  if (fromLoc && from !== null && (file.copy || !results.has(fromLoc.rel))) {
    if ((git.index || git.cached) && view.indexEntry) {
      const entry = await view.indexEntry(fromLoc.rel);
      if (entry === null) throw new OpError("NotFound", `${from}: does not exist in index`, { git: true });
      // The mode the diff says the file has (its `old mode`, `deleted file mode` or `index` line).
      const stated = file.oldMode ?? (file.newMode === null ? file.entryMode : null);
      if (stated !== null && (stated & 0o170000) !== (entry.mode & 0o170000)) {
        throw new OpError("Conflict", `${from}: wrong type`, { git: true });
      }
      const state = pointer || git.cached ? null : await view.get(fromLoc.rel, fromLoc.abs);
      if (state?.kind === "file" && !(await matchesIndexEntry(state, entry))) {
        throw new OpError("Conflict", `${from}: does not match index`, { git: true });
      }
    } else if (!pointer && (await view.get(fromLoc.rel, fromLoc.abs)).kind !== "file") {
      throw new OpError("NotFound", `${from}: No such file or directory`, { git: true });
    }
  }
  const creates = toLoc !== null && to !== null && (fromLoc === null || fromLoc.rel !== toLoc.rel) &&
    !leaving.has(to);
  if (creates) {
    if (
      (git.index || git.cached) && view.indexEntry && !results.has(toLoc.rel) &&
      (await view.indexEntry(toLoc.rel)) !== null
    ) {
      throw new OpError("AlreadyExists", `${to}: already exists in index`, { git: true });
    }
    if (git.cached) return;
    const state = results.get(toLoc.rel) ?? await view.get(toLoc.rel, toLoc.abs);
    if (state.kind === "file") {
      throw new OpError("AlreadyExists", `${to}: already exists in working directory`, { git: true });
    }
  }
}

/**
 * Whether a file is what its index entry records, as `git apply --index` requires (git's
 * ie_match_stat): its stat data as the index keeps it — a file rewritten with the same content
 * does not match until the index is refreshed (`git status`, `git add`) —, for a racy entry its
 * content in git's form (the git side decides both: api.indexEntry), and its executable bit.
 */
async function matchesIndexEntry(
  state: FileState & { kind: "file" },
  entry: { readonly oid: string; readonly mode: number; readonly matches: boolean | null },
): Promise<boolean> {
  if (entry.matches === false) return false;
  // No file for the git side to look at (it went meanwhile): the bytes the patch read decide.
  if (entry.matches === null && (await blobId(bytesOf(state))) !== entry.oid) return false;
  if (entry.mode !== 0o100644 && entry.mode !== 0o100755) return true;
  return (entry.mode === 0o100755) === ((state.mode & 0o100) !== 0);
}

/**
 * A file that did not apply, in git apply's words (its `error: ` lines without the prefix): its own
 * check's message, or for a hunk that fits nowhere `patch failed: <name>:<line>` and
 * `<name>: patch does not apply`, naming the file as the diff does.
 */
function gitApplyMessages(error: OpError | ViewError, file: FileDiff, block: Block, count: number): string[] {
  if (error instanceof OpError && error.details.git === true) return [error.message];
  const { from, to } = diffTargets(block, file, count);
  const name = (from ?? to)!;
  // A submodule pointer's diff is a text diff of `Subproject commit <id>` to git: its hunk fails.
  const number = error instanceof OpError && typeof error.details.hunk === "number"
    ? error.details.hunk
    : file.entryMode === 0o160000
    ? 1
    : null;
  const hunk = number === null ? undefined : file.hunks[number - 1];
  const binary = error instanceof OpError && typeof error.details.found_blob === "string"
    ? [`the patch applies to '${to ?? from}' (${error.details.found_blob}), which does not match the current contents.`]
    : [];
  return [
    ...binary,
    ...(hunk ? [`patch failed: ${name}:${hunk.oldStart ?? 0}`] : []),
    `${name}: patch does not apply`,
  ];
}

async function diffOp(block: Block, view: View): Promise<BlockOutcome> {
  let files: FileDiff[];
  try {
    files = parseDiff(block.body, block.bodyLine, view.gitApply ? { strip: view.gitApply.strip } : {});
  } catch (error) {
    if (error instanceof DiffParseError) {
      throw new OpError("PatchParseError", error.message.replace(/^line \d+: /, ""), {
        expected: error.expected,
        found: error.found,
      }, error.line);
    }
    throw error;
  }
  if (view.gitApply?.reverse) {
    // git apply -R takes the files last to first (it puts each file it parses before the others).
    files = files.reverse().map((file) => {
      const reversed = reversedDiff(file);
      if (reversed) return reversed;
      throw new OpError(
        "UnsupportedFormat",
        `the diff of \`${file.newPath ?? file.oldPath}\` cannot be applied in reverse: ${
          file.copy ? "it copies a file" : "its binary patch has no reverse hunk"
        }`,
        { file: file.newPath ?? file.oldPath },
        file.patchLine,
      );
    });
  }
  const keepLineEndings = block.body.some((l) => l.endsWith("\r"));
  // Work on copies: the block applies as a whole or not at all.
  const results = new Map<string, FileState>();
  const current = async (rel: string): Promise<FileState> => results.get(rel) ?? await view.get(rel, view.absOf(rel));
  const reports: (HunkReport & { file: string })[] = [];
  let added = 0;
  let removed = 0;
  const touched: string[] = [];
  const git = view.gitApply;
  /** What git apply says of each file that does not apply; all are checked, as git checks them. */
  const gitErrors: string[] = [];
  /** Everything git apply says on stderr as it goes through the files, in order. */
  const transcript: GitSaid[] = [];
  const say = (file: FileDiff, ...lines: string[]) => {
    for (const text of lines) transcript.push({ text, at: file.patchLine });
  };
  /** Files `--3way` merged with conflicts, as git apply names them. */
  const conflicted: string[] = [];
  /**
   * `--3way` (apply.c's try_threeway) for one file: the diff applied to the preimage blob its
   * `index` line names, then merged with the file as it is (`ours`). Null — said on stderr — when
   * git falls back to applying the diff directly: no such blob, or the diff does not apply to it.
   */
  const threeWay = async (
    file: FileDiff,
    names: { from: string; to: string; rel: string },
    ours: Uint8Array,
    patched: (preimage: Uint8Array) => Promise<Uint8Array>,
  ): Promise<Uint8Array | null> => {
    const old = file.blobIds?.old;
    const preimage = old && !/^0+$/.test(old) && view.blobByPrefix ? await view.blobByPrefix(old) : null;
    if (preimage === null || !view.threeWayMerge) {
      say(file, "error: repository lacks the necessary blob to perform 3-way merge.");
      say(file, "Falling back to direct application...");
      return null;
    }
    let theirs: Uint8Array;
    try {
      theirs = await patched(preimage);
    } catch (error) {
      const problem = error instanceof HunkError ? hunkProblem(error, names.to) : error;
      if (!(problem instanceof OpError) && !(problem instanceof ViewError)) throw error;
      const failed = gitApplyMessages(problem, file, block, files.length).filter((l) => l.startsWith("patch failed: "));
      say(file, ...failed.map((line) => `error: ${line}`), "Falling back to direct application...");
      return null;
    }
    const merged = await view.threeWayMerge(names.rel, { base: preimage, ours, theirs });
    if (merged.warning) say(file, merged.warning);
    if (merged.conflicted) {
      say(file, `Applied patch to '${names.to}' with conflicts.`);
      conflicted.push(names.to);
      view.threeWayConflicts.set(names.rel, { mode: file.entryMode ?? 0o100644, base: preimage, ours, theirs });
    } else say(file, `Applied patch to '${names.to}' cleanly.`);
    return merged.bytes;
  };
  // Paths another file of the diff deletes or renames away: a file may be created there (git's
  // ok_if_exists for a path that is to be deleted, as a type change diffs).
  const leaving = new Set(
    files.flatMap((
      f,
    ) => (f.oldPath !== null && (f.newPath === null || (f.newPath !== f.oldPath && !f.copy)) ? [f.oldPath] : [])),
  );
  const applyFile = async (file: FileDiff): Promise<void> => {
    const { from, to } = diffTargets(block, file, files.length);
    // git apply reads a file with its CRLFs kept when the diff's own old lines end in CRLF (crlf_in_old).
    if (git && from !== null && file.hunks.some((h) => h.lines.some((l) => l.kind !== "+" && l.text.endsWith("\r")))) {
      view.keepCrlf.add((await view.locate(from, "diff path")).rel);
    }
    if (git) await checkAsGitApply(view, file, from, to, results, leaving);
    const shown = (to ?? from)!;
    // git apply --3way tries a merge for every file but these (a deletion, a creation, a submodule
    // pointer, a rename that changes no line), which it applies directly, saying so.
    const lines = file.hunks.flatMap((h) => h.lines);
    const pointerDiff = [file.entryMode, file.oldMode, file.newMode].includes(0o160000);
    const mergeable = git?.threeway === true && from !== null && to !== null && !pointerDiff &&
      !(!file.copy && from !== to && !lines.some((l) => l.kind === "+" || l.kind === "-"));
    if (git?.threeway && !mergeable) say(file, "Falling back to direct application...");
    if (file.binary && !file.binaryHunk) {
      throw new OpError(
        "UnsupportedFormat",
        `the diff of \`${shown}\` only says "Binary files … differ", which holds no content; make it with ` +
          "`git diff --binary` (applied and checked like git apply does), or write the file with file.binary (Base64 body)",
        { file: shown },
        file.patchLine,
      );
    }
    const fromLoc = from === null ? null : await view.locate(from, "diff path");
    const toLoc = to === null ? null : await view.locate(to, "diff path");
    // git diff renames a submodule that moved with its commit (`rename from`/`rename to`, no mode, no
    // index line): the source is a pointer in the index, not a file. It moves there, keeping its commit
    // unless a `Subproject commit` line sets another.
    const movedPointer = file.entryMode === null && fromLoc && toLoc && fromLoc.rel !== toLoc.rel &&
        view.indexGitlink && (await current(fromLoc.rel)).kind !== "file"
      ? await view.indexGitlink(fromLoc.rel)
      : null;
    if (movedPointer !== null) {
      if ((await current(toLoc!.rel)).kind === "file") {
        throw new OpError(
          "AlreadyExists",
          `the diff ${file.copy ? "copies" : "renames"} the submodule \`${fromLoc!.rel}\` to \`${toLoc!.rel}\`, ` +
            "which already exists",
          { file: toLoc!.rel },
          file.patchLine,
        );
      }
      const set = file.hunks.flatMap((h) => h.lines).filter((l) => l.kind === "+")
        .map((l) => /^Subproject commit ([0-9a-f]{40})\s*$/.exec(l.text)?.[1]).find((id) => id !== undefined);
      if (!file.copy) view.specialEntries.set(fromLoc!.rel, { mode: 0o160000, oid: null });
      view.specialEntries.set(toLoc!.rel, { mode: 0o160000, oid: set ?? movedPointer });
      touched.push(fromLoc!.rel, toLoc!.rel);
      return;
    }
    if (file.entryMode === 0o160000) {
      // A submodule pointer: no file changes, only the commit id its index entry records.
      const rel = (toLoc ?? fromLoc)!.rel;
      const oid = toLoc === null ? null : file.hunks.flatMap((h) => h.lines).filter((l) => l.kind === "+")
        .map((l) => /^Subproject commit ([0-9a-f]{40})\s*$/.exec(l.text)?.[1]).find((id) => id !== undefined) ?? null;
      if (toLoc !== null && oid === null) {
        throw new OpError(
          "PatchParseError",
          `the submodule diff of \`${rel}\` has no \`+Subproject commit <40-hex id>\` line to set`,
          { file: rel },
          file.patchLine,
        );
      }
      await checkPointerPreimage(view, file, rel, fromLoc === null, oid);
      view.specialEntries.set(rel, { mode: 0o160000, oid });
      touched.push(rel);
      return;
    }
    if (file.binaryHunk) {
      const before = fromLoc === null
        ? null
        : (file.copy ? await view.get(fromLoc.rel, view.absOf(fromLoc.rel)) : await current(fromLoc.rel));
      if (fromLoc && before?.kind !== "file") {
        throw new OpError("NotFound", `the binary diff edits \`${fromLoc.rel}\`, which does not exist`, {
          file: fromLoc.rel,
        }, file.patchLine);
      }
      if (
        toLoc && (!fromLoc || fromLoc.rel !== toLoc.rel) && (await current(toLoc.rel)).kind === "file" &&
        !(git && leaving.has(to!))
      ) {
        throw new OpError("AlreadyExists", `the binary diff creates \`${toLoc.rel}\`, which already exists`, {
          file: toLoc.rel,
        }, file.patchLine);
      }
      const base = before?.kind === "file" ? bytesOf(before) : new Uint8Array();
      const rel = (fromLoc ?? toLoc)!.rel;
      const bytes = (mergeable
        ? await threeWay(file, { from: from!, to: to!, rel: toLoc!.rel }, base, (pre) =>
          applyBinaryDiff(file, pre, rel))
        : null) ?? await applyBinaryDiff(file, base, rel);
      if (toLoc === null) {
        if (bytes.length > 0) {
          throw new OpError("PatchApplyError", `the binary diff deletes \`${fromLoc!.rel}\` but leaves content`, {
            file: fromLoc!.rel,
          }, file.patchLine);
        }
        results.set(fromLoc!.rel, { kind: "absent" });
        touched.push(fromLoc!.rel);
        return;
      }
      if (fromLoc && fromLoc.rel !== toLoc.rel && !file.copy) {
        results.set(fromLoc.rel, { kind: "absent" });
      }
      let binaryMode = before?.kind === "file" ? before.mode : DEFAULT_FILE_MODE;
      if (file.newMode !== null) {
        binaryMode = file.newMode & 0o100 ? 0o755 : 0o644;
      }
      results.set(toLoc.rel, { kind: "file", content: bytes, mode: binaryMode });
      if (file.newMode !== null && (file.newMode & 0o170000) === 0o100000) {
        view.specialEntries.set(toLoc.rel, { mode: binaryMode === 0o755 ? 0o100755 : 0o100644, oid: null });
      }
      touched.push(toLoc.rel);
      return;
    }
    let doc: TextDoc;
    let mode = DEFAULT_FILE_MODE;
    let preimage: (() => boolean) | undefined;
    /** `--3way`'s merged result, which stands for the hunks applied to the file. */
    let merged: Uint8Array | null = null;
    if (fromLoc === null) {
      // As git, a path another file of the diff deletes may be created (the deletion failing is its error).
      if ((await current(toLoc!.rel)).kind === "file" && !(git && leaving.has(to!))) {
        throw new OpError("AlreadyExists", `the diff creates \`${toLoc!.rel}\`, which already exists`, {
          file: toLoc!.rel,
        }, file.patchLine);
      }
      doc = new TextDoc([], false);
    } else {
      // A copy starts from the source as it was before this block (git apply reads the preimage).
      const state = file.copy ? await view.get(fromLoc.rel, view.absOf(fromLoc.rel)) : await current(fromLoc.rel);
      if (state.kind !== "file") {
        throw new OpError(
          "NotFound",
          `the diff edits \`${fromLoc.rel}\`, which does not exist (a new file needs \`--- /dev/null\`)`,
          { file: fromLoc.rel },
          file.patchLine,
        );
      }
      // A text diff of a file that is not UTF-8 (Latin-1, say) applies byte for byte, as with git.
      const text = state.content instanceof TextDoc ? state.content : TextDoc.fromBytesLossless(state.content);
      if (!text) {
        throw new OpError(
          "UnsupportedFormat",
          `\`${fromLoc.rel}\` is binary (it holds NUL bytes); a text diff cannot edit it, a \`git diff --binary\` patch can`,
          {
            file: fromLoc.rel,
          },
          file.patchLine,
        );
      }
      doc = text.clone();
      mode = state.mode;
      // A diff whose `index` line names this very file's blob was made from it by git: apply it byte
      // for byte, line endings included, as git apply does; and since that file cannot hold the
      // diff's result already, a hunk whose lines stand where it inserts them (an insertion without
      // context next to an equal line) is applied. The blob is hashed only when a hunk asks.
      const old = file.blobIds?.old;
      if (old && !/^0+$/.test(old)) preimage = () => blobIdSync(bytesOf(state)).startsWith(old);
    }
    const gitStrict = view.gitApply ? { unidiffZero: view.gitApply.unidiffZero } : undefined;
    if (mergeable) {
      const ours = bytesOf({ kind: "file", content: doc, mode });
      merged = await threeWay(file, { from: from!, to: to!, rel: toLoc!.rel }, ours, (pre) => {
        // The preimage is the diff's own: its hunks apply to it byte for byte, as git applies them.
        const text = TextDoc.fromBytesLossless(pre);
        if (!text) throw new OpError("UnsupportedFormat", `\`${shown}\`'s preimage is binary`, { file: shown });
        const placed = [...applyHunks(text, file.hunks, { keepLineEndings, preimage: () => true, gitStrict })];
        for (const report of placed) reports.push({ ...report, file: shown });
        return Promise.resolve(bytesOf({ kind: "file", content: text, mode }));
      });
    }
    if (merged === null) {
      try {
        for (
          const report of applyHunks(doc, file.hunks, { keepLineEndings, preimage, reapply: view.reapply, gitStrict })
        ) {
          reports.push({ ...report, file: shown });
        }
      } catch (error) {
        if (error instanceof HunkError) throw hunkProblem(error, shown);
        throw error;
      }
    }
    for (const h of file.hunks) {
      for (const l of h.lines) {
        if (l.kind === "+") added++;
        else if (l.kind === "-") removed++;
      }
    }
    if (toLoc === null) {
      if (doc.length > 0) {
        throw new OpError(
          "PatchApplyError",
          `the diff deletes \`${
            fromLoc!.rel
          }\` but its hunks leave ${doc.length} lines; remove every line or use file.delete`,
          { file: fromLoc!.rel },
          file.patchLine,
        );
      }
      results.set(fromLoc!.rel, { kind: "absent" });
      touched.push(fromLoc!.rel);
      return;
    }
    if (fromLoc && fromLoc.rel !== toLoc.rel) {
      if ((await current(toLoc.rel)).kind === "file") {
        throw new OpError(
          "AlreadyExists",
          `the diff ${file.copy ? "copies" : "renames"} to \`${toLoc.rel}\`, which already exists`,
          { file: toLoc.rel },
          file.patchLine,
        );
      }
      if (!file.copy) results.set(fromLoc.rel, { kind: "absent" });
    }
    // git records 100644 or 100755 only, and so does its checkout: an executable bit means 755.
    if (file.newMode !== null) mode = file.newMode & 0o100 ? 0o755 : 0o644;
    results.set(toLoc.rel, { kind: "file", content: merged ?? doc, mode });
    // pterm never creates a symbolic link: a link is a plain file holding its target, staged as 120000.
    if (file.entryMode === 0o120000) view.specialEntries.set(toLoc.rel, { mode: 0o120000, oid: null });
    // A stated regular mode is staged as such even where a link was (a link turned into a file).
    else if (file.newMode !== null && (file.newMode & 0o170000) === 0o100000) {
      view.specialEntries.set(toLoc.rel, { mode: file.newMode & 0o100 ? 0o100755 : 0o100644, oid: null });
    } else if (file.entryMode === null && fromLoc && fromLoc.rel !== toLoc.rel) {
      view.modeSources.set(toLoc.rel, fromLoc.rel);
    }
    touched.push(toLoc.rel);
  };
  for (const file of files) {
    if (!git) {
      await applyFile(file);
      continue;
    }
    try {
      await applyFile(file);
    } catch (error) {
      // Path rules (confinement, secrets, git directories) stay pterm's own refusals.
      if (!(error instanceof OpError) && !(error instanceof ViewError)) throw error;
      const said = gitApplyMessages(error, file, block, files.length);
      gitErrors.push(...said);
      say(file, ...said.map((line) => `error: ${line}`));
    }
  }
  if (gitErrors.length > 0) {
    // The hunks that ended their file in the files that did apply: git warns of the blank lines they
    // add at the end as it applies each file, before it knows another file fails.
    const endingFile = reports.flatMap((r) => (r.ends_file && r.patch_line !== undefined ? [r.patch_line] : []));
    throw new OpError(
      "PatchApplyError",
      gitErrors.join("\n"),
      { git_errors: gitErrors, git_stderr: transcript, git_hunks_ending_file: endingFile },
      block.bodyLine,
    );
  }
  for (const [rel, state] of results) {
    await view.set(rel, view.absOf(rel), state);
    if (state.kind === "absent" && rel.includes("/")) view.cleanupCandidates.add(rel.slice(0, rel.lastIndexOf("/")));
  }
  return {
    // From what the block did to its files (a diff without file headers has no paths of its own).
    status: files.length === 1 && [...results.values()].every((r) => r.kind === "absent")
      ? "deleted"
      : files.length === 1 && files[0].hasPaths && files[0].oldPath === null
      ? "created"
      : "modified",
    lines_added: added,
    lines_removed: removed,
    files: touched,
    hunks: reports,
    ...(git ? { git_stderr: transcript, git_conflicts: conflicted } : {}),
  };
}

// ---- dispatch -----------------------------------------------------------------------------------

/** Runs a file, line, block or diff block against the view. */
export async function runEditBlock(block: Block, view: View): Promise<BlockOutcome> {
  if (block.op === "git.diff") return await diffOp(block, view);
  const { rel, abs } = await view.locate(block.path, "the block's path");
  switch (block.op) {
    case "file.write":
      if (view.isDir(rel, abs)) throw new ViewError("AlreadyExists", `\`${rel}\` is a folder.`);
      return await writeOp(block, view, rel, abs);
    case "file.append":
    case "file.prepend":
      return await appendOp(block, view, rel, abs);
    case "file.delete":
      return await deleteOp(block, view, rel, abs);
    case "file.move":
      return await moveOp(block, view, rel, abs);
    case "file.chmod":
      return await chmodOp(block, view, rel, abs);
    case "file.eol":
      return await eolOp(block, view, rel, abs);
    case "file.binary":
    case "file.image":
      return await binaryOp(block, view, rel, abs);
    case "line.insert":
    case "line.append":
    case "line.replace":
    case "line.delete":
      return await lineOp(block, view, rel, abs);
    case "block.delete":
    case "block.replace":
      return await blockOp(block, view, rel, abs);
    default:
      throw new Error(`runEditBlock got ${block.op}`);
  }
}
