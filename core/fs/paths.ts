/**
 * Workspace confinement: the one function every
 * command uses to turn a path argument into a real location under the root.
 *
 * The check works on canonical paths: Deno's permission check looks at a symlink's own
 * location, not its target, so this is the first wall against symlink escapes.
 */

import { basename, dirname, isAbsolute, join, resolve, sep } from "./path.ts";
import { PtermError } from "../errors.ts";
import { assertRootHoldsNoPtermCode } from "../root_guard.ts";
import { escapeCodePoint, firstNameControl, NAME_CONTROL } from "../controls.ts";

export type Access = "read" | "write";

/** Folders and files at the root that belong to pterm itself; commands may read but never write them. */
export const STATE_ENTRIES = ["audit", "artifacts", "sessions", "cache", "pterm.json"] as const;

/**
 * The temporary files `core/fs/safe_fs.ts` writes directly in the root before putting them in place
 * (`.pterm-write.<unique>.tmp`): pterm's state too while they exist, and what a killed run leaves.
 */
export const STAGED_WRITE_PREFIX = ".pterm-write.";
export const STAGED_WRITE_SUFFIX = ".tmp";

const MAX_PATH_BYTES = 4096;
const MAX_SEGMENT_BYTES = 255;
const MAX_SYMLINK_HOPS = 40;

export interface ConfinedPath {
  /** Canonical absolute path (symlinks resolved as far as the path exists). */
  readonly abs: string;
  /** The same location relative to the root, with `/` separators; `.` for the root itself. */
  readonly rel: string;
  /** Whether something exists there now (a dangling symlink does not count). */
  readonly exists: boolean;
}

/** True for a path inside a `secrets/` folder or named `.env*` (checked on every segment). */
export function isSecretPath(rel: string): boolean {
  return rel.split(/[\\/]/).some((segment) => {
    const s = segment.toLowerCase();
    return s === "secrets" || s.startsWith(".env");
  });
}

/**
 * True for pterm's own state (`audit/`, `artifacts/`, `sessions/`, `cache/`, `pterm.json`) and
 * anything in it, and for the kernel's temporary files in the root.
 */
export function isStatePath(rel: string): boolean {
  const first = rel.split("/")[0];
  if (first.startsWith(STAGED_WRITE_PREFIX) && first.endsWith(STAGED_WRITE_SUFFIX)) return true;
  return (STATE_ENTRIES as readonly string[]).includes(first.toLowerCase());
}

/**
 * Code points HFS+ ignores when it compares names, so `.g\u200cit` is `.git` on macOS
 * (git's `is_hfs_dotgit`, core.protectHFS).
 */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu;

/**
 * True when a file system of one of the release targets would resolve `segment` to a `.git`
 * folder: compared case-insensitively, without HFS-ignorable code points, and with NTFS's
 * rules (trailing dots and spaces dropped, `GIT~1` the 8.3 short name, `.git::$INDEX_ALLOCATION`
 * an alternate stream of it) — git's own core.protectNTFS/protectHFS checks.
 */
export function isGitDirName(segment: string): boolean {
  const name = segment.replace(HFS_IGNORABLE, "").toLowerCase();
  return /^(?:\.git|git~1)[. ]*(?::.*)?$/.test(name);
}

/** True for a path that names a `.git` folder, or anything inside one, on any segment. */
export function isGitPath(rel: string): boolean {
  return rel.split(/[\\/]/).some(isGitDirName);
}

/**
 * Throws `GitDirDenied` when `rel` names a `.git` folder or anything inside it (see
 * `isGitPath`). Every path flag goes through it via `confinePath`; a command that walks its own
 * paths (patch) calls it too.
 */
export function refuseGitPath(rel: string, input: string, label: string): void {
  if (!isGitPath(rel)) return;
  throw new PtermError(
    "GitDirDenied",
    `${label} \`${input}\` names a .git folder or something inside it; no command reads or writes git's ` +
      "own files by path. Name the repository by its work-tree folder (e.g. `--repo proj`, not `proj/.git`) " +
      "and change git state with `git` subcommands.",
  );
}

const encoder = new TextEncoder();

/** Checks the written form of a path; throws with a message that names the rule broken. */
function checkSyntax(input: string, label: string): string[] {
  if (input.includes("\0")) {
    throw new PtermError("InvalidPath", `${label} contains a NUL byte; remove it.`);
  }
  if (input.length === 0) {
    throw new PtermError(
      "InvalidPath",
      `${label} is empty; give a path relative to the workspace root, or . for the root.`,
    );
  }
  if (encoder.encode(input).length > MAX_PATH_BYTES) {
    throw new PtermError("InvalidPath", `${label} is longer than ${MAX_PATH_BYTES} bytes; use a shorter path.`);
  }
  if (isAbsolute(input) || /^[A-Za-z]:/.test(input) || input.startsWith("\\") || input.startsWith("/")) {
    throw new PtermError(
      "PathEscape",
      `${label} \`${input}\` is absolute; paths are relative to the workspace root (e.g. docs/report.pdf).`,
    );
  }
  if (input.includes("\\")) {
    throw new PtermError("InvalidPath", `${label} \`${input}\` contains a backslash; separate folders with /.`);
  }
  const segments = input.split("/").filter((s) => s !== "" && s !== ".");
  for (const segment of segments) {
    if (segment === "..") {
      throw new PtermError(
        "PathEscape",
        `${label} \`${input}\` contains a .. segment; paths may not leave the workspace root. Name the path from the root instead.`,
      );
    }
    if (encoder.encode(segment).length > MAX_SEGMENT_BYTES) {
      throw new PtermError("InvalidPath", `${label} has a name longer than ${MAX_SEGMENT_BYTES} bytes; shorten it.`);
    }
  }
  return segments;
}

/**
 * A name a write would create (the segments that do not exist yet) holds no control character:
 * no ESC/BEL sequence that a person's terminal would obey when a listing or Tab completion shows
 * it, no bidi override that shows it as another name (core/controls.ts). Names that already exist
 * stay readable, listable (shown escaped) and writable, so such a file can still be read, fixed,
 * moved to a clean name or deleted.
 */
function checkNewNames(created: readonly string[], input: string, label: string): void {
  for (const segment of created) {
    const control = firstNameControl(segment);
    if (control === null) continue;
    const shown = input.replace(new RegExp(NAME_CONTROL.source, "gu"), (ch) => escapeCodePoint(ch));
    throw new PtermError(
      "InvalidPath",
      `${label} \`${shown}\` would create a name holding the control character ${control}, which a terminal ` +
        "showing it would obey (or which shows it as another name); choose a name of printable characters.",
    );
  }
}

function within(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

function toRel(root: string, abs: string): string {
  if (abs === root) return ".";
  return abs.slice(root.length + (root.endsWith(sep) ? 0 : 1)).split(sep).join("/");
}

/** lstat, or null when nothing is there (also when a parent is not a folder). */
export function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) return null;
    throw error;
  }
}

/**
 * What one change (a patch's complete block set, a checkout's plan, one `doc --out` file) leaves in
 * the tree, by absolute path; everything it does not name stays as the disk has it. Used to decide
 * on the state AFTER the change whether it builds a git directory, not on each path on its way in.
 */
export class PlannedTree {
  /** Files the change writes (content null: not known yet, e.g. a blob git will stream) or removes (null). */
  readonly #files = new Map<string, { content: Uint8Array | null; mode: number } | null>();
  /** Folders that exist once the change is made: parents of written files, folders it creates. */
  readonly #folders = new Set<string>();
  /** Folders the change removes as a whole. */
  readonly #removedFolders = new Set<string>();
  /** Every path the change names, for `refuseGitDirectoriesAfter`. */
  readonly changed: string[] = [];

  writeFile(abs: string, content: Uint8Array | null, mode: number): this {
    this.#files.set(abs, { content, mode });
    this.changed.push(abs);
    for (let dir = dirname(abs); dir !== dirname(dir) && !this.#folders.has(dir); dir = dirname(dir)) {
      this.#folders.add(dir);
    }
    return this;
  }

  removeFile(abs: string): this {
    this.#files.set(abs, null);
    this.changed.push(abs);
    return this;
  }

  createFolder(abs: string): this {
    this.changed.push(abs);
    for (let dir = abs; dir !== dirname(dir) && !this.#folders.has(dir); dir = dirname(dir)) this.#folders.add(dir);
    return this;
  }

  removeFolder(abs: string): this {
    this.#removedFolders.add(abs);
    this.changed.push(abs);
    return this;
  }

  /** The planned state at `abs`: a file, a folder, nothing (removed), or undefined when the disk decides. */
  planned(abs: string): { content: Uint8Array | null; mode: number } | "folder" | null | undefined {
    const file = this.#files.get(abs);
    if (file !== undefined) return file;
    if (this.#folders.has(abs)) return "folder";
    for (let dir = abs; dir !== dirname(dir); dir = dirname(dir)) if (this.#removedFolders.has(dir)) return null;
    return undefined;
  }
}

/** The entries that make a folder a git directory, as git looks them up (lower case: a case-insensitive file system finds `Head` too). */
const GIT_DIRECTORY_ENTRIES = new Set(["head", "objects", "refs", "commondir"]);

/**
 * lstat for the git-directory test, which looks at names that may not exist or not be nameable:
 * null also for a name too long for the file system or a parent that is a file (git's own
 * `access`/`lstat` just fail there too).
 */
function lstatQuiet(abs: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(abs);
  } catch {
    return null;
  }
}

/** git's `validate_headref`: a `refs/…` symlink, `ref: refs/…`, or an object name in hex. */
function validHeadContent(bytes: Uint8Array): boolean {
  const text = new TextDecoder().decode(bytes.subarray(0, 256));
  const symbolic = /^ref:\s*(.*)/s.exec(text);
  if (symbolic) return symbolic[1].startsWith("refs/");
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})(?![0-9a-f])/i.test(text);
}

function headAt(abs: string, plan: PlannedTree | null): boolean {
  const planned = plan?.planned(abs);
  if (planned === null || planned === "folder") return false;
  if (planned !== undefined) return planned.content === null || validHeadContent(planned.content);
  const info = lstatQuiet(abs);
  if (info === null) return false;
  if (info.isSymlink) {
    try {
      return Deno.readLinkSync(abs).startsWith("refs/");
    } catch {
      return true;
    }
  }
  if (!info.isFile) return false;
  try {
    const file = Deno.openSync(abs);
    try {
      const buffer = new Uint8Array(256);
      const read = file.readSync(buffer) ?? 0;
      return validHeadContent(buffer.subarray(0, read));
    } finally {
      file.close();
    }
  } catch {
    // Unreadable: git might read it; count it.
    return true;
  }
}

/** git's `access(path, X_OK)` on objects/ and refs/: a folder (also through a link), or an executable file. */
function searchableAt(abs: string, plan: PlannedTree | null): boolean {
  const planned = plan?.planned(abs);
  if (planned === null) return false;
  if (planned === "folder") return true;
  if (planned !== undefined) return (planned.mode & 0o111) !== 0;
  const info = lstatQuiet(abs);
  if (info === null) return false;
  if (info.isSymlink || info.isDirectory) return true;
  return info.isFile && ((info.mode ?? 0) & 0o111) !== 0;
}

function presentAt(abs: string, plan: PlannedTree | null): boolean {
  const planned = plan?.planned(abs);
  if (planned !== undefined) return planned !== null;
  return lstatQuiet(abs) !== null;
}

/**
 * A folder git itself takes for a git directory whatever its name (setup.c `is_git_directory`):
 * a valid HEAD (`validate_headref`), and objects/ and refs/ in it — or a `commondir` file, which
 * sends git to another folder's objects/ and refs/ (a linked worktree's git folder); that is
 * counted without following it. A bare repository, the folder `git init --separate-git-dir` or a
 * submodule's gitfile points to: `.git` under another name, as dangerous to write, since git runs
 * what its config (core.fsmonitor, core.worktree) and hooks name. With `plan`, the state that
 * change leaves; without, the disk. One lstat for most folders (no HEAD).
 */
export function isGitDirectory(abs: string, plan: PlannedTree | null = null): boolean {
  if (!headAt(join(abs, "HEAD"), plan)) return false;
  if (presentAt(join(abs, "commondir"), plan)) return true;
  return searchableAt(join(abs, "objects"), plan) && searchableAt(join(abs, "refs"), plan);
}

/**
 * Refuses (`GitDirDenied`) a change that would leave a git directory where there was none: the
 * state after the whole change is checked, so HEAD, config, objects/ and refs/ written together
 * by one patch or checkout are seen together. Only folders whose child named HEAD, objects, refs
 * or commondir the change touches can change shape; those (up to and including `root`) are checked.
 * `what` names the change in the message ("the patch", "the checkout").
 */
export function refuseGitDirectoriesAfter(root: string, plan: PlannedTree, what: string): void {
  const checked = new Set<string>();
  for (const abs of plan.changed) {
    for (let child = abs, dir = dirname(abs); within(root, dir); child = dir, dir = dirname(dir)) {
      if (!GIT_DIRECTORY_ENTRIES.has(basename(child).toLowerCase()) || checked.has(dir)) continue;
      checked.add(dir);
      if (isGitDirectory(dir, plan)) {
        const rel = toRel(root, dir);
        throw new PtermError(
          "GitDirDenied",
          `${what} would make \`${rel === "." ? "the workspace root" : rel}\` a git directory (a valid HEAD with ` +
            "objects/ and refs/, or a commondir file, in one folder): a person's real git would take it for a " +
            "repository and run what its config and hooks name (core.fsmonitor, core.worktree, hooks/). Nothing " +
            "was written. Keep such files under another folder name (e.g. fixtures/repo-parts/), or create " +
            "repositories with `git init`/`git clone`.",
        );
      }
    }
  }
}

function isFolder(abs: string): boolean {
  return lstatOrNull(abs)?.isDirectory === true;
}

/**
 * Follows `path` (which lstat says exists) to a canonical location, also when the chain ends
 * in a dangling link: then the location it would create is returned, with exists=false.
 */
function canonical(path: string): { real: string; exists: boolean } {
  try {
    return { real: Deno.realPathSync(path), exists: true };
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  let current = path;
  for (let hop = 0; hop < MAX_SYMLINK_HOPS; hop++) {
    const info = lstatOrNull(current);
    if (info === null) {
      const parent = canonicalParent(dirname(current));
      return { real: join(parent, basename(current)), exists: false };
    }
    if (!info.isSymlink) return { real: Deno.realPathSync(current), exists: true };
    const target = Deno.readLinkSync(current);
    current = resolve(dirname(current), target);
  }
  throw new Deno.errors.FilesystemLoop(`more than ${MAX_SYMLINK_HOPS} symlinks from ${path}`);
}

function canonicalParent(dir: string): string {
  const info = lstatOrNull(dir);
  if (info !== null) return canonical(dir).real;
  if (dirname(dir) === dir) return dir;
  return join(canonicalParent(dirname(dir)), basename(dir));
}

/**
 * The folders one call's confinement has already walked into and found plain: a real folder (no
 * symlink), no git directory, inside the root. A later path of the same call through such a folder
 * starts below it instead of repeating its lstat and git-directory test — a patch of 100 files in
 * two folders looks at each folder once, not 100 times. Kept per call (`createWorkspace` makes one
 * per call) and never across calls: a folder swapped for a link after the check is not seen by a
 * later resolve of the same call, exactly as it is not seen between any resolve and the write it
 * leads to; the writes themselves are what must stay safe at that moment (core/fs/safe_fs.ts walks
 * again right before it places a file; a patch's transaction checks its folders for symlinks right
 * before it creates its files and again right before it renames them).
 */
export class ConfinementMemo {
  readonly #plainFolders = new Set<string>();

  /** Whether `abs` (canonical) was found a plain folder by this call. */
  isPlainFolder(abs: string): boolean {
    return this.#plainFolders.has(abs);
  }

  rememberPlainFolder(abs: string): void {
    this.#plainFolders.add(abs);
  }
}

export interface ConfineOptions {
  /** What the path is called in messages, e.g. "--repo". */
  readonly label?: string;
  /**
   * Refuse a path that uses an existing file as a folder (`notes.txt/x.md`) with
   * `NotADirectory`. The kernel sets it for path flags; a command resolving paths of its own
   * transaction (patch: a file deleted by an earlier block) checks its own view instead.
   */
  readonly refuseFileAsFolder?: boolean;
}

/**
 * Resolves `input` (relative to `root`, which must itself be canonical) for reading or
 * writing, or throws: `PathEscape` (.., absolute, or a symlink leading outside),
 * `SecretPathDenied` (secrets/ or .env*), `GitDirDenied` (a `.git` folder or inside one, with
 * git's NTFS/HFS spellings), `ReadOnlyPath` (pterm's state, for writes),
 * `InvalidPath` (NUL, empty, too long, backslash).
 */
export function confinePath(
  root: string,
  input: string,
  access: Access,
  options: ConfineOptions = {},
  memo: ConfinementMemo | null = null,
): Promise<ConfinedPath> {
  try {
    return Promise.resolve(confinePathSync(root, input, access, options, memo));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The synchronous form of `confinePath`. The checks are a handful of lstat/realpath calls,
 * made synchronously: the first asynchronous call of a process costs more than all of them
 * (see core/fs/atomic.ts writeFileAtomicSync).
 */
export function confinePathSync(
  root: string,
  input: string,
  access: Access,
  options: ConfineOptions = {},
  memo: ConfinementMemo | null = null,
): ConfinedPath {
  const label = options.label ?? "the path";
  const segments = checkSyntax(input, label);
  const lexicalRel = segments.join("/");
  checkPolicy(lexicalRel, input, access, label);

  try {
    return walk(root, input, segments, access, label, lexicalRel, options.refuseFileAsFolder ?? false, memo);
  } catch (error) {
    if (error instanceof Deno.errors.FilesystemLoop) {
      throw new PtermError(
        "InvalidPath",
        `${label} \`${input}\` goes through a loop of symlinks; fix or remove the link.`,
      );
    }
    throw error;
  }
}

function walk(
  root: string,
  input: string,
  segments: string[],
  access: Access,
  label: string,
  lexicalRel: string,
  refuseFileAsFolder: boolean,
  memo: ConfinementMemo | null,
): ConfinedPath {
  // Walk down while the path exists; the first missing segment ends the walk, the rest is appended.
  let current = root;
  let index = 0;
  let exists = true;
  // What the last segment is, when lstat saw it directly (not through a link).
  let lastInfo: Deno.FileInfo | null = null;
  for (; index < segments.length; index++) {
    const next = join(current, segments[index]);
    // A folder on the way that this call already found plain: the checks below would repeat.
    if (index < segments.length - 1 && memo?.isPlainFolder(next)) {
      current = next;
      continue;
    }
    const info = lstatOrNull(next);
    lastInfo = info;
    if (info === null) {
      exists = false;
      break;
    }
    if (info.isSymlink) {
      lastInfo = null;
      const followed = canonical(next);
      if (!within(root, followed.real)) {
        throw new PtermError(
          "PathEscape",
          `${label} \`${input}\` goes through the symlink \`${segments.slice(0, index + 1).join("/")}\`, ` +
            "which leads outside the workspace root; use a path that stays inside it.",
        );
      }
      current = followed.real;
      if (!followed.exists) {
        exists = false;
        index++;
        break;
      }
    } else {
      current = next;
    }
    // A regular file holds no HEAD: only a folder (or where a link led) can be a git directory.
    if (!info.isFile && isGitDirectory(current)) {
      throw new PtermError(
        "GitDirDenied",
        `${label} \`${input}\` goes into \`${toRel(root, current)}\`, a git directory (a bare repository or a ` +
          "separate git dir: HEAD, objects/ and refs/ inside) by another name than .git; no command reads or " +
          "writes git's own files by path, since git runs what its config and hooks name. Change its state with " +
          "`git` subcommands on the work tree that uses it.",
      );
    }
    if (refuseFileAsFolder && index < segments.length - 1 && !isFolder(current)) {
      // Checked here, not left to the command: opening `file.txt/x` fails with ENOTDIR, which
      // commands would otherwise report as an internal error.
      throw new PtermError(
        "NotADirectory",
        `${label} \`${input}\` uses \`${
          segments.slice(0, index + 1).join("/")
        }\` as a folder, but it is a file; choose a path whose folders are folders.`,
      );
    }
    if (memo !== null && info.isDirectory) memo.rememberPlainFolder(current);
  }
  if (access === "write") checkNewNames(segments.slice(index), input, label);
  const abs = index < segments.length ? join(current, ...segments.slice(index)) : current;
  if (!within(root, abs)) {
    throw new PtermError("PathEscape", `${label} \`${input}\` resolves outside the workspace root.`);
  }
  const rel = toRel(root, abs);
  if (rel !== lexicalRel && !(rel === "." && lexicalRel === "")) checkPolicy(rel, input, access, label);
  if (exists) {
    const special = specialFileKind(lastInfo ?? lstatOrNull(abs));
    if (special) {
      throw new PtermError(
        "InvalidPath",
        `${label} \`${input}\` is ${special}, not a regular file or folder: pterm reads and writes only regular ` +
          "files and folders (opening it could wait forever or never end). Name a regular file.",
      );
    }
  }
  return { abs, rel, exists };
}

/**
 * What a FIFO, socket or device is called in messages; null for a regular file, folder or symlink.
 * Such a file in the workspace is never opened: reading a FIFO waits for a writer, a device may
 * never end.
 */
export function specialFileKind(info: Deno.FileInfo | null): string | null {
  if (info === null || info.isFile || info.isDirectory || info.isSymlink) return null;
  if (info.isFifo) return "a named pipe (FIFO)";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  return "a special file";
}

function checkPolicy(rel: string, input: string, access: Access, label: string): void {
  refuseGitPath(rel, input, label);
  if (isSecretPath(rel)) {
    throw new PtermError(
      "SecretPathDenied",
      `${label} \`${input}\` is a secret path (inside a secrets/ folder or named .env*); ` +
        "commands never read or write secrets. Choose another path.",
    );
  }
  if (access === "write" && isStatePath(rel)) {
    throw new PtermError(
      "ReadOnlyPath",
      `${label} \`${input}\` is inside pterm's own state (${
        STATE_ENTRIES.join(", ")
      }), which commands may not change; ` +
        "write somewhere else under the root.",
    );
  }
}

/** The canonical workspace root, created if missing; never one that holds pterm's own code (core/root_guard.ts). */
export function prepareRoot(root: string): string {
  assertRootHoldsNoPtermCode(root);
  Deno.mkdirSync(root, { recursive: true });
  return Deno.realPathSync(root);
}
