/**
 * Where a work tree's git folders are (git's setup.c and path.c, the parts pterm needs): its own
 * git folder (`$GIT_DIR`: HEAD, index, per-worktree state) and the common one (`$GIT_COMMON_DIR`:
 * objects, refs, config), found from its `.git` folder or gitfile and confined to the workspace.
 * Kept free of the object layer, so the kernel's network grant (remote/gate.ts) can read a
 * repository's config through it without loading the rest of git.
 */

import { PtermError } from "../../../core/errors.ts";
import { isGitDirName, isSecretPath, isStatePath } from "../../../core/fs/paths.ts";
import { dirname, resolve } from "../../../core/fs/path.ts";
import { parseConfig } from "./config.ts";

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
export function gitPath(repo: { readonly gitdir: string; readonly commondir: string }, rel: string): string {
  if (repo.gitdir === repo.commondir) return `${repo.gitdir}/${rel}`;
  return `${isCommonGitPath(rel) ? repo.commondir : repo.gitdir}/${rel}`;
}

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
