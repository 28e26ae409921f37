/**
 * Opening files under the workspace root without following symlinks: the kernel's answer to
 * Deno's permission wall being lexical (issue 11, item 4). Deno checks the path as written,
 * so `audit -> /elsewhere` or an `--out` folder swapped for a symlink would let a write land
 * outside the root with the kernel's full permissions. Deno exposes no `openat`/`O_NOFOLLOW`,
 * so the rule is enforced by walking every component with `lstat` right before the open, and
 * checking again, on the opened handle, right before the file is put in place:
 *
 * - every component from the root down (folders and the file) must not be a symlink; missing
 *   folders are created one at a time (`mkdir` never follows a link at its last component);
 * - a write goes to a new temporary file beside the target (`createNew`: O_CREAT|O_EXCL, which
 *   never follows a symlink) and is renamed over the target, so a target with several hard links
 *   is replaced, never written through, and a reader never sees half a file;
 * - before the rename the walk is repeated and the temporary file's identity (device, inode) on
 *   the path is compared with the handle that was written; a folder swapped for a symlink in
 *   between is refused, and the temporary file is removed.
 *
 * What it does not stop: a swap in the microseconds between that last check and `rename(2)`
 * (only `renameat` on an opened folder handle would, which Deno does not expose). The rename
 * then moves a file the attacker cannot choose the content of, within the folder the swap
 * points to. On Windows, where inode numbers are not reported, the identity check is skipped.
 *
 * Stable API for commands (git's object layer, doc --out, patch) to adopt:
 *   safeWriteFileSync(root, rel, data, options?)        write whole, atomically, no symlinks
 *   safeWriteFile(root, rel, data, options?)            the same, asynchronous (fsync by default)
 *   safeReadFileSync(root, rel) / safeReadTextFileSync  read without following symlinks
 *   safeMkdirSync(root, rel)                            create folders, refusing symlinks on the way
 *   assertNoSymlinkSync(root, rel)                      the walk alone
 * `rel` is relative to `root` (the canonical workspace root), `/`-separated, without `..`.
 * Refusals are `PtermError`s: `PathEscape` (a symlink on the way), `NotADirectory` (a file used
 * as a folder), `InvalidPath` (a malformed `rel`).
 */

import { join } from "./path.ts";
import { PtermError } from "./errors.ts";
import { tempPathBeside } from "./atomic.ts";

export interface SafeWriteOptions {
  /** File mode of the new file (POSIX only; default 0o644 less the umask). */
  readonly mode?: number;
  /** Create missing parent folders (each checked). Default: false. */
  readonly mkdirs?: boolean;
  /** fsync before the rename (asynchronous form only). Default: true. */
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

/** Creates the folder `rel` and its missing parents, one at a time, refusing symlinks on the way. */
export function safeMkdirSync(root: string, rel: string): void {
  const segments = segmentsOf(rel);
  walk(root, rel, [...segments, "."], true);
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  if (a.ino === null || b.ino === null) return true; // Windows: no inode numbers
  return a.ino === b.ino && a.dev === b.dev;
}

/** The check right before the rename: the walk again, and the temp file on the path is the handle written. */
function recheck(root: string, rel: string, segments: string[], temp: string, handle: Deno.FileInfo): void {
  walk(root, rel, segments, false);
  const onPath = lstatOrNull(temp);
  if (onPath === null || onPath.isSymlink || !sameFile(onPath, handle)) {
    throw new PtermError(
      "PathEscape",
      `\`${rel}\`: a folder on the way changed while pterm was writing (swapped for a symlink?); nothing was written.`,
    );
  }
}

function encode(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
}

function targetIsFolder(rel: string): PtermError {
  return new PtermError("InvalidArgs", `\`${rel}\` is a folder; give a file path.`);
}

/** Writes `data` as `root/rel`, atomically, never through a symlink or into a shared inode. Not durable. */
export function safeWriteFileSync(
  root: string,
  rel: string,
  data: Uint8Array | string,
  options: SafeWriteOptions = {},
): void {
  const segments = segmentsOf(rel);
  walk(root, rel, segments, options.mkdirs ?? false);
  const target = join(root, ...segments);
  if (lstatOrNull(target)?.isDirectory) throw targetIsFolder(rel);
  const temp = tempPathBeside(target);
  const bytes = encode(data);
  let created = false;
  try {
    const file = Deno.openSync(temp, { write: true, createNew: true, mode: options.mode });
    created = true;
    let handle: Deno.FileInfo;
    try {
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      handle = file.statSync();
    } finally {
      file.close();
    }
    recheck(root, rel, segments, temp, handle);
    Deno.renameSync(temp, target);
    created = false;
  } finally {
    if (created) {
      try {
        Deno.removeSync(temp);
      } catch { /* moved away with its folder */ }
    }
  }
}

/** The asynchronous form of `safeWriteFileSync`; flushes to disk before the rename unless `durable: false`. */
export async function safeWriteFile(
  root: string,
  rel: string,
  data: Uint8Array | string,
  options: SafeWriteOptions = {},
): Promise<void> {
  const segments = segmentsOf(rel);
  walk(root, rel, segments, options.mkdirs ?? false);
  const target = join(root, ...segments);
  if (lstatOrNull(target)?.isDirectory) throw targetIsFolder(rel);
  const temp = tempPathBeside(target);
  const bytes = encode(data);
  let created = false;
  try {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(temp, { write: true, createNew: true, mode: options.mode });
    } catch (error) {
      // The folder checked a moment ago went away (or was swapped): a race, refused by name, never Internal.
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        throw new PtermError(
          "NotFound",
          `${rel}: its folder changed while it was being written (moved or removed); nothing was written. Retry.`,
        );
      }
      throw error;
    }
    created = true;
    let handle: Deno.FileInfo;
    try {
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      if (options.durable !== false) await file.sync();
      handle = await file.stat();
    } finally {
      file.close();
    }
    recheck(root, rel, segments, temp, handle);
    try {
      await Deno.rename(temp, target);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        throw new PtermError(
          "NotFound",
          `${rel}: its folder changed while it was being written (moved or removed); nothing was written. Retry.`,
        );
      }
      throw error;
    }
    created = false;
  } finally {
    if (created) await Deno.remove(temp).catch(() => {});
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
