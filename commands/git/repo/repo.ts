/**
 * A repository: its work tree, its git folders, its config and its objects. pterm works on
 * non-bare repositories whose `.git` is a folder inside the work tree, or a file naming the git
 * folder elsewhere (`gitdir: <path>`, git's "gitfile"), as a submodule (`.git/modules/<name>`) and
 * a linked worktree (`.git/worktrees/<name>`, with a `commondir` file naming the shared
 * repository) have it. See `locateGitDirs` for what is followed and what is refused.
 */

import { PtermError } from "../../../core/errors.ts";
import { STAGED_WRITE_PREFIX, STAGED_WRITE_SUFFIX } from "../../../core/fs/paths.ts";
import { resolve } from "../../../core/fs/path.ts";
import { gitPath, isCommonGitPath, locateGitDirs } from "./gitdirs.ts";

export { gitPath, isCommonGitPath, locateGitDirs };
export type { GitDirs } from "./gitdirs.ts";
import { type GitConfig, parseConfig } from "./config.ts";
import { ObjectStore } from "../odb/objects.ts";

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
  /**
   * core.quotePath for this call: whether git's texts escape a name's bytes outside ASCII (`quoteName`).
   * The repository's setting, unless the command line's `-c core.quotePath=…` says otherwise.
   */
  quotePath: boolean;
  /** The call's command-line settings (git's `-c key=value`), read over the config files'; kept by `reopenRepo`. */
  readonly commandLine: readonly CommandLineSetting[];
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
 * artifacts as untracked and a later `git add -A` would commit them. pterm already
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
/** One `-c key=value` of the command line (`-c key` alone is the value "true"). */
export type CommandLineSetting = readonly [key: string, value: string];

/**
 * `dir`'s repository, its config read as git reads it: the shared config, the worktree's own when
 * extensions.worktreeConfig says so, then the command line's settings over both.
 */
export function openRepo(
  dir: string,
  label = dir,
  root?: string,
  commandLine: readonly CommandLineSetting[] = [],
): Repo {
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
  config.override(commandLine);
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
    quotePath: config.getBool("core.quotepath", true),
    commandLine,
    label,
    root,
  };
}

/** A fresh view of `repo` (its object store sees packs added since), with the same command-line settings. */
export function reopenRepo(repo: Repo, root: string | undefined = repo.root): Repo {
  return openRepo(repo.dir, repo.label, root, repo.commandLine);
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
