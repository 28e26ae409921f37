/** `ls`, `find`, `glob`: listings of what a walk may show (visible.ts), in the real tools' formats. */

import type { CommandContext } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { confinePathSync } from "../../../core/fs/paths.ts";
import { dirname, join } from "../../../core/fs/path.ts";
import { compareBytes, type Entry, listFolder, type Named, named, walk } from "../visible.ts";
import { globMatcher, nameMatcher, pathMatcher } from "./glob.ts";

// ---- ls ------------------------------------------------------------------------------------------

export interface LsOptions {
  readonly all: boolean;
  readonly almostAll: boolean;
  readonly long: boolean;
  readonly human: boolean;
  readonly time: boolean;
  readonly reverse: boolean;
  readonly directory: boolean;
}

interface Row {
  readonly name: string;
  readonly info: Deno.FileInfo;
  /** Where a symlink points, for `-l`. */
  readonly target?: string;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const SIX_MONTHS_MS = (31556952 / 2) * 1000;

function typeChar(info: Deno.FileInfo): string {
  if (info.isSymlink) return "l";
  if (info.isDirectory) return "d";
  if (info.isFifo) return "p";
  if (info.isSocket) return "s";
  if (info.isCharDevice) return "c";
  if (info.isBlockDevice) return "b";
  return "-";
}

/** `-rwxr-sr-t` from st_mode, as `ls -l` writes it. */
export function modeString(info: Deno.FileInfo): string {
  const mode = info.mode ?? 0;
  const bit = (mask: number, char: string) => (mode & mask ? char : "-");
  const special = (exec: number, flag: number, set: string, unset: string, current: string) =>
    mode & flag ? (mode & exec ? set : unset) : current;
  const user = bit(0o400, "r") + bit(0o200, "w") + special(0o100, 0o4000, "s", "S", bit(0o100, "x"));
  const group = bit(0o40, "r") + bit(0o20, "w") + special(0o10, 0o2000, "s", "S", bit(0o10, "x"));
  const other = bit(0o4, "r") + bit(0o2, "w") + special(0o1, 0o1000, "t", "T", bit(0o1, "x"));
  return typeChar(info) + user + group + other;
}

/** `ls -h`: 1024-based, rounded up, one decimal below 10. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return String(bytes);
  let value = bytes;
  for (const unit of ["K", "M", "G", "T", "P", "E"]) {
    value /= 1024;
    if (value < 10) {
      const tenths = Math.ceil(value * 10) / 10;
      if (tenths < 10) return `${tenths.toFixed(1)}${unit}`;
      return `${Math.ceil(tenths)}${unit}`;
    }
    const whole = Math.ceil(value);
    if (whole < 1024) return `${whole}${unit}`;
  }
  return `${Math.ceil(value)}E`;
}

function dateString(mtime: Date | null, now: number): string {
  if (!mtime) return "?";
  const time = mtime.getTime();
  const day = String(mtime.getDate()).padStart(2);
  const month = MONTHS[mtime.getMonth()];
  if (time > now - SIX_MONTHS_MS && time <= now) {
    return `${month} ${day} ${String(mtime.getHours()).padStart(2, "0")}:${
      String(mtime.getMinutes()).padStart(2, "0")
    }`;
  }
  return `${month} ${day}  ${mtime.getFullYear()}`;
}

function sortRows(rows: Row[], options: LsOptions): Row[] {
  rows.sort((a, b) => {
    if (options.time) {
      const diff = (b.info.mtime?.getTime() ?? 0) - (a.info.mtime?.getTime() ?? 0);
      if (diff !== 0) return diff;
    }
    return compareBytes(a.name, b.name);
  });
  return options.reverse ? rows.reverse() : rows;
}

/** The lines of rows, as `ls -1` or `ls -ln` print them (ids are numbers: pterm reads no user database). */
function formatRows(rows: readonly Row[], options: LsOptions, total: boolean): string {
  if (!options.long) return rows.map((row) => `${row.name}\n`).join("");
  const now = Date.now();
  const size = (row: Row) => options.human ? humanSize(row.info.size) : String(row.info.size);
  const widths = {
    links: Math.max(0, ...rows.map((r) => String(r.info.nlink ?? 1).length)),
    uid: Math.max(0, ...rows.map((r) => String(r.info.uid ?? 0).length)),
    gid: Math.max(0, ...rows.map((r) => String(r.info.gid ?? 0).length)),
    size: Math.max(0, ...rows.map((r) => size(r).length)),
  };
  const lines = rows.map((row) =>
    [
      modeString(row.info),
      String(row.info.nlink ?? 1).padStart(widths.links),
      String(row.info.uid ?? 0).padStart(widths.uid),
      String(row.info.gid ?? 0).padStart(widths.gid),
      size(row).padStart(widths.size),
      dateString(row.info.mtime, now),
      row.target === undefined ? row.name : `${row.name} -> ${row.target}`,
    ].join(" ") + "\n"
  );
  if (!total) return lines.join("");
  const blocks = rows.reduce((sum, row) => sum + (row.info.blocks ?? 0), 0);
  const head = options.human ? humanSize(blocks * 512) : String(Math.ceil(blocks / 2));
  return `total ${head}\n${lines.join("")}`;
}

function linkTarget(abs: string, info: Deno.FileInfo): string | undefined {
  return info.isSymlink ? Deno.readLinkSync(abs) : undefined;
}

function folderRows(root: string, folder: Named, options: LsOptions): Row[] {
  const rows: Row[] = listFolder(root, folder.rel, folder.abs)
    .filter((entry) => options.all || options.almostAll || !entry.name.startsWith("."))
    .map((entry: Entry) => ({ name: entry.name, info: entry.info, target: linkTarget(entry.abs, entry.info) }));
  if (options.all) {
    // The root's `..` is the root itself, as in a chroot: nothing outside it is looked at.
    const parent = folder.rel === "." ? folder.abs : dirname(folder.abs);
    rows.push({ name: ".", info: Deno.statSync(folder.abs) }, { name: "..", info: Deno.statSync(parent) });
  }
  return sortRows(rows, options);
}

export function ls(
  ctx: CommandContext,
  inputs: readonly string[],
  options: LsOptions,
): Promise<Record<string, unknown>> {
  const root = ctx.workspace.root;
  const given = inputs.length ? inputs : ["."];
  const files: Row[] = [];
  const folders: { input: string; folder: Named }[] = [];
  for (const input of given) {
    const item = named(root, input, "ls");
    // `ls -l link` shows the link itself; `ls link` lists the folder it points to.
    const asEntry = options.directory || !item.info.isDirectory || (options.long && item.linkInfo.isSymlink);
    if (asEntry) {
      const info = options.long ? item.linkInfo : item.info;
      files.push({ name: input, info, target: options.long ? linkTarget(join(root, item.input), info) : undefined });
    } else folders.push({ input, folder: item });
  }
  const parts: string[] = [];
  if (files.length) parts.push(formatRows(sortRows(files, options), options, false));
  let entries = files.length;
  const sortedFolders = [...folders].sort((a, b) => compareBytes(a.input, b.input));
  if (options.reverse) sortedFolders.reverse();
  for (const { input, folder } of sortedFolders) {
    const rows = folderRows(root, folder, options);
    entries += rows.length;
    const header = given.length > 1 ? `${input}:\n` : "";
    parts.push(header + formatRows(rows, options, true));
  }
  ctx.stdout.write(parts.join("\n"));
  return Promise.resolve({ entries });
}

// ---- find ----------------------------------------------------------------------------------------

export interface FindOptions {
  readonly name?: string;
  readonly iname?: string;
  readonly path?: string;
  readonly type?: string;
  readonly maxdepth?: number;
  readonly mindepth?: number;
}

function typeMatches(info: Deno.FileInfo, type: string | undefined): boolean {
  if (type === undefined) return true;
  return (type === "f" && info.isFile) || (type === "d" && info.isDirectory) || (type === "l" && info.isSymlink);
}

export function find(
  ctx: CommandContext,
  starts: readonly string[],
  options: FindOptions,
): Promise<Record<string, unknown>> {
  const root = ctx.workspace.root;
  const byName = options.name !== undefined ? nameMatcher(options.name) : null;
  const byIname = options.iname !== undefined ? nameMatcher(options.iname, true) : null;
  const byPath = options.path !== undefined ? pathMatcher(options.path) : null;
  const max = options.maxdepth ?? Infinity;
  const min = options.mindepth ?? 0;
  let found = 0;
  const out: string[] = [];
  const consider = (shown: string, name: string, info: Deno.FileInfo, depth: number) => {
    if (depth < min) return;
    if (!typeMatches(info, options.type)) return;
    if (byName && !byName(name)) return;
    if (byIname && !byIname(name)) return;
    if (byPath && !byPath(shown)) return;
    out.push(`${shown}\n`);
    found++;
  };
  for (const start of starts.length ? starts : ["."]) {
    const item = named(root, start, "find");
    const baseName = start.replace(/\/+$/, "").split("/").pop() || start;
    consider(start, baseName, item.linkInfo, 0);
    if (!item.linkInfo.isDirectory || max < 1) continue;
    const prefix = start.endsWith("/") ? start : `${start}/`;
    const relStart = item.rel;
    for (const entry of walk(root, item.rel, item.abs, (_, depth) => depth < max)) {
      const below = relStart === "." ? entry.rel : entry.rel.slice(relStart.length + 1);
      consider(prefix + below, entry.name, entry.info, entry.depth);
    }
  }
  ctx.stdout.write(out.join(""));
  return Promise.resolve({ found });
}

// ---- glob ----------------------------------------------------------------------------------------

export function glob(ctx: CommandContext, patterns: readonly string[]): Promise<Record<string, unknown>> {
  const root = ctx.workspace.root;
  const matches = new Set<string>();
  for (const pattern of patterns) {
    // An absolute pattern or one with `..` leaves the root: confinement refuses it as it is written.
    if (pattern.startsWith("/") || pattern.split("/").includes("..")) {
      confinePathSync(root, pattern, "read", { label: "glob: the pattern" });
    }
    const { base, match } = globMatcher(pattern);
    let start: Named;
    try {
      start = named(root, base, "glob");
    } catch (error) {
      if (error instanceof PtermError && error.code === "NotFound") continue;
      throw error;
    }
    if (start.rel !== "." && match(start.rel)) matches.add(start.rel);
    if (!start.info.isDirectory) continue;
    for (const entry of walk(root, start.rel, start.abs)) {
      if (match(entry.rel)) matches.add(entry.rel);
    }
  }
  const sorted = [...matches].sort(compareBytes);
  ctx.stdout.write(sorted.map((path) => `${path}\n`).join(""));
  if (sorted.length === 0) {
    throw new PtermError(
      "NoMatch",
      `glob: nothing matches ${
        patterns.map(quoteWord).join(" ")
      }; \`find . -name '<name>'\` searches by name everywhere.`,
    );
  }
  return Promise.resolve({ paths: sorted });
}
