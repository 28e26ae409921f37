/**
 * `.gitignore` as git's dir.c decides it: per-folder files (deeper ones win, later lines win
 * within a file), then `.git/info/exclude`; `!` negation; a trailing `/` matches folders only;
 * a pattern without a slash matches the name at any depth, one with a slash is anchored to
 * its file's folder; once a folder is excluded nothing below it is looked at (so a negation
 * cannot re-include a file inside an excluded folder). `core.excludesFile` (a file outside the
 * repository) is not read.
 */

import { lenientDecoder } from "../odb/bytes.ts";
import { wildmatch } from "./wildmatch.ts";

export interface IgnorePattern {
  readonly pattern: string;
  readonly negative: boolean;
  readonly mustBeDir: boolean;
  /** No slash in the pattern: match the base name only. */
  readonly noDir: boolean;
  /** Folder of the file the pattern came from, with a trailing slash ("" for the top). */
  readonly base: string;
}

export function parseIgnoreFile(text: string, base: string): IgnorePattern[] {
  const patterns: IgnorePattern[] = [];
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  for (let line of text.split("\n")) {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line === "" || line.startsWith("#")) continue;
    line = trimTrailingSpaces(line);
    if (line === "") continue;
    let negative = false;
    if (line.startsWith("!")) {
      negative = true;
      line = line.slice(1);
    }
    let mustBeDir = false;
    if (line.endsWith("/")) {
      mustBeDir = true;
      line = line.slice(0, -1);
    }
    if (line === "") continue;
    const noDir = !line.includes("/");
    patterns.push({ pattern: line, negative, mustBeDir, noDir, base });
  }
  return patterns;
}

/** Trailing spaces go, unless escaped with a backslash (git's trim_trailing_spaces). */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  let lastSpaceStart = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === " ") {
      if (lastSpaceStart < 0) lastSpaceStart = i;
    } else {
      lastSpaceStart = -1;
      if (c === "\\") i++;
    }
  }
  if (lastSpaceStart >= 0) end = lastSpaceStart;
  return line.slice(0, end);
}

/** Whether pattern `p` matches `path` (git's path_matches; shared with .gitattributes). */
export function patternMatches(p: IgnorePattern, path: string, isDir: boolean, caseFold: boolean): boolean {
  if (p.mustBeDir && !isDir) return false;
  if (p.noDir) {
    const slash = path.lastIndexOf("/");
    const name = slash < 0 ? path : path.slice(slash + 1);
    return wildmatch(p.pattern, name, { pathname: false, caseFold });
  }
  let pattern = p.pattern;
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  const baseLen = p.base.length;
  if (baseLen > 0) {
    if (path.length <= baseLen) return false;
    const head = path.slice(0, baseLen);
    if (caseFold ? head.toLowerCase() !== p.base.toLowerCase() : head !== p.base) return false;
  }
  const name = path.slice(baseLen);
  // git's match_pathname compares the pattern's literal head (up to its first wildcard) as text and
  // wildmatches only the rest, so a `**` right after that head stands at the rest's start and spans
  // folders: `a**/**` ignores the file `ab`, as git does.
  const head = literalHead(pattern);
  if (head === 0) return wildmatch(pattern, name, { pathname: true, caseFold });
  if (head > name.length) return false;
  const same = caseFold
    ? pattern.slice(0, head).toLowerCase() === name.slice(0, head).toLowerCase()
    : pattern.slice(0, head) === name.slice(0, head);
  if (!same) return false;
  if (head === pattern.length) return head === name.length;
  return wildmatch(pattern.slice(head), name.slice(head), { pathname: true, caseFold });
}

/** How many characters a pattern starts with before its first wildcard (git's simple_length). */
function literalHead(pattern: string): number {
  const at = pattern.search(/[*?[\\]/);
  return at < 0 ? pattern.length : at;
}

/** The decisive pattern among `list` for `path` (the last one that matches), or null. */
function lastMatch(list: readonly IgnorePattern[], path: string, isDir: boolean, caseFold: boolean) {
  for (let i = list.length - 1; i >= 0; i--) if (patternMatches(list[i], path, isDir, caseFold)) return list[i];
  return null;
}

/** One folder level of the walk: the patterns of its `.gitignore`, and whether the folder itself is excluded. */
export interface IgnoreLevel {
  readonly dir: string;
  readonly patterns: readonly IgnorePattern[];
  readonly parent: IgnoreLevel | null;
}

export class IgnoreRules {
  readonly #worktree: string;
  readonly #exclude: IgnorePattern[];
  readonly #caseFold: boolean;
  readonly #levels = new Map<string, IgnoreLevel>();
  /** Paths (repository-relative) whose `.gitignore` must not be read (secrets, pterm state). */
  readonly #hidden: (path: string) => boolean;

  constructor(worktree: string, gitdir: string, caseFold: boolean, hidden: (path: string) => boolean = () => false) {
    this.#worktree = worktree;
    this.#caseFold = caseFold;
    this.#hidden = hidden;
    let exclude = "";
    try {
      exclude = lenientDecoder.decode(Deno.readFileSync(`${gitdir}/info/exclude`));
    } catch { /* none */ }
    this.#exclude = parseIgnoreFile(exclude, "");
  }

  /**
   * The level of folder `dir` ("" for the top), reading its `.gitignore`; `parent` is the level
   * above. `hasFile` (from a listing the caller already made) saves looking for an absent file.
   */
  level(dir: string, parent: IgnoreLevel | null, hasFile = true): IgnoreLevel {
    const cached = this.#levels.get(dir);
    if (cached) return cached;
    let patterns: IgnorePattern[] = [];
    const file = dir === "" ? ".gitignore" : `${dir}/.gitignore`;
    if (hasFile && !this.#hidden(file)) {
      try {
        const info = Deno.lstatSync(`${this.#worktree}/${file}`);
        if (info.isFile) {
          patterns = parseIgnoreFile(
            lenientDecoder.decode(Deno.readFileSync(`${this.#worktree}/${file}`)),
            dir === "" ? "" : `${dir}/`,
          );
        }
      } catch { /* none */ }
    }
    const level = { dir, patterns, parent };
    this.#levels.set(dir, level);
    return level;
  }

  /** Whether `path` (inside the folder of `level`) is excluded, given that no folder above it is. */
  excludedAt(level: IgnoreLevel, path: string, isDir: boolean): boolean {
    for (let l: IgnoreLevel | null = level; l; l = l.parent) {
      const hit = lastMatch(l.patterns, path, isDir, this.#caseFold);
      if (hit) return !hit.negative;
    }
    const hit = lastMatch(this.#exclude, path, isDir, this.#caseFold);
    return hit ? !hit.negative : false;
  }

  /** Whether an arbitrary path is ignored: some folder on its way, or itself. */
  isIgnored(path: string, isDir: boolean): boolean {
    const parts = path.split("/");
    let level = this.level("", null);
    for (let i = 0; i < parts.length - 1; i++) {
      const dir = parts.slice(0, i + 1).join("/");
      if (this.excludedAt(level, dir, true)) return true;
      level = this.level(dir, level);
    }
    return this.excludedAt(level, path, isDir);
  }
}
