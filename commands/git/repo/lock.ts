/**
 * git's lock-file protocol, which real git and every pterm run honour: a file `X.lock` created
 * with O_EXCL owns `X`; the new content is written into the lock file and renamed over `X`
 * (which also releases the lock). A process killed in between leaves only the `.lock` file
 * behind, never a half-written `X` — as with git.
 */

import { PtermError } from "../../../core/errors.ts";
import { bytesEqual, encoder } from "../odb/bytes.ts";

/** How long a lock is retried before giving up (git's own ref-lock default is 100 ms). */
const LOCK_RETRY_MS = 200;

/**
 * Who takes a lock: a `git` command, or a `patch apply` (whose own journal recovers its lock
 * after a kill: see commands/patch/transaction.ts).
 */
export type LockOwner = "git" | "patch";

/**
 * What a pterm lock file holds until its new content is written: a marker naming its owner.
 * The holder also keeps an advisory lock (flock) on the file, which the OS drops when the
 * process dies. So a lock file with a `git` marker whose flock is free was left by a pterm run
 * that was killed (a timeout, kill -9): nothing else can be writing through it, and the next
 * run removes it. A lock real git made (no marker) is never touched.
 */
function markerOf(owner: LockOwner): Uint8Array {
  return encoder.encode(`pterm lock (${owner})\n`);
}

/** The lock file as people see it: from `.git/` on, never a host path. */
function shownLockPath(lockPath: string): string {
  const at = lockPath.lastIndexOf("/.git/");
  return at >= 0 ? lockPath.slice(at + 1) : lockPath.slice(lockPath.lastIndexOf("/") + 1);
}

function lockedError(lockPath: string, what: string, leftByPatch: boolean): PtermError {
  const shown = shownLockPath(lockPath);
  if (leftByPatch) {
    return new PtermError(
      "RepoLocked",
      `${what} is locked by a \`patch apply\` that was killed mid-way (the lock file ${shown}); run ` +
        "`patch recover` to finish or roll it back, which also removes the lock.",
    );
  }
  return new PtermError(
    "RepoLocked",
    `${what} is locked by another git process (the lock file ${shown} exists). Wait for it to finish and retry. ` +
      "If no git is running, a crashed real git left it behind: remove that file with the real git's tools " +
      "(pterm never deletes a lock it did not make).",
  );
}

/**
 * Removes `lockPath` if it is a lock a killed pterm `git` command left (see markerOf); returns
 * whether it did, and whether the lock is a killed `patch apply`'s (left for patch to recover).
 */
function clearDeadLock(lockPath: string): { removed: boolean; leftByPatch: boolean } {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(lockPath, { read: true, write: true });
  } catch {
    return { removed: false, leftByPatch: false };
  }
  const none = { removed: false, leftByPatch: false };
  try {
    if (!file.tryLockSync(true)) return none; // its holder is alive
    // Under the flock, and only if the path is still this very file (a holder that finished
    // renamed its lock into place, and the name may now be someone else's new lock).
    const opened = file.statSync();
    let current: Deno.FileInfo;
    try {
      current = Deno.lstatSync(lockPath);
    } catch {
      return none;
    }
    if (opened.ino === null || current.ino !== opened.ino || current.dev !== opened.dev) return none;
    const head = new Uint8Array(64);
    file.seekSync(0, Deno.SeekMode.Start);
    const n = file.readSync(head) ?? 0;
    const content = head.subarray(0, n);
    if (bytesEqual(content, markerOf("patch"))) return { removed: false, leftByPatch: true };
    if (!bytesEqual(content, markerOf("git"))) return none;
    try {
      Deno.removeSync(lockPath);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return { removed: true, leftByPatch: false };
  } finally {
    file.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Creates the lock file exclusively, takes its flock and writes its marker. */
function createLock(lockPath: string, owner: LockOwner): Deno.FsFile {
  const file = Deno.openSync(lockPath, { read: true, write: true, createNew: true, mode: 0o644 });
  try {
    file.lockSync(true);
    writeAll(file, markerOf(owner));
  } catch (error) {
    file.close();
    Deno.removeSync(lockPath);
    throw error;
  }
  return file;
}

/**
 * Creates `lockPath` exclusively, retrying briefly; a lock a killed pterm command left is
 * removed first; RepoLocked when someone else keeps it.
 */
export async function acquireLockFile(lockPath: string, what: string, owner: LockOwner = "git"): Promise<Deno.FsFile> {
  const deadline = Date.now() + LOCK_RETRY_MS;
  let leftByPatch = false;
  for (let delay = 5;; delay = Math.min(delay * 2, 50)) {
    try {
      return createLock(lockPath, owner);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      const dead = clearDeadLock(lockPath);
      if (dead.removed) continue;
      leftByPatch = dead.leftByPatch;
      if (Date.now() >= deadline) throw lockedError(lockPath, what, leftByPatch);
      await sleep(delay);
    }
  }
}

function writeAll(file: Deno.FsFile, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
}

/** A held lock on one file: `commit` writes and renames into place, `rollback` gives it up unchanged. */
export class LockFile {
  readonly target: string;
  readonly lockPath: string;
  #file: Deno.FsFile | null;

  private constructor(target: string, file: Deno.FsFile) {
    this.target = target;
    this.lockPath = `${target}.lock`;
    this.#file = file;
  }

  static async acquire(target: string, what: string, owner: LockOwner = "git"): Promise<LockFile> {
    return new LockFile(target, await acquireLockFile(`${target}.lock`, what, owner));
  }

  /** One attempt, no retry (for opportunistic writes such as status refreshing stat data). */
  static acquireNow(target: string): Promise<LockFile> {
    return Promise.resolve(new LockFile(target, createLock(`${target}.lock`, "git")));
  }

  get held(): boolean {
    return this.#file !== null;
  }

  commit(content: Uint8Array | string): void {
    const file = this.#file;
    if (!file) throw new Error(`lock ${this.lockPath} is no longer held`);
    this.#file = null;
    try {
      // The marker goes: the file becomes exactly the new content, as git's lock protocol has it.
      file.truncateSync(0);
      file.seekSync(0, Deno.SeekMode.Start);
      writeAll(file, typeof content === "string" ? encoder.encode(content) : content);
    } finally {
      file.close();
    }
    Deno.renameSync(this.lockPath, this.target);
  }

  rollback(): void {
    const file = this.#file;
    if (!file) return;
    this.#file = null;
    file.close();
    try {
      Deno.removeSync(this.lockPath);
    } catch { /* already gone */ }
  }
}
