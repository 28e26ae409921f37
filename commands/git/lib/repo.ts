/**
 * A repository: its work tree, its git folders, its config and its objects. pterm works on
 * non-bare repositories whose `.git` is a folder inside the work tree, or a file naming the git
 * folder elsewhere (`gitdir: <path>`, git's "gitfile"), as a submodule (`.git/modules/<name>`) and
 * a linked worktree (`.git/worktrees/<name>`, with a `commondir` file naming the shared
 * repository) have it. See `locateGitDirs` for what is followed and what is refused.
 */

import { PtermError } from "../../../core/errors.ts";
import {
  isGitDirName,
  isSecretPath,
  isStatePath,
  STAGED_WRITE_PREFIX,
  STAGED_WRITE_SUFFIX,
} from "../../../core/paths.ts";
import { dirname, resolve } from "../../../core/path.ts";
import { type GitConfig, parseConfig } from "./config.ts";
import { ObjectStore } from "./objects.ts";

export interface Repo {
  /** Absolute work tree (already confined to the workspace root). */
  readonly dir: string;
  /**
   * The work tree's own git folder (git's `$GIT_DIR`): HEAD, index, logs/HEAD, MERGE_HEAD and the
   * other per-worktree files. `<dir>/.git`, or where its gitfile points.
   */
  readonly gitdir: string;
  /**
   * The shared repository (git's `$GIT_COMMON_DIR`): objects, refs, packed-refs, config, info,
   * other reflogs. The same folder as `gitdir` except in a linked worktree. Paths inside either
   * are best built with `gitPath`, which picks the right one as git's path.c does.
   */
  readonly commondir: string;
  readonly config: GitConfig;
  readonly objects: ObjectStore;
  /** core.filemode: whether the executable bit is tracked. */
  readonly fileMode: boolean;
  readonly ignoreCase: boolean;
  /** core.symlinks: false once pterm has checked a link out as a plain file (git then compares links by content). */
  symlinks: boolean;
  /** The work tree relative to the workspace root (`.` for the root), for messages; set by callers. */
  label: string;
  /** The workspace root every git folder was confined to (absent for a library call without one). */
  readonly root?: string;
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** Whether `dir` is the top of a work tree with a `.git` folder. */
export function isRepositoryDir(dir: string): boolean {
  return isDirectory(`${dir}/.git`) && isDirectory(`${dir}/.git/objects`) && isDirectory(`${dir}/.git/refs`);
}

const KNOWN_EXTENSIONS = new Set(["noop", "preciousobjects", "partialclone", "worktreeconfig"]);

/**
 * The paths git keeps in the common folder rather than in a worktree's own (path.c's
 * `common_list`): a folder name covers everything below it, except the per-worktree exceptions.
 */
const COMMON_FOLDERS = new Set([
  "branches",
  "common",
  "hooks",
  "info",
  "logs",
  "lost-found",
  "objects",
  "refs",
  "remotes",
  "worktrees",
  "rr-cache",
  "svn",
]);
const COMMON_FILES = new Set(["config", "gc.pid", "packed-refs", "shallow"]);
/** Per-worktree although under a common folder: HEAD's reflog, bisect/rewritten/worktree refs, sparse-checkout. */
const PER_WORKTREE_UNDER_COMMON =
  /^(?:logs\/HEAD$|(?:logs\/)?refs\/(?:bisect|rewritten|worktree)(?:\/|$)|info\/sparse-checkout$)/;

/** Whether git keeps `rel` (relative to a git folder) in the common folder. */
export function isCommonGitPath(rel: string): boolean {
  const first = rel.split("/", 1)[0];
  if (COMMON_FILES.has(rel)) return true;
  if (!COMMON_FOLDERS.has(first)) return false;
  return !PER_WORKTREE_UNDER_COMMON.test(rel);
}

/** The absolute path of `rel` in the repository's git folders: the worktree's own or the common one, as git decides. */
export function gitPath(repo: Pick<Repo, "gitdir" | "commondir">, rel: string): string {
  if (repo.gitdir === repo.commondir) return `${repo.gitdir}/${rel}`;
  return `${isCommonGitPath(rel) ? repo.commondir : repo.gitdir}/${rel}`;
}

/**
 * git's own files and folders are never reached through a symbolic link: Deno's permission wall
 * checks the path as written, not where a link leads, so `.git/objects -> elsewhere` or
 * `.git/logs/HEAD -> a file outside` would let pterm read or write outside the workspace. Every
 * existing component of `rel` under `gitdir` is checked; PathEscape if one is a link.
 */
export function refuseSymlinkedGitPath(gitdir: string, label: string, rel: string): void {
  let path = gitdir;
  for (const part of rel.split("/")) {
    path += `/${part}`;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch {
      return; // not there (yet): nothing of it can lead anywhere
    }
    if (info.isSymlink) {
      const shown = path.slice(gitdir.length + 1);
      throw new PtermError(
        "PathEscape",
        `${label}: ${shown} in its git folder is a symbolic link; pterm never reads or writes git's own files ` +
          "through a link (it could lead outside the workspace). Replace it with a real file or folder using the real git.",
      );
    }
  }
}

/** `refuseSymlinkedGitPath` for `rel` in whichever git folder holds it. */
export function refuseSymlinkedRepoPath(repo: Repo, rel: string): void {
  const base = repo.gitdir === repo.commondir || !isCommonGitPath(rel) ? repo.gitdir : repo.commondir;
  refuseSymlinkedGitPath(base, repo.label, rel);
}

/** The parts of the git folders that every command reads or writes, checked once when a repository is opened. */
const GIT_ENTRIES_NOT_LINKS = [
  "objects",
  "objects/pack",
  "objects/info",
  "refs",
  "refs/heads",
  "refs/tags",
  "logs",
  "logs/HEAD",
  "logs/refs",
  "HEAD",
  "index",
  "config",
  "config.worktree",
  "packed-refs",
  "shallow",
  "info",
  "commondir",
];

/** The longest gitfile or `commondir` file read (git's are one line holding a path). */
const MAX_POINTER_BYTES = 4096;

/** Where a repository's git folders are, once found and confined. */
export interface GitDirs {
  readonly gitdir: string;
  readonly commondir: string;
  /** How the work tree reached them: a `.git` folder, a submodule's or separate git folder, a linked worktree. */
  readonly kind: "folder" | "gitfile" | "worktree";
}

function refuseGitfile(label: string, why: string, code: "PathEscape" | "UnsupportedFormat" = "UnsupportedFormat") {
  return new PtermError(code, `${label}/.git is a gitfile (gitdir: …) that ${why}`);
}

/** The workspace-relative form of an absolute path inside `root`, or null when it is not inside. */
function insideRoot(root: string, abs: string): string | null {
  if (abs === root) return ".";
  const prefix = root.endsWith("/") ? root : root + "/";
  return abs.startsWith(prefix) ? abs.slice(prefix.length) : null;
}

/**
 * `written` (absolute, as a gitfile, `commondir` or `core.worktree` names it) confined to the
 * workspace: lexically inside the root first (a path outside is never even stat'ed), then on its
 * canonical location (symlinks followed), and never in a secret folder, pterm's own state or a
 * file. Returns the canonical path, which is what pterm then reads and writes through, so Deno's
 * permission wall sees the real location.
 */
function confineGitFolder(root: string, written: string, label: string, what: string): string {
  const lexical = resolve("/", written);
  const outside = () =>
    refuseGitfile(
      label,
      `names ${what} outside the workspace; pterm never reads or writes outside the root. Move the repository ` +
        "inside the workspace (for a linked worktree, `git worktree move`/`repair` with the real git).",
      "PathEscape",
    );
  if (insideRoot(root, lexical) === null) throw outside();
  let real: string;
  try {
    real = Deno.realPathSync(lexical);
  } catch {
    throw refuseGitfile(
      label,
      `names ${what} ${insideRoot(root, lexical)}, which does not exist. Repair it with the real git ` +
        "(`git worktree repair`, or `git submodule update --init` / `git submodule absorbgitdirs`).",
      "UnsupportedFormat",
    );
  }
  const rel = insideRoot(root, real);
  if (rel === null) throw outside();
  if (isSecretPath(rel) || isStatePath(rel)) {
    throw refuseGitfile(
      label,
      `names ${what} ${rel}, inside a secret folder or pterm's own state, which git in pterm never reads or writes.`,
      "PathEscape",
    );
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(real);
  } catch {
    throw refuseGitfile(label, `names ${what} ${rel}, which cannot be read.`);
  }
  if (!info.isDirectory) throw refuseGitfile(label, `names ${what} ${rel}, which is not a folder.`);
  return real;
}

function readPointer(path: string): string | null {
  let bytes: Uint8Array;
  try {
    const info = Deno.lstatSync(path);
    if (!info.isFile) return null;
    if (info.size > MAX_POINTER_BYTES) return "";
    bytes = Deno.readFileSync(path);
  } catch {
    return null;
  }
  return new TextDecoder().decode(bytes);
}

/** Whether `rel` (workspace-relative) lies inside some `.git` folder: git's own files, which the kernel never lets a path name. */
function insideDotGit(rel: string): boolean {
  return rel.split("/").some(isGitDirName);
}

/**
 * The git folders of the work tree `dir`, as git's setup.c finds them: `<dir>/.git` when it is a
 * folder; when it is a file, the folder its `gitdir: <path>` line names (relative to `dir`, or
 * absolute); then `commondir` inside that folder, if present, names the shared repository
 * (relative to the git folder). Everything named this way is confined to the workspace root
 * (`confineGitFolder`), and must lead back to this work tree, so a crafted `.git` file cannot
 * lend one work tree another repository's git folder or reach git's files the kernel hides:
 *
 * - a linked worktree's folder must be `<common>/worktrees/<name>` and its `gitdir` file must
 *   name this `.git` (`git worktree add` writes both; `git worktree repair` restores them);
 * - a git folder inside some `.git` (a submodule's `.git/modules/<name>`) must have `core.worktree`
 *   naming this folder (`git submodule` writes it);
 * - a git folder elsewhere (`git init --separate-git-dir`) is an ordinary folder of the workspace,
 *   and `core.worktree`, when set, must name this folder too.
 */
export function locateGitDirs(dir: string, label: string, root: string | undefined): GitDirs {
  const dotGit = `${dir}/.git`;
  let info: Deno.FileInfo | null = null;
  try {
    info = Deno.lstatSync(dotGit);
  } catch { /* absent */ }
  if (info?.isSymlink) {
    throw new PtermError(
      "PathEscape",
      `${label}/.git is a symbolic link; pterm never follows a link to git's own files (it could lead outside ` +
        "the workspace). Replace it with the folder, or with a gitfile (`gitdir: <path>`), using the real git.",
    );
  }
  if (info?.isDirectory) {
    if (readPointer(`${dotGit}/commondir`) !== null) {
      throw new PtermError(
        "UnsupportedFormat",
        `${label}/.git is a folder with a commondir file (a worktree's git folder moved into the work tree); ` +
          "pterm reads linked worktrees only through their gitfile. Run `git worktree repair` with the real git.",
      );
    }
    return { gitdir: dotGit, commondir: dotGit, kind: "folder" };
  }
  if (!info?.isFile) {
    throw new PtermError(
      "NotARepository",
      `${label} is not a git repository (no .git folder there). Create one with \`git init --dir ${label}\`, ` +
        "or give --repo the top folder of the work tree.",
    );
  }
  if (root === undefined) {
    throw refuseGitfile(label, "pterm follows only with a workspace root to confine it to (this call has none).");
  }
  const text = readPointer(dotGit);
  // git's read_gitfile: "gitdir: " then the path; trailing CR/LF dropped.
  const match = text === null ? null : /^gitdir: (.*?)[\r\n]*$/s.exec(text);
  if (!match || match[1] === "" || match[1].includes("\n") || match[1].includes("\0")) {
    throw refuseGitfile(label, "is not in git's format (one line, `gitdir: <path>`); git cannot read it either.");
  }
  const rootReal = Deno.realPathSync(root);
  const dirReal = Deno.realPathSync(dir);
  const gitdir = confineGitFolder(rootReal, resolve(dir, match[1]), label, "its git folder");
  const gitdirRel = insideRoot(rootReal, gitdir)!;
  if (gitdir === dirReal || insideRoot(gitdir, dirReal) !== null) {
    throw refuseGitfile(label, `names ${gitdirRel}, the work tree itself or a folder above it.`);
  }
  const commonText = readPointer(`${gitdir}/commondir`);
  if (commonText !== null) {
    const written = commonText.replace(/[\r\n]+$/, "");
    if (written === "" || written.includes("\n") || written.includes("\0")) {
      throw refuseGitfile(label, `leads to ${gitdirRel}, whose commondir file is not one line naming a folder.`);
    }
    const commondir = confineGitFolder(rootReal, resolve(gitdir, written), label, "a shared repository (commondir)");
    if (dirname(gitdir) !== `${commondir}/worktrees`) {
      throw refuseGitfile(
        label,
        `leads to ${gitdirRel}, a worktree's git folder that is not in its repository's worktrees/ folder; ` +
          "pterm follows only what `git worktree add` makes. Run `git worktree repair` with the real git.",
      );
    }
    const back = readPointer(`${gitdir}/gitdir`)?.replace(/[\r\n]+$/, "");
    let backReal: string | null = null;
    try {
      if (back) backReal = Deno.realPathSync(resolve(gitdir, back));
    } catch { /* stale */ }
    if (backReal !== `${dirReal}/.git`) {
      throw refuseGitfile(
        label,
        `leads to the linked worktree ${gitdirRel}, which records another folder as its work tree ` +
          "(its gitdir file); pterm does not guess. Run `git worktree repair` in this folder with the real git.",
      );
    }
    return { gitdir, commondir, kind: "worktree" };
  }
  const worktree = readCoreWorktree(gitdir);
  if (worktree !== null) {
    let target: string | null = null;
    try {
      target = Deno.realPathSync(resolve(gitdir, worktree));
    } catch { /* missing: not this folder */ }
    if (target !== dirReal) {
      throw refuseGitfile(
        label,
        `leads to ${gitdirRel}, whose core.worktree names another folder as its work tree; pterm does not ` +
          "guess which is meant. Fix core.worktree there with the real git (`git submodule absorbgitdirs`).",
      );
    }
  } else if (insideDotGit(gitdirRel)) {
    throw refuseGitfile(
      label,
      `leads to ${gitdirRel}, a git folder inside .git that does not name this folder as its work tree ` +
        "(no core.worktree, as a submodule's has): it belongs to another work tree, so pterm refuses it.",
      "PathEscape",
    );
  }
  return { gitdir, commondir: gitdir, kind: "gitfile" };
}

function readCoreWorktree(gitdir: string): string | null {
  let text = "";
  try {
    text = Deno.readTextFileSync(`${gitdir}/config`);
  } catch { /* none */ }
  return parseConfig(text).get("core.worktree") ?? null;
}

/** The lines that keep pterm's own state out of real git's view when a repository is the workspace root. */
export const PTERM_STATE_EXCLUDES = [
  "/audit/",
  "/artifacts/",
  "/sessions/",
  "/cache/",
  "/pterm.json",
  `/${STAGED_WRITE_PREFIX}*${STAGED_WRITE_SUFFIX}`,
];
const PTERM_EXCLUDE_HEADER = "# pterm's own state (audit log, artifacts, sessions, cache, config): never committed";

/**
 * When the workspace root is a repository, real git would list pterm's audit log and stdin
 * artifacts as untracked and a later `git add -A` would commit them (issue 15 §5). pterm already
 * hides them from itself; this writes them into `.git/info/exclude` so real git hides them too.
 * Returns whether the file changed.
 */
export function excludePtermState(gitdir: string): boolean {
  const path = `${gitdir}/info/exclude`;
  let text = "";
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return false;
  }
  const present = new Set(text.split(/\r?\n/).map((line) => line.trim()));
  const missing = PTERM_STATE_EXCLUDES.filter((line) => !present.has(line));
  if (missing.length === 0) return false;
  const head = present.has(PTERM_EXCLUDE_HEADER) ? [] : [PTERM_EXCLUDE_HEADER];
  const addition = [...head, ...missing].join("\n") + "\n";
  Deno.mkdirSync(`${gitdir}/info`, { recursive: true });
  Deno.writeTextFileSync(path, (text && !text.endsWith("\n") ? text + "\n" : text) + addition);
  return true;
}

/** Opens the repository whose work tree is `dir`; NotARepository with a hint otherwise. */
export function openRepo(dir: string, label = dir, root?: string): Repo {
  const { gitdir, commondir, kind } = locateGitDirs(dir, label, root);
  if (!isDirectory(`${commondir}/objects`) || !isDirectory(`${commondir}/refs`)) {
    throw new PtermError(
      "NotARepository",
      kind === "folder"
        ? `${label} is not a git repository (no .git folder there). Create one with \`git init --dir ${label}\`, ` +
          "or give --repo the top folder of the work tree."
        : `${label}/.git is a gitfile whose git folder is not a repository (no objects/ and refs/ there); ` +
          "repair it with the real git.",
    );
  }
  for (const rel of GIT_ENTRIES_NOT_LINKS) {
    refuseSymlinkedGitPath(gitdir, label, rel);
    if (commondir !== gitdir) refuseSymlinkedGitPath(commondir, label, rel);
  }
  let configText = "";
  try {
    configText = Deno.readTextFileSync(`${commondir}/config`);
  } catch { /* no config: defaults */ }
  let config = parseConfig(configText);
  if (config.getBool("extensions.worktreeconfig", false)) {
    // extensions.worktreeConfig: the worktree's own config.worktree comes after (and over) the shared one.
    try {
      config = parseConfig(configText + "\n" + Deno.readTextFileSync(`${gitdir}/config.worktree`));
    } catch { /* none */ }
  }
  // core.worktree of a `.git` folder (a gitfile's was checked where it was found): the work tree must be this folder.
  const worktree = kind === "folder" ? config.get("core.worktree") : undefined;
  if (worktree !== undefined) {
    let target: string | null = null;
    try {
      target = Deno.realPathSync(resolve(gitdir, worktree));
    } catch { /* missing */ }
    if (target !== Deno.realPathSync(dir)) {
      throw new PtermError(
        "UnsupportedFormat",
        `${label}'s core.worktree names another folder as its work tree; pterm works on the folder holding .git ` +
          "only. Unset it with the real git (`git config --unset core.worktree`).",
      );
    }
  }
  if (config.getBool("core.bare", false)) {
    throw new PtermError(
      "UnsupportedFormat",
      `${label} is a bare repository; pterm works on repositories with a work tree.`,
    );
  }
  const format = config.get("extensions.objectformat");
  if (format && format.toLowerCase() !== "sha1") {
    throw new PtermError(
      "UnsupportedFormat",
      `${label} uses ${format} object names; pterm supports SHA-1 repositories only.`,
    );
  }
  const version = Number(config.get("core.repositoryformatversion") ?? "0");
  if (version > 1) {
    throw new PtermError(
      "UnsupportedFormat",
      `${label} has repository format version ${version}; pterm supports 0 and 1.`,
    );
  }
  if (version === 1) {
    for (const key of config.keys()) {
      if (!key.startsWith("extensions.")) continue;
      const name = key.slice("extensions.".length);
      if (name !== "objectformat" && !KNOWN_EXTENSIONS.has(name)) {
        throw new PtermError(
          "UnsupportedFormat",
          `${label} needs the git extension ${name}, which pterm does not support.`,
        );
      }
    }
  }
  return {
    dir,
    gitdir,
    commondir,
    config,
    objects: new ObjectStore(commondir, { root }),
    fileMode: config.getBool("core.filemode", true),
    ignoreCase: config.getBool("core.ignorecase", false),
    symlinks: config.getBool("core.symlinks", true),
    label,
    root,
  };
}

/** The folders and files `git init` creates (hooks and samples aside). */
export function initRepo(dir: string, initialBranch: string): { created: boolean } {
  const gitdir = `${dir}/.git`;
  if (isRepositoryDir(dir)) return { created: false };
  // A gitfile (submodule, linked worktree) or a link there: a repository already, never written into.
  const existing = (() => {
    try {
      return Deno.lstatSync(gitdir);
    } catch {
      return null;
    }
  })();
  if (existing && !existing.isDirectory) return { created: false };
  Deno.mkdirSync(dir, { recursive: true });
  for (const sub of ["objects/info", "objects/pack", "refs/heads", "refs/tags", "info"]) {
    Deno.mkdirSync(`${gitdir}/${sub}`, { recursive: true });
  }
  const writeNew = (path: string, text: string) => {
    try {
      Deno.writeTextFileSync(path, text, { createNew: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  };
  writeNew(
    `${gitdir}/config`,
    "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
  );
  writeNew(`${gitdir}/description`, "Unnamed repository; edit this file 'description' to name the repository.\n");
  writeNew(
    `${gitdir}/info/exclude`,
    "# git ls-files --others --exclude-from=.git/info/exclude\n# Lines that start with '#' are comments.\n" +
      "# For a project mostly in C, the following would be a good set of\n# exclude patterns (uncomment them if you want to use them):\n" +
      "# *.[oa]\n# *~\n",
  );
  // HEAD last: its presence is what makes the folder a repository for other tools.
  writeNew(`${gitdir}/HEAD`, `ref: refs/heads/${initialBranch}\n`);
  return { created: true };
}

/**
 * Sets core.symlinks=false (under config.lock): pterm writes links as plain files holding the
 * target, and this tells git to treat them the same way instead of seeing a type change.
 */
export async function disableSymlinks(repo: Repo): Promise<void> {
  if (!repo.symlinks) return;
  const { LockFile } = await import("./lock.ts");
  const path = gitPath(repo, "config");
  const lock = await LockFile.acquire(path, "the repository config");
  try {
    let text = "";
    try {
      text = Deno.readTextFileSync(path);
    } catch { /* none yet */ }
    const lines = text.split("\n");
    const core = lines.findIndex((l) => /^\s*\[core\]\s*$/i.test(l));
    const setting = "\tsymlinks = false";
    if (core < 0) lines.unshift("[core]", setting);
    else lines.splice(core + 1, 0, setting);
    lock.commit(lines.join("\n"));
  } finally {
    lock.rollback();
  }
  repo.symlinks = false;
}
