/**
 * Writes that a reader never sees half done: the new content goes to a temporary file beside
 * the target and is then renamed over it (rename is atomic within a filesystem).
 */

import { basename, dirname, join } from "./path.ts";

let counter = 0;

/** A unique temporary name beside `path`; names start with `.` and end in `.tmp` so listings skip them. */
export function tempPathBeside(path: string): string {
  const unique = `${Date.now().toString(36)}${(counter++).toString(36)}${
    crypto.getRandomValues(new Uint32Array(1))[0].toString(36)
  }`;
  return join(dirname(path), `.${basename(path)}.${unique}.tmp`);
}

export interface AtomicWriteOptions {
  /** File mode for a new file (POSIX only). */
  readonly mode?: number;
  /** Create missing parent folders. */
  readonly mkdirs?: boolean;
  /**
   * Flush to disk before the rename, so the new content also survives a power loss. Without
   * it the write still survives the process being killed; the audit log uses that cheaper form.
   * Default: true.
   */
  readonly durable?: boolean;
}

async function writeTemp(temp: string, bytes: Uint8Array, options: AtomicWriteOptions): Promise<void> {
  if (options.durable === false) {
    await Deno.writeFile(temp, bytes, { createNew: true, mode: options.mode });
    return;
  }
  const file = await Deno.open(temp, { write: true, createNew: true, mode: options.mode });
  try {
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.sync();
  } finally {
    file.close();
  }
}

/**
 * Modes a file of this process was created with and kept whole: the umask (one per process, which
 * pterm never changes) does not narrow them, so a file created with one of them needs no look at
 * its mode afterwards — a writer of 100 files asks once, not 100 times.
 */
const modesKeptByUmask = new Set<number>();

/**
 * Creates `path` (it must not exist) holding `bytes`, and returns it still open, not yet flushed:
 * a writer of many files writes them all, then flushes them together (`file.sync()` of each, all
 * in flight at once), so the file system commits them in one journal transaction instead of one
 * wait per file. `mode` is the file's mode even where the process umask would narrow it.
 */
export function createWritten(path: string, bytes: Uint8Array, mode?: number): Deno.FsFile {
  const file = Deno.openSync(path, { write: true, createNew: true, mode });
  try {
    let written = 0;
    while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    // The umask narrows the mode given at creation; a chmod only when it did, as it dirties the inode again.
    if (mode !== undefined && Deno.build.os !== "windows" && !modesKeptByUmask.has(mode)) {
      if (((file.statSync().mode ?? mode) & 0o7777) !== mode) Deno.chmodSync(path, mode);
      else modesKeptByUmask.add(mode);
    }
    return file;
  } catch (error) {
    file.close();
    try {
      Deno.removeSync(path);
    } catch { /* the error came first */ }
    throw error;
  }
}

/**
 * Flushes a folder's own entries — the names created, renamed or removed in it — to disk: a
 * renamed file survives a power loss only once its folder is flushed. Windows keeps no handle on
 * a folder to flush (its file systems journal names themselves): nothing to do there.
 */
export async function syncFolder(path: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  const folder = await Deno.open(path, { read: true });
  try {
    await folder.sync();
  } finally {
    folder.close();
  }
}

/**
 * The synchronous form, for the kernel's own small writes on the start-up path (the audit
 * log): the first asynchronous file operation of a process costs ~2 ms, a synchronous one
 * ~0.2 ms, and a CLI process has nothing to overlap the wait with. Not durable (no fsync).
 */
export function writeFileAtomicSync(path: string, data: string, options: { mkdirs?: boolean } = {}): void {
  const bytes = new TextEncoder().encode(data);
  const temp = tempPathBeside(path);
  try {
    try {
      Deno.writeFileSync(temp, bytes, { createNew: true });
    } catch (error) {
      if (!(options.mkdirs && error instanceof Deno.errors.NotFound)) throw error;
      Deno.mkdirSync(dirname(path), { recursive: true });
      Deno.writeFileSync(temp, bytes, { createNew: true });
    }
    Deno.renameSync(temp, path);
  } catch (error) {
    try {
      Deno.removeSync(temp);
    } catch { /* it was never created */ }
    throw error;
  }
}

export async function writeFileAtomic(
  path: string,
  data: Uint8Array | string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const temp = tempPathBeside(path);
  try {
    try {
      await writeTemp(temp, bytes, options);
    } catch (error) {
      // Creating folders only when the first attempt finds them missing keeps the common case to two operations.
      if (!(options.mkdirs && error instanceof Deno.errors.NotFound)) throw error;
      await Deno.mkdir(dirname(path), { recursive: true });
      await writeTemp(temp, bytes, options);
    }
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}
