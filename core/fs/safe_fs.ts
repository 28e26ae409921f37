/**
 * Opening files under the workspace root without following symlinks: the kernel's answer to
 * Deno's permission wall being lexical. Deno checks the path as written,
 * so `audit -> /elsewhere` or an `--out` folder swapped for a symlink would let a write land
 * outside the root with the kernel's full permissions. Deno exposes no `openat`/`O_NOFOLLOW`,
 * so the rule is enforced by walking every component with `lstat` right before the open, and
 * checking again, on the opened handle, right before the file is put in place:
 *
 * - every component from the root down (folders and the file) must not be a symlink; missing
 *   folders are created one at a time (`mkdir` never follows a link at its last component);
 * - a write goes to a new temporary file made directly in the root (`createNew`: O_CREAT|O_EXCL,
 *   which never follows a symlink, and no folder between the root and it that could be swapped),
 *   and then put in place by name, so a target with several hard links is replaced, never
 *   written through, and a reader never sees half a file;
 * - before the placement the walk is repeated. A new target is placed with `link(2)` (it never
 *   replaces anything), an existing one by `rename(2)` from a private name linked beside it first
 *   (its source exists only in the real folder, so through a folder swapped for a symlink the
 *   rename finds nothing to move and replaces nothing). After it, the file on the path must be the
 *   handle that was written (device, inode). If a folder was swapped for a symlink at that
 *   instant, the name landed behind the link: the content is wiped through the still-open handle
 *   and every name of the file but its temporary one is found (same device and inode) and
 *   removed, there or where the link led, so a refused write leaves nothing anywhere.
 *
 * What it does not stop: a swap inside the `rename(2)` system call, between its two path lookups
 * (only `renameat` on an opened folder handle would, which Deno does not expose), and a link
 * swapped away and never back before the stray name is found (reported, bounded). A file system
 * without hard links is written with a plain rename. A target on another file system than the
 * root (a mount inside the root) is written through a temporary file beside it, where a swap
 * between the walk and the `open` can still create that file behind a link. On Windows, where
 * inode numbers are not reported, the identity check is skipped.
 *
 * Stable API for commands (git's object layer, doc --out, patch) to adopt:
 *   safeWriteFileSync(root, rel, data, options?)        write whole, atomically, no symlinks
 *   safeReadFileSync(root, rel) / safeReadTextFileSync  read without following symlinks
 *   safeMkdirSync(root, rel)                            create folders, refusing symlinks on the way
 *   assertNoSymlinkSync(root, rel)                      the walk alone
 * `rel` is relative to `root` (the canonical workspace root), `/`-separated, without `..`.
 * Refusals are `PtermError`s: `PathEscape` (a symlink on the way), `NotADirectory` (a file used
 * as a folder), `InvalidPath` (a malformed `rel`).
 */

import { basename, dirname, join } from "./path.ts";
import { PtermError } from "../errors.ts";
import {
  isStatePath,
  PlannedTree,
  refuseGitDirectoriesAfter,
  STAGED_WRITE_PREFIX,
  STAGED_WRITE_SUFFIX,
} from "./paths.ts";
import { ExecutedPathGuard } from "../git_programs.ts";
import { tempPathBeside } from "./atomic.ts";

export interface SafeWriteOptions {
  /** File mode of the new file (POSIX only; default 0o644 less the umask). */
  readonly mode?: number;
  /** Create missing parent folders (each checked). Default: false. */
  readonly mkdirs?: boolean;
  /** fsync before the rename (a file a user keeps: `doc --out`). Default: false. */
  readonly durable?: boolean;
}

function segmentsOf(rel: string): string[] {
  const segments = rel.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.length === 0 || segments.some((s) => s === ".." || s.includes("\\") || s.includes("\0"))) {
    throw new PtermError("InvalidPath", `\`${rel}\` is not a plain path relative to the workspace root.`);
  }
  return segments;
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    if (error instanceof Deno.errors.NotADirectory) return null;
    throw error;
  }
}

function symlinkRefused(rel: string, shown: string): PtermError {
  return new PtermError(
    "PathEscape",
    `\`${rel}\` goes through the symlink \`${shown}\`; pterm never reads or writes through a symlink here ` +
      "(Deno's permission check would not see where it leads). Replace the link with a real folder or file.",
  );
}

/**
 * Walks `rel` under `root` with lstat: throws if any existing component is a symlink or a
 * non-final component is not a folder. With `mkdirs`, creates the missing folders (not the
 * last component). Returns whether the last component exists.
 */
function walk(root: string, rel: string, segments: string[], mkdirs: boolean): boolean {
  let current = root;
  for (const [i, segment] of segments.entries()) {
    current = join(current, segment);
    const last = i === segments.length - 1;
    let info = lstatOrNull(current);
    if (info === null && !last && mkdirs) {
      try {
        Deno.mkdirSync(current);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      }
      info = lstatOrNull(current);
    }
    if (info === null) {
      if (!last && !mkdirs) return false;
      if (last) return false;
      continue;
    }
    const shown = segments.slice(0, i + 1).join("/");
    if (info.isSymlink) throw symlinkRefused(rel, shown);
    if (!last && !info.isDirectory) {
      throw new PtermError("NotADirectory", `\`${rel}\`: \`${shown}\` is a file, not a folder.`);
    }
  }
  return true;
}

/** Throws `PathEscape` if any existing component of `rel` under `root` is a symlink. */
export function assertNoSymlinkSync(root: string, rel: string): void {
  walk(root, rel, segmentsOf(rel), false);
}

/**
 * Throws `PathEscape` if a folder on the way from `root` to any of `folders` (absolute, under the
 * root) is a symlink; folders that do not exist yet pass, and so does a file where a folder should
 * be (nothing can be written below it: the write itself fails and says so). Each
 * folder is looked at once however many of `folders` share it: a writer of 100 files in two folders
 * checks those two right before it creates and again right before it renames, so a folder that its
 * earlier checks found plain and that was swapped for a link since is caught before anything is
 * written through it.
 */
export function assertNoSymlinkFoldersSync(root: string, folders: Iterable<string>): void {
  const plain = new Set<string>([root]);
  const prefix = root.endsWith("/") ? root : `${root}/`;
  for (const folder of folders) {
    if (plain.has(folder)) continue;
    if (!folder.startsWith(prefix)) {
      throw new PtermError("PathEscape", `\`${folder}\` is not inside the workspace root; nothing was written.`);
    }
    const rel = folder.slice(prefix.length);
    let current = root;
    for (const segment of rel.split("/")) {
      current = join(current, segment);
      if (plain.has(current)) continue;
      const info = lstatOrNull(current);
      if (info === null) break;
      if (info.isSymlink) throw symlinkRefused(rel, current.slice(prefix.length));
      if (!info.isDirectory) break;
      plain.add(current);
    }
  }
}

/** Creates the folder `rel` and its missing parents, one at a time, refusing symlinks on the way. */
export function safeMkdirSync(root: string, rel: string): void {
  const segments = segmentsOf(rel);
  walk(root, rel, [...segments, "."], true);
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  if (a.ino === null || b.ino === null) return true; // Windows: no inode numbers
  return a.ino === b.ino && a.dev === b.dev;
}

function encode(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
}

function targetIsFolder(rel: string): PtermError {
  return new PtermError("InvalidArgs", `\`${rel}\` is a folder; give a file path.`);
}

function swappedBeforeWriting(rel: string): PtermError {
  return new PtermError(
    "PathEscape",
    `\`${rel}\`: a folder on the way changed while pterm looked at it (swapped for a symlink?); nothing was written.`,
  );
}

function swappedWhileWriting(rel: string, removed: boolean): PtermError {
  return new PtermError(
    "PathEscape",
    `\`${rel}\`: a folder on the way was swapped for a symlink while pterm was putting the file in place; ` +
      (removed
        ? "nothing was written, here or where the link led. "
        : "its content was wiped, but an empty file may remain where the link led. ") +
      "Replace the link with a real folder and retry.",
  );
}

/** A folder that went away between the checks and the write is a race, refused by name; anything else stays. */
function folderChangedOr(error: unknown, rel: string): unknown {
  if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
    return new PtermError(
      "NotFound",
      `${rel}: its folder changed while it was being written (moved or removed); nothing was written. Retry.`,
    );
  }
  return error;
}

function isCrossDevice(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "EXDEV";
}

/**
 * Where the new content is written before it is renamed into place. Directly in the root, so
 * no folder between the root and the temporary file can be swapped for a symlink while it is
 * created and written (the root is the trust anchor: its parents are not in the workspace).
 * Only a target on another file system (a mount inside the root) needs a temporary file beside
 * it, where the walk-then-open race remains (`rename(2)` cannot cross file systems).
 */
function stagingPaths(root: string, target: string): { staged: string; beside: string } {
  const unique = `${Date.now().toString(36)}${crypto.getRandomValues(new Uint32Array(2)).join("")}`;
  return {
    staged: join(root, `${STAGED_WRITE_PREFIX}${unique}${STAGED_WRITE_SUFFIX}`),
    beside: tempPathBeside(target),
  };
}

/**
 * How long a look waits for the folders on the way to hold still. Giving up counts as "placed
 * elsewhere", which wipes what was written — and a rename that landed where it should has already
 * replaced the old file — so the bound is generous: a loaded machine can take hundreds of
 * milliseconds to let a look see the same real folders twice while another process keeps swapping them.
 * It is a number of looks as well as a time, so that a machine too loaded to look often in that time
 * still gets as many looks as a quiet one before giving up.
 */
const SETTLE_MS = 3000;
const SETTLE_LOOKS = 2000;

/**
 * How many looks in a row must agree before their answer is believed. One look can be fooled either way:
 * a folder swapped for a symlink and back between the looks at the folders (the same real folder both
 * times) lets the look at the file in between see the name behind the link. Each look in the row would
 * have to be fooled the same way.
 */
const AGREEING_LOOKS = 3;

/** The bound of a settling loop: true once both its time and its number of looks are spent. */
function settleBudget(): () => boolean {
  const deadline = Date.now() + SETTLE_MS;
  let looks = 0;
  return () => ++looks >= SETTLE_LOOKS && Date.now() > deadline;
}

/**
 * After the placement: the file on the path must be the one written. If it is not, and the file
 * written still has a name besides its temporary one in the root (a later writer's rename would
 * have unlinked it), the placement went through a folder swapped for a symlink for an instant.
 * A later writer replacing the file is not an escape (last writer wins, as with any rename).
 * The folders on the way are looked at before and after the file, and must be the same real
 * folders both times (a swap to a link and back between two looks would let the look at the file
 * go through the link); while they are not, the look is repeated, for a bounded time.
 */
function placedWhereWalked(
  root: string,
  segments: string[],
  target: string,
  file: Deno.FsFile,
  tempLinks: number,
): boolean {
  const spent = settleBudget();
  let answer: boolean | null = null;
  let agreeing = 0;
  for (;;) {
    const before = folderIdentities(root, segments);
    const onPath = lstatOrNull(target);
    const after = folderIdentities(root, segments);
    const written = file.statSync();
    if (before !== null && after !== null && before.every((id, i) => id === after[i])) {
      const ours = onPath !== null && !onPath.isSymlink && sameFile(onPath, written);
      // No name but the temporary one: replaced by a later writer, whatever a look may have seen.
      if (!ours && (written.nlink ?? 0) - tempLinks === 0) return true;
      agreeing = ours === answer ? agreeing + 1 : 1;
      answer = ours;
      if (agreeing >= AGREEING_LOOKS) return ours;
      continue;
    }
    agreeing = 0;
    if (spent()) return false;
    pause(1);
  }
}

/**
 * lstat of the target, trusted only if the folders on the way were the same real folders right
 * before and right after (a look through a folder swapped for a symlink would see another file).
 */
function lookAtTarget(root: string, rel: string, segments: string[], target: string): Deno.FileInfo | null {
  const before = folderIdentities(root, segments);
  const info = lstatOrNull(target);
  const after = folderIdentities(root, segments);
  if (before === null || after === null || before.some((id, i) => id !== after[i])) throw swappedBeforeWriting(rel);
  return info;
}

/** A file's device and inode, as folderIdentities writes them. */
function identity(info: Deno.FileInfo): string {
  return `${info.dev}:${info.ino}`;
}

/** Device and inode of the target's own folder (the root itself for a file at the top), or null if it is not a real folder. */
function homeIdentity(root: string, segments: string[]): string | null {
  if (segments.length === 1) {
    const info = lstatOrNull(root);
    return info === null ? null : identity(info);
  }
  return folderIdentities(root, segments)?.at(-1) ?? null;
}

/** Device and inode of each folder from the root down to the target's, or null if one is not a real folder. */
function folderIdentities(root: string, segments: string[]): string[] | null {
  const ids: string[] = [];
  let current = root;
  for (const segment of segments.slice(0, -1)) {
    current = join(current, segment);
    const info = lstatOrNull(current);
    if (info === null || info.isSymlink || !info.isDirectory) return null;
    ids.push(`${info.dev}:${info.ino}`);
  }
  return ids;
}

/**
 * Puts the written file (`temp`) at `target` so that a folder on the way swapped for a symlink at
 * that instant can neither replace nor leave a file where the link leads:
 *
 * - a new target is made with `link(2)`, which never replaces anything;
 * - an existing target is replaced with `rename(2)` from a private name first linked beside it
 *   (again `link(2)`) and checked to be in the walked folder: the rename's source exists only
 *   there, so through a swapped folder the rename finds no source and replaces nothing;
 * - a name that `link(2)` made behind a swapped folder is ours (same inode, a name nothing else
 *   had): `removeStrayNames` finds it where the link leads and removes it.
 *
 * Only a file system without hard links falls back to renaming straight over the target.
 */
function placeSync(temp: string, plan: WritePlan, file: Deno.FsFile): void {
  const { target, rel, existed } = plan;
  const linked = (path: string): boolean => {
    try {
      Deno.linkSync(temp, path);
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new PtermError(
          "AlreadyExists",
          `\`${rel}\` was created by something else while pterm was writing it; nothing was written. Look at it, then retry.`,
        );
      }
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) throw error;
      if (isCrossDevice(error)) throw error;
      return false; // no hard links on this file system
    }
  };
  if (!existed) {
    if (!linked(target)) Deno.renameSync(temp, target);
    return;
  }
  // A short private name (a long target's own name plus a suffix could pass NAME_MAX).
  const beside = join(dirname(target), basename(stagingPaths(plan.root, target).staged));
  if (!linked(beside)) {
    Deno.renameSync(temp, target);
    return;
  }
  const besideName = basename(beside);
  if (!placedWhereWalked(plan.root, plan.segments, beside, file, 1)) {
    throw swappedWhileWriting(rel, removeStrayNames(plan, file, [besideName]) === "removed");
  }
  try {
    Deno.renameSync(beside, target);
  } catch (error) {
    // The folder was a link at the rename: nothing was replaced; the private name goes.
    removeStrayNames(plan, file, [besideName]);
    throw error;
  }
}

/** Sleeps the thread (a synchronous write has nothing else to do meanwhile). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Removes every name of the written file but its temporary one in the root — names `link(2)` made
 * in a folder swapped for a symlink, or a private name beside the target — so that a refused write
 * leaves nothing behind, in the workspace or where a link led. A name is removed only after lstat
 * shows it is this very file (device and inode); a folder on the way that is a symlink is followed
 * to find it. Bounded: a link swapped away and never back leaves its target unknown (reported).
 *
 * With `keepHome`, the name in the target's own folder (the real folder the walk saw, known by its
 * device and inode wherever it is at the moment) is the write placed where it belongs: it is kept, and
 * "home" answered once it is the file's only name besides the temporary ones — the placement was right
 * even though the folders never held still long enough to see it.
 */
function removeStrayNames(
  plan: WritePlan,
  file: Deno.FsFile,
  names: readonly string[],
  options: { keepHome?: boolean; tempLinks?: number } = {},
): "home" | "removed" | "unknown" {
  const written = file.statSync();
  if (written.ino === null) return "unknown"; // no inode numbers (Windows): nothing is removed by guess
  const tempLinks = options.tempLinks ?? 1;
  const folders = plan.segments.slice(0, -1);
  const spent = settleBudget();
  // Seen AGREEING_LOOKS times in a row, so that a look through a folder swapped out and back cannot decide.
  let seenAtHome = 0;
  for (;;) {
    let homeSeen = false;
    let where = plan.root;
    let resolved = false;
    const candidates: { folder: string; resolved: boolean }[] = [];
    for (const [i, folder] of folders.entries()) {
      const path = join(where, folder);
      const info = lstatOrNull(path);
      if (info === null) break;
      if (info.isSymlink) {
        try {
          where = Deno.realPathSync(path);
          resolved = true;
        } catch {
          break;
        }
      } else where = path;
      if (i === folders.length - 1) candidates.push({ folder: where, resolved });
    }
    if (folders.length === 0) candidates.push({ folder: plan.root, resolved: false });
    for (const { folder, resolved } of candidates) {
      // A folder caught mid-swap (gone, or not a folder) is looked at again on the next round.
      const folderInfo = lstatOrNull(folder);
      if (folderInfo === null || !folderInfo.isDirectory) continue;
      const atHome = options.keepHome === true && identity(folderInfo) === plan.home;
      for (const name of names) {
        const path = join(folder, name);
        const info = lstatOrNull(path);
        if (info === null || info.isSymlink || !sameFile(info, written)) continue;
        const still = lstatOrNull(folder);
        // Seen at home only if the folder is still the home folder after the look at the name.
        if (atHome) {
          if (still !== null && identity(still) === plan.home) homeSeen = true;
          continue;
        }
        // The target's own name is removed only where a link led (a folder reached through its real path,
        // which the workspace cannot swap), never through the workspace's own folders: between the look and
        // the removal such a folder may turn back into the home folder (the write's right place) or into a
        // link to where a namesake lives.
        if (options.keepHome === true && !resolved) continue;
        if (still === null || !still.isDirectory || identity(still) !== identity(folderInfo)) continue;
        try {
          Deno.removeSync(path);
        } catch { /* moved meanwhile: looked for again */ }
      }
    }
    const links = (file.statSync().nlink ?? 1) - tempLinks;
    if (links <= 0) return "removed";
    seenAtHome = homeSeen && links === 1 ? seenAtHome + 1 : 0;
    if (seenAtHome === AGREEING_LOOKS) return "home";
    if (spent()) return "unknown";
    pause(1);
  }
}

/** What one safe write is about, fixed before anything is written. */
interface WritePlan {
  readonly root: string;
  readonly rel: string;
  readonly segments: string[];
  readonly target: string;
  /** Whether a file was at the target when the write began (a new one is placed with link(2)). */
  readonly existed: boolean;
  readonly bytes: Uint8Array;
  readonly mode?: number;
  /** The temporary file in the root, then (a mount inside the root only) the one beside the target. */
  readonly temps: readonly [string, string];
  /** Device and inode of the target's folder as the walk found it, a real folder inside the root. */
  readonly home: string;
}

function planWrite(root: string, rel: string, data: Uint8Array | string, options: SafeWriteOptions): WritePlan {
  const segments = segmentsOf(rel);
  walk(root, rel, segments, options.mkdirs ?? false);
  const target = join(root, ...segments);
  const existing = lookAtTarget(root, rel, segments, target);
  if (existing?.isDirectory) throw targetIsFolder(rel);
  const home = homeIdentity(root, segments);
  if (home === null) throw swappedBeforeWriting(rel);
  const { staged, beside } = stagingPaths(root, target);
  return {
    root,
    rel,
    segments,
    target,
    existed: existing !== null,
    bytes: encode(data),
    mode: options.mode,
    temps: [staged, beside],
    home,
  };
}

/**
 * Puts the written temporary file in place and checks that it landed where the walk said; always
 * closes `file` and never leaves the temporary name behind. Returns false (nothing placed) when
 * the target is on another file system than the temporary file and `crossDeviceFallback` allows
 * writing again beside the target.
 */
function settle(plan: WritePlan, temp: string, file: Deno.FsFile, crossDeviceFallback: boolean): boolean {
  const { root, rel, segments, target } = plan;
  try {
    walk(root, rel, segments, false);
    try {
      placeSync(temp, plan, file);
    } catch (error) {
      if (crossDeviceFallback && isCrossDevice(error)) return false;
      // A file "appeared" at a new target: most often the folder was swapped for a link to where
      // such a file exists. Said as that (PathEscape) when the link is still there to see.
      if (error instanceof PtermError && error.code === "AlreadyExists") walk(root, rel, segments, false);
      throw folderChangedOr(error, rel);
    }
    // The temporary name in the root is still there when the file was placed with link(2).
    const tempLinks = lstatOrNull(temp) === null ? 0 : 1;
    if (!placedWhereWalked(root, segments, target, file, tempLinks)) {
      // The folders never held still: where the file is, is found by its names.
      const found = removeStrayNames(plan, file, [segments.at(-1)!], { keepHome: true, tempLinks });
      if (found === "home") return true;
      file.truncateSync(0); // wipe what may remain behind the link, through the handle, never by path
      throw swappedWhileWriting(rel, found === "removed");
    }
    return true;
  } finally {
    file.close();
    try {
      Deno.removeSync(temp); // still named in the root (placed with link) or already renamed away
    } catch { /* already gone */ }
  }
}

/** Closes and removes a temporary file whose writing failed, and passes the failure on. */
function abandon(temp: string, file: Deno.FsFile, error: unknown): never {
  file.close();
  try {
    Deno.removeSync(temp);
  } catch { /* already gone */ }
  throw error;
}

/**
 * Writes `data` as `root/rel`, atomically, never through a symlink or into a shared inode; durable
 * only with `durable: true`. Synchronous on purpose: in a sandbox worker each asynchronous file
 * operation only hops to a thread of Deno's pool and back (~0.2 ms), with nothing to do meanwhile.
 */
export function safeWriteFileSync(
  root: string,
  rel: string,
  data: Uint8Array | string,
  options: SafeWriteOptions = {},
): void {
  const plan = planWrite(root, rel, data, options);
  // The file may complete a git directory's shape (HEAD beside objects/ and refs/): refused before any byte is written.
  refuseGitDirectoriesAfter(
    root,
    new PlannedTree().writeFile(join(root, ...plan.segments), plan.bytes, plan.mode ?? 0o644),
    `writing \`${rel}\``,
  );
  // Nor a file a person's real git executes (a hooks folder, a program its config names); pterm's own state never is.
  if (!isStatePath(rel)) new ExecutedPathGuard(root).refuse(join(root, ...plan.segments), `writing \`${rel}\``);
  for (const [i, temp] of plan.temps.entries()) {
    const beside = i === 1;
    if (beside) walk(root, rel, plan.segments, false);
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(temp, { write: true, createNew: true, mode: plan.mode });
    } catch (error) {
      throw beside ? folderChangedOr(error, rel) : error;
    }
    try {
      let written = 0;
      while (written < plan.bytes.length) written += file.writeSync(plan.bytes.subarray(written));
      if (options.durable === true) file.syncSync();
    } catch (error) {
      abandon(temp, file, error);
    }
    if (settle(plan, temp, file, !beside)) return;
  }
}

/**
 * Reads `root/rel` without following a symlink: the walk, then the opened handle is compared
 * with the path's lstat (a swap between the two is refused). NotFound propagates as Deno's error.
 */
export function safeReadFileSync(root: string, rel: string): Uint8Array {
  const segments = segmentsOf(rel);
  if (!walk(root, rel, segments, false)) throw new Deno.errors.NotFound(`${rel} does not exist`);
  const path = join(root, ...segments);
  const file = Deno.openSync(path, { read: true });
  try {
    const handle = file.statSync();
    const onPath = lstatOrNull(path);
    if (onPath === null || onPath.isSymlink || !sameFile(onPath, handle)) throw symlinkRefused(rel, rel);
    const chunks: Uint8Array[] = [];
    let total = 0;
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const n = file.readSync(buffer);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
      total += n;
    }
    const out = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  } finally {
    file.close();
  }
}

export function safeReadTextFileSync(root: string, rel: string): string {
  return new TextDecoder().decode(safeReadFileSync(root, rel));
}
