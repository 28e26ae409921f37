/**
 * A repository: its work tree, its `.git` folder, its config and its objects. pterm works on
 * non-bare repositories whose `.git` is a folder inside the work tree.
 */

import { PtermError } from "../../../core/errors.ts";
import { STAGED_WRITE_PREFIX, STAGED_WRITE_SUFFIX } from "../../../core/paths.ts";
import { type GitConfig, parseConfig } from "./config.ts";
import { ObjectStore } from "./objects.ts";

export interface Repo {
  /** Absolute work tree (already confined to the workspace root). */
  readonly dir: string;
  /** Absolute `.git` folder. */
  readonly gitdir: string;
  readonly config: GitConfig;
  readonly objects: ObjectStore;
  /** core.filemode: whether the executable bit is tracked. */
  readonly fileMode: boolean;
  readonly ignoreCase: boolean;
  /** core.symlinks: false once pterm has checked a link out as a plain file (git then compares links by content). */
  symlinks: boolean;
  /** The work tree relative to the workspace root (`.` for the root), for messages; set by callers. */
  label: string;
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
 * existing component of `rel` under `.git` is checked; PathEscape if one is a link.
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
      const shown = path.slice(gitdir.length - ".git".length);
      throw new PtermError(
        "PathEscape",
        `${label}/${shown} is a symbolic link; pterm never reads or writes git's own files through a link (it ` +
          "could lead outside the workspace). Replace it with a real file or folder using the real git.",
      );
    }
  }
}

/** The parts of .git that every command reads or writes, checked once when a repository is opened. */
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
  "packed-refs",
  "shallow",
  "info",
];

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
  const gitdir = `${dir}/.git`;
  let dotGit: Deno.FileInfo | null = null;
  try {
    dotGit = Deno.lstatSync(gitdir);
  } catch { /* absent */ }
  if (dotGit?.isFile) {
    throw new PtermError(
      "UnsupportedFormat",
      `${label}/.git is a file (a linked worktree or a submodule); pterm only works on repositories whose .git is a folder.`,
    );
  }
  if (!dotGit?.isDirectory || !isRepositoryDir(dir)) {
    throw new PtermError(
      "NotARepository",
      `${label} is not a git repository (no .git folder there). Create one with \`git init --dir ${label}\`, ` +
        "or give --repo the top folder of the work tree.",
    );
  }
  for (const rel of GIT_ENTRIES_NOT_LINKS) refuseSymlinkedGitPath(gitdir, label, rel);
  let configText = "";
  try {
    configText = Deno.readTextFileSync(`${gitdir}/config`);
  } catch { /* no config: defaults */ }
  const config = parseConfig(configText);
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
    config,
    objects: new ObjectStore(gitdir, { root }),
    fileMode: config.getBool("core.filemode", true),
    ignoreCase: config.getBool("core.ignorecase", false),
    symlinks: config.getBool("core.symlinks", true),
    label,
  };
}

/** The folders and files `git init` creates (hooks and samples aside). */
export function initRepo(dir: string, initialBranch: string): { created: boolean } {
  const gitdir = `${dir}/.git`;
  if (isRepositoryDir(dir)) return { created: false };
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
  const path = `${repo.gitdir}/config`;
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
