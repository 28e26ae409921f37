/**
 * The work tree: which paths pterm may see, and reading / writing files without ever following
 * a symlink out of the repository.
 *
 * Secret paths (a `secrets/` folder or a `.env*` name, core/fs/paths.ts) and — when the repository
 * is the workspace root itself — pterm's own state (`audit/`, `artifacts/`, `sessions/`,
 * `pterm.json`) are invisible: never staged, diffed or shown. A tracked secret's file is still kept in step with
 * the trees pterm checks out (see keptInStep); pterm's own state never is.
 *
 * Writes go through `safeWorktreePath`: every folder on the way must be a real folder inside
 * the work tree (a symlink there is refused, as git refuses "beyond a symbolic link"), so a link
 * checked out or planted in the tree can never redirect a later write outside.
 */

import { PtermError } from "../../../core/errors.ts";
import {
  isGitDirectory,
  isSecretPath,
  isStatePath,
  lstatOrNull,
  PlannedTree,
  refuseGitDirectoriesAfter,
  specialFileKind,
} from "../../../core/fs/paths.ts";
import { ExecutedPathGuard } from "../../../core/git_programs.ts";
import { encoder, hasRawBytes, quoteName } from "../odb/bytes.ts";
import { S_IFLNK, S_IFREG_644, S_IFREG_755 } from "./index_file.ts";
import type { BlobSource } from "../odb/pack.ts";
import type { Repo } from "../repo/repo.ts";

export type HiddenKind = "secret" | "state" | "gitdir";

export interface PathPolicy {
  /** Why `path` (relative to the work tree) is invisible to pterm, or null. */
  hidden(path: string): HiddenKind | null;
  /**
   * `hidden` for `name` inside the visible folder `dir` ("" for the top): checks only the new
   * segment. `folder: false` (a caller that knows it is a file) skips the git-directory check.
   */
  hiddenChild(dir: string, name: string, folder?: boolean): HiddenKind | null;
}

/**
 * The policy for a repository at `repoRel` (relative to the workspace root, "." for the root)
 * whose work tree is at `repoAbs`. Anything inside a git directory by any name (a bare
 * repository, a separate git dir, the repository's own git folder when it lies in the work tree:
 * core's `isGitDirectory`, the same rule confinement applies) is treated exactly as a secret
 * path: its config can hold tokens and name programs git runs.
 */
export function pathPolicy(repoRel: string, repoAbs: string | null): PathPolicy {
  const atRoot = repoRel === "." || repoRel === "";
  // Whether a folder of the work tree (relative, "" excluded) is a git directory, looked up once per call.
  const gitDirs = new Map<string, boolean>();
  const isGitDir = (dir: string): boolean => {
    if (repoAbs === null) return false;
    let known = gitDirs.get(dir);
    if (known === undefined) gitDirs.set(dir, known = isGitDirectory(`${repoAbs}/${dir}`));
    return known;
  };
  const insideGitDir = (path: string): boolean => {
    for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", slash + 1)) {
      if (isGitDir(path.slice(0, slash))) return true;
    }
    return path !== "" && isGitDir(path);
  };
  return {
    hidden(path: string): HiddenKind | null {
      if (isSecretPath(path)) return "secret";
      if (atRoot && isStatePath(path)) return "state";
      if (insideGitDir(path)) return "gitdir";
      return null;
    },
    hiddenChild(dir: string, name: string, folder?: boolean): HiddenKind | null {
      const c = name.charCodeAt(0);
      // Fast exit for names that cannot be "secrets" or ".env*" (s/S or .).
      if ((c === 0x73 || c === 0x53 || c === 0x2e) && isSecretPath(name)) return "secret";
      if (atRoot && dir === "" && isStatePath(name)) return "state";
      if (folder !== false && isGitDir(dir === "" ? name : `${dir}/${name}`)) return "gitdir";
      return null;
    },
  };
}

/**
 * Whether the work-tree file at a hidden path of this kind is written and deleted with the trees pterm checks out.
 * A secret is: pterm never shows its content, but a file real git would have written must be on disk as git
 * would leave it, or the person's git sees a change pterm never made (and `git commit -a` records it). pterm's
 * own state and anything inside a git directory never are.
 */
export function keptInStep(kind: HiddenKind | null): boolean {
  return kind === null || kind === "secret";
}

/** What a hidden path is, in messages. */
export function hiddenWhat(kind: HiddenKind): string {
  return kind === "gitdir"
    ? "inside a git directory (HEAD, objects/ and refs/: a bare repository or a separate git dir), whose config " +
      "and hooks git runs"
    : kind === "state"
    ? "inside pterm's own state"
    : "a secret path (inside a secrets/ folder or named .env*)";
}

/** The refusal for naming a hidden path: `GitDirDenied` inside a git directory, `SecretPathDenied` otherwise. */
export function hiddenPathDenied(path: string, kind: HiddenKind, action: string): PtermError {
  return new PtermError(
    kind === "gitdir" ? "GitDirDenied" : "SecretPathDenied",
    `\`${path}\` is ${hiddenWhat(kind)}; git in pterm never reads or writes it, so ${action}. ` +
      (kind === "gitdir"
        ? "Change a repository's state with git subcommands on the work tree that uses it."
        : "Choose another path."),
  );
}

/** The file mode a work-tree file of index mode `mode` gets (a link is written as a plain file). */
function fileModeOf(mode: number): number {
  return mode === S_IFREG_755 ? 0o755 : 0o644;
}

/** The longest name (one path segment) Linux, macOS and Windows file systems hold, in bytes. */
const NAME_MAX_BYTES = 255;

/** Why pterm cannot name the work-tree file at `path`, or null when it can. */
function unaddressable(path: string): "not UTF-8" | "too long" | null {
  if (hasRawBytes(path)) return "not UTF-8";
  // Only a long path can have a long segment: most paths skip the split.
  if (path.length > NAME_MAX_BYTES / 3) {
    for (const segment of path.split("/")) if (encoder.encode(segment).length > NAME_MAX_BYTES) return "too long";
  }
  return null;
}

/**
 * Refuses, before anything is changed, an operation that would have to create, read or remove a
 * work-tree file pterm cannot name: a name that is not UTF-8 (such names hold their raw bytes as
 * U+DC80–U+DCFF, see bytes.ts; Deno names files in UTF-8 only, and the name it would use is another
 * file's, the bytes replaced by U+FFFD), or a name longer than a file system holds (a tree can
 * carry one; the write would fail halfway through the operation).
 */
export function refuseUnaddressable(paths: Iterable<string>, action: string | null): void {
  const found = { "not UTF-8": [] as string[], "too long": [] as string[] };
  for (const path of paths) {
    const why = unaddressable(path);
    if (why) found[why].push(path);
  }
  const changedNothing = action ? `, so ${action} changed nothing` : "";
  // pterm's own message, names quoted as git's default quotes them (a byte that is not UTF-8 is escaped anyway).
  const list = (paths: string[]) =>
    paths.slice(0, 5).map((path) => quoteName(path, true)).join(", ") +
    (paths.length > 5 ? `, and ${paths.length - 5} more` : "");
  if (found["not UTF-8"].length > 0) {
    throw new PtermError(
      "InvalidPath",
      `pterm cannot write, read or remove ${list(found["not UTF-8"])} in the work tree: the name is not UTF-8, ` +
        `and pterm's file access takes UTF-8 names only${changedNothing}. Do this step with the real git, or ` +
        "rename the file there (`git mv`) and commit.",
    );
  }
  if (found["too long"].length > 0) {
    throw new PtermError(
      "InvalidPath",
      `pterm cannot write, read or remove ${list(found["too long"])} in the work tree: a part of the name is ` +
        `longer than the ${NAME_MAX_BYTES} bytes a file system holds${changedNothing}. No checkout can hold it; ` +
        "rename it in a commit (`git mv` of the index entry with the real git) or leave that commit checked out elsewhere.",
    );
  }
}

/** A path that came from a tree, the index or the agent, checked like git's verify_path. */
export function checkRepoPath(path: string, what = "the path"): void {
  refuseUnaddressable([path], null);
  const bad = path === "" || path.startsWith("/") || path.endsWith("/") || path.includes("\0") ||
    path.split("/").some((s) => s === "" || s === "." || s === ".." || s.toLowerCase() === ".git");
  if (bad) {
    throw new PtermError(
      "PathEscape",
      `${what} \`${path}\` is not a valid path inside the repository (empty, absolute, ., .. or .git segments are refused).`,
    );
  }
}

/** Normalizes a path the agent gave relative to the work tree ("./a//b/" → "a/b"; "." → ""). */
export function normalizeUserPath(path: string): string {
  if (path.includes("\\")) {
    throw new PtermError("InvalidPath", `\`${path}\` contains a backslash; separate folders with /.`);
  }
  if (path.startsWith("/")) {
    throw new PtermError("PathEscape", `\`${path}\` is absolute; give paths relative to the repository (--repo).`);
  }
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.some((p) => p === "..")) {
    throw new PtermError("PathEscape", `\`${path}\` contains a .. segment; paths may not leave the repository.`);
  }
  if (parts.some((p) => p.toLowerCase() === ".git")) {
    throw new PtermError(
      "PathEscape",
      `\`${path}\` points into .git; pterm never touches the repository's internals by path.`,
    );
  }
  return parts.join("/");
}

/** Checks of folders already verified during one operation, so a checkout of many files stays cheap. */
export class WorktreeWriter {
  readonly repo: Repo;
  readonly #verified = new Set<string>([""]);
  /** Where a person's real git executes programs (core.hooksPath, program settings): never written. */
  readonly #executed: ExecutedPathGuard;

  constructor(repo: Repo) {
    this.repo = repo;
    this.#executed = new ExecutedPathGuard(
      repo.root !== undefined && (repo.dir === repo.root || repo.dir.startsWith(`${repo.root}/`))
        ? repo.root
        : repo.dir,
    );
  }

  /**
   * The absolute path for writing `path`: each folder on the way must be a real folder (created
   * when missing). A symlink or a file in the way is refused.
   */
  prepare(path: string): string {
    checkRepoPath(path);
    this.#executed.refuse(`${this.repo.dir}/${path}`, `writing ${path}`);
    const parts = path.split("/");
    let dir = "";
    for (let i = 0; i < parts.length - 1; i++) {
      dir = dir ? `${dir}/${parts[i]}` : parts[i];
      if (this.#verified.has(dir)) continue;
      const abs = `${this.repo.dir}/${dir}`;
      const info = lstatOrNull(abs);
      if (info?.isDirectory) this.#refuseGitDirectory(path, dir);
      if (info === null) {
        Deno.mkdirSync(abs);
      } else if (info.isSymlink) {
        throw new PtermError(
          "PathEscape",
          `refusing to write ${path}: ${dir} is a symbolic link, and pterm never writes through links ` +
            "(it could lead outside the repository). Remove or rename the link first.",
        );
      } else if (!info.isDirectory) {
        throw new PtermError(
          "UncommittedChanges",
          `cannot write ${path}: ${dir} is a file that is in the way. Move or delete it, then retry.`,
        );
      }
      this.#verified.add(dir);
    }
    return `${this.repo.dir}/${path}`;
  }

  /**
   * Refuses, before anything is written, a set of work-tree writes (paths with their index modes)
   * and removals that would together leave a git directory in the work tree (a tracked HEAD beside
   * tracked objects/ and refs/ folders, core's `refuseGitDirectoriesAfter`) or touch a path a
   * person's git executes (a core.hooksPath folder, a program its config names). `action` names
   * the operation ("the checkout"). Each write checks its own file as well; this sees the whole set.
   */
  refuseGitDirectories(writes: Iterable<readonly [string, number]>, removes: Iterable<string>, action: string): void {
    const plan = new PlannedTree();
    for (const [path, mode] of writes) plan.writeFile(`${this.repo.dir}/${path}`, null, fileModeOf(mode));
    for (const path of removes) plan.removeFile(`${this.repo.dir}/${path}`);
    refuseGitDirectoriesAfter(this.repo.dir, plan, action);
    for (const abs of plan.changed) this.#executed.refuse(abs, action);
  }

  /** A folder on the way to `path` that is a git directory (by any name) is never written into. */
  #refuseGitDirectory(path: string, dir: string): void {
    if (!isGitDirectory(`${this.repo.dir}/${dir}`)) return;
    throw hiddenPathDenied(path, "gitdir", "nothing was written there");
  }

  /** Replaces whatever is at `path` with a regular file (symlinks are written as plain files holding their target). */
  writeFile(path: string, content: Uint8Array | BlobSource, mode: number): Deno.FileInfo {
    checkRepoPath(path);
    refuseGitDirectoriesAfter(
      this.repo.dir,
      new PlannedTree().writeFile(
        `${this.repo.dir}/${path}`,
        content instanceof Uint8Array ? content : null,
        fileModeOf(mode),
      ),
      `writing ${path}`,
    );
    const abs = this.prepare(path);
    const fileMode = mode === S_IFREG_755 ? 0o755 : 0o644;
    // A short name beside the target (a long file name plus a suffix could exceed the name limit).
    const temp = `${abs.slice(0, abs.lastIndexOf("/"))}/.pterm-${crypto.randomUUID().slice(0, 12)}.tmp`;
    // The new content first (a blob read from the pack piece by piece may fail midway, which
    // removes the temporary file): what is there goes only once its replacement is complete.
    if (content instanceof Uint8Array) Deno.writeFileSync(temp, content, { createNew: true, mode: fileMode });
    else writeSource(temp, content, fileMode).close();
    try {
      const existing = lstatOrNull(abs);
      if (existing?.isDirectory) {
        removeTreeIfEmptyOrThrow(abs, path);
      } else if (existing) {
        Deno.removeSync(abs);
      }
      if (mode === S_IFREG_755 || mode === S_IFREG_644) Deno.chmodSync(temp, fileMode);
      Deno.renameSync(temp, abs);
    } catch (error) {
      Deno.removeSync(temp);
      throw error;
    }
    return Deno.lstatSync(abs);
  }

  /** Removes a tracked file and then its folders that became empty (as git does). */
  removeFile(path: string): void {
    checkRepoPath(path);
    const abs = `${this.repo.dir}/${path}`;
    this.prepareParentsReadOnly(path);
    const info = lstatOrNull(abs);
    if (info === null) return;
    if (info.isDirectory) return;
    Deno.removeSync(abs);
    this.pruneEmptyParents(path);
  }

  /** Refuses to act below a symlinked folder, without creating anything. */
  prepareParentsReadOnly(path: string): void {
    this.#executed.refuse(`${this.repo.dir}/${path}`, `removing ${path}`);
    const parts = path.split("/");
    let dir = "";
    for (let i = 0; i < parts.length - 1; i++) {
      dir = dir ? `${dir}/${parts[i]}` : parts[i];
      if (this.#verified.has(dir)) continue;
      const info = lstatOrNull(`${this.repo.dir}/${dir}`);
      if (info?.isDirectory) this.#refuseGitDirectory(path, dir);
      if (info === null || !info.isDirectory || info.isSymlink) {
        if (info?.isSymlink) {
          throw new PtermError("PathEscape", `refusing to touch ${path}: ${dir} is a symbolic link.`);
        }
        return;
      }
      this.#verified.add(dir);
    }
  }

  pruneEmptyParents(path: string): void {
    const parts = path.split("/");
    for (let i = parts.length - 1; i > 0; i--) {
      const dir = parts.slice(0, i).join("/");
      try {
        Deno.removeSync(`${this.repo.dir}/${dir}`);
        this.#verified.delete(dir);
      } catch {
        break;
      }
    }
  }
}

function removeTreeIfEmptyOrThrow(abs: string, path: string): void {
  try {
    Deno.removeSync(abs);
  } catch {
    throw new PtermError(
      "UncommittedChanges",
      `cannot write ${path}: a folder with files in it is in the way. Move or delete it, then retry.`,
    );
  }
}

/** The bytes git hashes for a work-tree file: its content, or a symlink's target. */
export function readWorktreeContent(repo: Repo, path: string, info: Deno.FileInfo): Uint8Array {
  refuseUnaddressable([path], null);
  const abs = `${repo.dir}/${path}`;
  if (info.isSymlink) return encoder.encode(Deno.readLinkSync(abs));
  const special = specialFileKind(info);
  if (special) {
    // git: "error: <path>: unsupported file type" / "can only add regular files, symbolic links
    // or git-directories". Reading it would also wait for a writer (a FIFO) or never end (a device).
    throw new PtermError(
      "InvalidPath",
      `${path} is ${special}, which git cannot store or compare (real git refuses it too: "unsupported file ` +
        'type"); remove it or put a regular file there, then retry.',
    );
  }
  return Deno.readFileSync(abs);
}

/** The index mode of a work-tree file. */
export function worktreeMode(repo: Repo, info: Deno.FileInfo, indexMode?: number): number {
  if (info.isSymlink) return S_IFLNK;
  // A link checked out as a plain file (pterm never creates links) keeps its link mode, as with core.symlinks=false.
  if (indexMode === S_IFLNK) return S_IFLNK;
  if (!repo.fileMode) return indexMode === S_IFREG_755 ? S_IFREG_755 : S_IFREG_644;
  return ((info.mode ?? 0) & 0o111) !== 0 ? S_IFREG_755 : S_IFREG_644;
}

export function lstatWorktree(repo: Repo, path: string): Deno.FileInfo | null {
  refuseUnaddressable([path], null);
  return lstatOrNull(`${repo.dir}/${path}`);
}

/**
 * lstat of `path` when every folder on the way is a real folder; null when the path is absent
 * or hidden behind a symlink or a file (git treats those as "not in the work tree"). An operation
 * that looks at many paths passes `realFolders`, the folders it found real already: each folder
 * is then checked once per operation, not once per file in it (git's has_symlink_leading_path
 * keeps the same cache).
 */
export function lstatTracked(repo: Repo, path: string, realFolders?: Set<string>): Deno.FileInfo | null {
  refuseUnaddressable([path], null);
  const slash = path.lastIndexOf("/");
  if (slash > 0 && !realFolders?.has(path.slice(0, slash))) {
    let dir = "";
    for (const part of path.slice(0, slash).split("/")) {
      dir = dir ? `${dir}/${part}` : part;
      if (realFolders?.has(dir)) continue;
      const info = lstatOrNull(`${repo.dir}/${dir}`);
      if (!info?.isDirectory) return null;
      realFolders?.add(dir);
    }
  }
  return lstatOrNull(`${repo.dir}/${path}`);
}

/**
 * Creates `path` (it must not exist) holding the blob `source` pipes, written as it is read, and
 * returns it open (the caller closes it); on a failure the file is removed.
 */
export function writeSource(path: string, source: BlobSource, fileMode: number): Deno.FsFile {
  const file = Deno.openSync(path, { write: true, createNew: true, mode: fileMode });
  try {
    source.pipe((chunk) => {
      let written = 0;
      while (written < chunk.length) written += file.writeSync(chunk.subarray(written));
    });
    return file;
  } catch (error) {
    file.close();
    Deno.removeSync(path);
    throw error;
  }
}
