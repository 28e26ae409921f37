/**
 * The virtual view a patch is computed in: files are read once from disk (through the core's
 * confinement), every block edits the in-memory state, and nothing touches the disk until the
 * whole patch has succeeded (then `transaction.ts` writes the difference).
 */

import type { Workspace } from "../../core/context.ts";
import { PtermError } from "../../core/errors.ts";
import { isGitDirectory, isGitDirName, isSecretPath, lstatOrNull, refuseGitPath } from "../../core/fs/paths.ts";
import { join } from "../../core/fs/path.ts";
import { TextDoc } from "./text.ts";

export interface DiskFile {
  readonly bytes: Uint8Array;
  readonly mode: number;
  /** Identity at read time, to notice a change made by someone else before we write. */
  readonly ino: number | null;
  readonly mtimeMs: number | null;
  readonly size: number;
}

/** What a path holds in the view: a file (text kept parsed once it was edited as text), or nothing. */
export type FileState =
  | { readonly kind: "absent" }
  | { readonly kind: "file"; readonly content: Uint8Array | TextDoc; readonly mode: number };

interface Entry {
  readonly rel: string;
  readonly abs: string;
  /** null when nothing was there on disk. */
  readonly disk: DiskFile | null;
  /** The content the view read, when `lineEndings` converted it from the disk's bytes (else null). */
  readonly converted: Uint8Array | null;
  state: FileState;
}

/**
 * How `git apply` reads and writes a repository's work-tree files: the content it patches is the
 * file in git's form (line endings as the index stores them, CRLF kept when the diff's own old
 * lines carry it), and a result is written in the work tree's form, as a checkout writes it.
 */
export interface LineEndings {
  toGit(rel: string, bytes: Uint8Array, keepCrlf: boolean): Promise<Uint8Array>;
  toWorktree(rel: string, bytes: Uint8Array): Promise<Uint8Array>;
}

export const DEFAULT_FILE_MODE = 0o644;

/** Errors the view raises before an op can say which block it was: the op adds that. */
/** How `git apply` reads and places a diff (commands/git's `git apply`). */
export interface GitApplyMode {
  /** `-p<n>`: leading folders taken off the header names (git's default 1). */
  readonly strip: number;
  /** `-R`: the diff applies from its new side back to its old. */
  readonly reverse: boolean;
  /** `--unidiff-zero`: hunks without context are placed by their line numbers alone. */
  readonly unidiffZero: boolean;
  /** `--index`: files must be in the index and match it, and the result is staged. */
  readonly index: boolean;
  /** `--cached`: the index alone is read, checked and changed; the work tree is left as it is. */
  readonly cached: boolean;
  /**
   * `--3way`: a file whose diff names its preimage blob (`index <pre>..`) is merged — the diff
   * applied to that blob, then merged with the file as it is — conflicts left as git leaves them.
   */
  readonly threeway?: boolean;
}

/** A file `git apply --3way` merged with conflicts: the index gets its stages 1 (base; none when created), 2 and 3. */
export interface ThreeWayConflict {
  readonly mode: number;
  readonly base: Uint8Array | null;
  readonly ours: Uint8Array;
  readonly theirs: Uint8Array;
}

export class ViewError extends Error {
  constructor(readonly code: "NotFound" | "AlreadyExists" | "PatchApplyError" | "UnsupportedFormat", message: string) {
    super(message);
  }
}

export function bytesOf(state: FileState & { kind: "file" }): Uint8Array {
  return state.content instanceof TextDoc ? state.content.toBytes() : state.content;
}

export class View {
  readonly #workspace: Workspace;
  /** Repository folder relative to the root ("." for the root) and its canonical absolute path. */
  readonly repoRel: string;
  readonly repoAbs: string;
  readonly #entries = new Map<string, Entry>();
  /** Folders a block deleted as a whole (their files are absent entries). */
  readonly deletedDirs = new Set<string>();
  /** Folders whose emptying should remove them (parents of deleted or moved-away files). */
  readonly cleanupCandidates = new Set<string>();
  /**
   * Index entries a diff sets that a file's content cannot say: a link (120000, written as a plain
   * file holding its target) or a submodule pointer (160000, no file; oid null removes it).
   */
  readonly specialEntries = new Map<
    string,
    { mode: 0o120000 | 0o160000 | 0o100644 | 0o100755; oid: string | null }
  >();
  /** Renamed or copied paths whose diff states no mode: they take their source's index mode (a link stays one). */
  readonly modeSources = new Map<string, string>();
  /**
   * The commit the index's submodule pointer at a path records (null: none), in a repository; a
   * diff that renames a submodule says no mode and has no file to read, only this.
   */
  indexGitlink: ((rel: string) => Promise<string | null>) | null = null;
  /** Apply hunks whose result is already in the file instead of refusing them as AlreadyApplied. */
  reapply = false;
  /**
   * Where files are read from instead of the disk (`git apply --cached`: the index), null: the disk.
   * Such a view's changes are never written to the work tree.
   */
  source: ((rel: string) => Promise<{ bytes: Uint8Array; mode: number } | null>) | null = null;
  /** Diffs apply with `git apply`'s semantics and messages (the `git apply` spelling), else null. */
  gitApply: GitApplyMode | null = null;
  /** Work-tree files are patched in git's form and written back in the work tree's (git apply), else null. */
  lineEndings: LineEndings | null = null;
  /** Paths whose diff's old lines end in CRLF: read with their line endings kept (git's crlf_in_old). */
  readonly keepCrlf = new Set<string>();
  /** The index entry (stage 0) at a path, in a repository: what `git apply --index` checks against. */
  indexEntry: ((rel: string) => Promise<{ oid: string; mode: number; matches: boolean | null } | null>) | null = null;
  /** The blob an abbreviated object name names in the repository, or null (`git apply --3way`'s preimage). */
  blobByPrefix: ((prefix: string) => Promise<Uint8Array | null>) | null = null;
  /** `git apply --3way`'s merge of one file's three versions, or null outside a repository. */
  threeWayMerge:
    | ((
      rel: string,
      sides: { base: Uint8Array; ours: Uint8Array; theirs: Uint8Array },
    ) => Promise<{ bytes: Uint8Array; conflicted: boolean; warning: string | null }>)
    | null = null;
  /** Files `git apply --3way` merged with conflicts, by path. */
  readonly threeWayConflicts = new Map<string, ThreeWayConflict>();

  constructor(workspace: Workspace, repoRel: string, repoAbs: string) {
    this.#workspace = workspace;
    this.repoRel = repoRel;
    this.repoAbs = repoAbs;
  }

  /**
   * A patch path → its normalized repository-relative form and absolute location, through the
   * core's confinement (`..`, absolute, escapes, secrets, pterm's state), refusing `.git/`
   * and any symlink on the way from the repository down to the target.
   */
  async locate(input: string, label: string): Promise<{ rel: string; abs: string }> {
    // The tree does not change under a patch (it holds the lock), so a path resolves once.
    const known = this.#located.get(input);
    if (known) return known;
    const located = await this.#locate(input, label);
    this.#located.set(input, located);
    return located;
  }

  readonly #located = new Map<string, { rel: string; abs: string }>();

  async #locate(input: string, label: string): Promise<{ rel: string; abs: string }> {
    if (input.includes("\\")) {
      throw new PtermError("InvalidPath", `${label} \`${input}\` contains a backslash; separate folders with /.`);
    }
    const segments = input.split("/").filter((s) => s !== "" && s !== ".");
    refuseGitPath(segments.join("/"), input, label);
    if (segments.length === 0 && !input.startsWith("/")) {
      throw new PtermError("InvalidPath", `${label} is empty; name a file relative to the repository.`);
    }
    const fromRoot = this.repoRel === "." ? input : `${this.repoRel}/${input}`;
    const confined = await this.#workspace.resolve(fromRoot, "write", { label });
    const rel = segments.join("/");
    const abs = join(this.repoAbs, ...segments);
    // Confinement followed symlinks to the canonical location; a patch never writes through one.
    // The canonical location is the written one exactly when no folder on the way and not the file
    // itself is a symlink (a link that resolved to its own path would be a loop, which confinement
    // refuses), so only a path that moved needs the walk that names the link.
    if (confined.abs === abs) return { rel, abs };
    let current = this.repoAbs;
    for (const [i, segment] of segments.entries()) {
      current = join(current, segment);
      const info = lstatOrNull(current);
      if (info === null) break;
      if (info.isSymlink) {
        const shown = segments.slice(0, i + 1).join("/");
        throw new PtermError(
          "PatchApplyError",
          `${label} \`${input}\` goes through the symlink \`${shown}\`; a patch never writes through symlinks. ` +
            "Edit the file the link points to by its real path.",
        );
      }
    }
    throw new PtermError("PathEscape", `${label} \`${input}\` does not resolve to where it is written.`);
  }

  async #entry(rel: string, abs: string): Promise<Entry> {
    const known = this.#entries.get(rel);
    if (known) return known;
    const info = this.source ? null : lstatOrNull(abs);
    let disk: DiskFile | null = null;
    if (this.source) {
      const file = await this.source(rel);
      if (file) disk = { bytes: file.bytes, mode: file.mode, ino: null, mtimeMs: null, size: file.bytes.length };
    } else if (info?.isFile) {
      const bytes = Deno.readFileSync(abs);
      disk = {
        bytes,
        mode: (info.mode ?? DEFAULT_FILE_MODE) & 0o7777,
        ino: info.ino,
        mtimeMs: info.mtime?.getTime() ?? null,
        size: info.size,
      };
    } else if (info?.isSymlink) {
      throw new PtermError("PatchApplyError", `\`${rel}\` is a symlink; a patch never writes through symlinks.`);
    }
    const converted = disk && this.lineEndings && !this.source
      ? await this.lineEndings.toGit(rel, disk.bytes, this.keepCrlf.has(rel))
      : null;
    const entry: Entry = {
      rel,
      abs,
      disk,
      converted: converted && !equalBytes(converted, disk!.bytes) ? converted : null,
      state: disk ? { kind: "file", content: converted ?? disk.bytes, mode: disk.mode } : { kind: "absent" },
    };
    this.#entries.set(rel, entry);
    return entry;
  }

  async get(rel: string, abs: string): Promise<FileState> {
    return (await this.#entry(rel, abs)).state;
  }

  /** The file as text; ViewError when it is missing, a folder or not text. */
  async text(rel: string, abs: string): Promise<TextDoc> {
    const entry = await this.#entry(rel, abs);
    if (entry.state.kind === "absent") {
      if (this.isDir(rel, abs)) throw new ViewError("PatchApplyError", `\`${rel}\` is a folder, not a file.`);
      throw new ViewError("NotFound", `\`${rel}\` does not exist (create it first, e.g. with file.write).`);
    }
    if (entry.state.content instanceof TextDoc) return entry.state.content;
    const doc = TextDoc.fromBytes(entry.state.content);
    if (!doc) {
      throw new ViewError(
        "UnsupportedFormat",
        `\`${rel}\` is not UTF-8 text; line, block and diff edits need text (use file.binary to replace it).`,
      );
    }
    entry.state = { kind: "file", content: doc, mode: entry.state.mode };
    return doc;
  }

  async set(rel: string, abs: string, state: FileState): Promise<void> {
    const entry = await this.#entry(rel, abs);
    // A path that already holds a file has valid parents; only new files need the check.
    if (state.kind === "file" && entry.state.kind !== "file") this.#checkParents(rel);
    entry.state = state;
  }

  /** A file cannot be written where a folder is, nor below something that is a file. */
  #checkParents(rel: string): void {
    const segments = rel.split("/");
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join("/");
      const entry = this.#entries.get(parent);
      const parentAbs = join(this.repoAbs, ...segments.slice(0, i));
      const isFile = entry ? entry.state.kind === "file" : (lstatOrNull(parentAbs))?.isFile === true;
      if (isFile) {
        throw new ViewError("AlreadyExists", `\`${parent}\` is a file, so \`${rel}\` cannot be created below it.`);
      }
    }
    if (this.isDir(rel, join(this.repoAbs, ...segments))) {
      throw new ViewError("AlreadyExists", `\`${rel}\` is a folder; delete or move it before writing a file there.`);
    }
  }

  /** Whether `rel` is a folder in the view: on disk (and not deleted as a whole) or holding new files. */
  isDir(rel: string, abs: string): boolean {
    for (const entry of this.#entries.values()) {
      if (entry.state.kind === "file" && entry.rel.startsWith(rel + "/")) return true;
    }
    const info = lstatOrNull(abs);
    if (!info?.isDirectory) return false;
    if (this.#deletedWholly(rel)) return false;
    return true;
  }

  #deletedWholly(rel: string): boolean {
    for (const dir of this.deletedDirs) if (rel === dir || rel.startsWith(dir + "/")) return true;
    return false;
  }

  /** Every file under a folder in the view (on disk and new), repository-relative, sorted. */
  async filesUnder(rel: string, abs: string): Promise<string[]> {
    const found = new Set<string>();
    if (!this.#deletedWholly(rel)) await this.#walk(rel, abs, found);
    for (const entry of this.#entries.values()) {
      if (entry.rel.startsWith(rel + "/")) {
        if (entry.state.kind === "file") found.add(entry.rel);
        else found.delete(entry.rel);
      }
    }
    return [...found].sort();
  }

  async #walk(rel: string, abs: string, into: Set<string>): Promise<void> {
    for await (const item of Deno.readDir(abs)) {
      const childRel = `${rel}/${item.name}`;
      const childAbs = join(abs, item.name);
      if (item.isSymlink) {
        throw new ViewError(
          "PatchApplyError",
          `\`${childRel}\` is a symlink; a patch never touches symlinks. Remove it outside the patch first.`,
        );
      }
      const fromRoot = this.repoRel === "." ? childRel : `${this.repoRel}/${childRel}`;
      if (isSecretPath(fromRoot)) {
        throw new PtermError(
          "SecretPathDenied",
          `\`${rel}\` holds the secret path \`${childRel}\`; a patch never touches secrets, so it cannot delete or ` +
            "move this folder as a whole. Name the other files one by one.",
        );
      }
      if (isGitDirName(item.name)) {
        throw new ViewError(
          "PatchApplyError",
          `\`${rel}\` holds a .git folder (a nested repository); refusing to touch it.`,
        );
      }
      if (item.isDirectory && isGitDirectory(childAbs)) {
        throw new PtermError(
          "GitDirDenied",
          `\`${rel}\` holds \`${childRel}\`, a git directory (HEAD, objects/ and refs/: a bare repository or a ` +
            "separate git dir); a patch never deletes or moves git's own files, so it cannot take this folder as a " +
            "whole. Name the other files one by one, or remove the repository yourself.",
        );
      }
      if (item.isDirectory) await this.#walk(childRel, childAbs, into);
      else if (item.isFile) into.add(childRel);
    }
  }

  /** Absolute location of a repository-relative path already validated by `locate`. */
  absOf(rel: string): string {
    return join(this.repoAbs, ...rel.split("/"));
  }

  /**
   * The entries whose final state differs from the disk, in path order, with the bytes to write
   * (in the work tree's form where `lineEndings` converts). A file whose content is left as the
   * view read it keeps the disk's bytes, line endings included.
   */
  async changes(): Promise<Change[]> {
    const out: Change[] = [];
    for (const entry of [...this.#entries.values()].sort((a, b) => (a.rel < b.rel ? -1 : 1))) {
      const after = entry.state;
      const before = entry.disk;
      if (after.kind === "absent") {
        if (before) out.push({ rel: entry.rel, abs: entry.abs, before, after: null });
        continue;
      }
      const content = bytesOf(after);
      let bytes = content;
      if (before && equalBytes(entry.converted ?? before.bytes, content)) bytes = before.bytes;
      else if (this.lineEndings && !this.source) bytes = await this.lineEndings.toWorktree(entry.rel, content);
      if (before && before.mode === after.mode && equalBytes(before.bytes, bytes)) continue;
      out.push({
        rel: entry.rel,
        abs: entry.abs,
        before,
        after: { bytes, mode: after.mode },
        ...(this.lineEndings && !this.source ? { blob: content } : {}),
      });
    }
    return out;
  }

  /** Folders that end up empty because their files were deleted or moved away (deepest first). */
  async emptiedDirs(): Promise<string[]> {
    const candidates = new Set<string>(this.deletedDirs);
    for (const dir of this.cleanupCandidates) {
      let d = dir;
      while (d !== "" && d !== ".") {
        candidates.add(d);
        d = d.includes("/") ? d.slice(0, d.lastIndexOf("/")) : "";
      }
    }
    const emptied = new Set<string>();
    for (const dir of candidates) {
      const below: string[] = [];
      // A folder the patch deletes goes whole; one it merely empties goes only if nothing else is left
      // in it — not even an empty folder it did not empty (a submodule's, which git keeps).
      const whole = [...this.deletedDirs].some((d) => dir === d || dir.startsWith(d + "/"));
      if (await this.#willBeEmpty(dir, this.absOf(dir), below, whole)) {
        for (const d of [dir, ...below]) emptied.add(d);
      }
    }
    return [...emptied].sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
  }

  /** Whether nothing stays in `rel` once the patch is written; its subfolders are collected into `below`. */
  async #willBeEmpty(rel: string, abs: string, below: string[], whole: boolean): Promise<boolean> {
    const info = lstatOrNull(abs);
    if (!info?.isDirectory) return false;
    let touched = false;
    for (const entry of this.#entries.values()) {
      if (!entry.rel.startsWith(rel + "/")) continue;
      if (entry.state.kind === "file") return false;
      touched = true;
    }
    if (!whole && !touched) return false;
    for await (const item of Deno.readDir(abs)) {
      const childRel = `${rel}/${item.name}`;
      if (item.isDirectory) {
        if (!(await this.#willBeEmpty(childRel, join(abs, item.name), below, whole))) return false;
        below.push(childRel);
      } else if (item.isFile) {
        if (this.#entries.get(childRel)?.state.kind !== "absent") return false;
      } else return false;
    }
    return true;
  }
}

export interface Change {
  readonly rel: string;
  readonly abs: string;
  /** What was on disk when the patch read it (null: nothing). */
  readonly before: DiskFile | null;
  /** What the patch leaves there (null: deleted). */
  readonly after: { readonly bytes: Uint8Array; readonly mode: number } | null;
  /**
   * The result in git's form, where the view converts line endings for the work tree (git apply):
   * what the index records for the path, as git apply stages its result rather than the file read back.
   */
  readonly blob?: Uint8Array;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
