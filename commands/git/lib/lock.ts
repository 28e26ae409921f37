/**
 * git's lock-file protocol, which real git and every pterm run honour: a file `X.lock` created
 * with O_EXCL owns `X`; the new content is written into the lock file and renamed over `X`
 * (which also releases the lock). A process killed in between leaves only the `.lock` file
 * behind, never a half-written `X` — as with git.
 */

import { PtermError } from "../../../core/errors.ts";
import { encoder } from "./bytes.ts";

/** How long a lock is retried before giving up (git's own ref-lock default is 100 ms). */
const LOCK_RETRY_MS = 200;

function lockedError(lockPath: string, what: string): PtermError {
  return new PtermError(
    "RepoLocked",
    `${what} is locked by another git process (the lock file ${lockPath} exists). ` +
      "Wait for that process to finish and retry; if no git process is running, a crashed one left the lock behind: delete that file.",
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Creates `lockPath` exclusively, retrying briefly; RepoLocked when someone else keeps it. */
export async function acquireLockFile(lockPath: string, what: string): Promise<Deno.FsFile> {
  const deadline = Date.now() + LOCK_RETRY_MS;
  for (let delay = 5;; delay = Math.min(delay * 2, 50)) {
    try {
      return Deno.openSync(lockPath, { write: true, createNew: true, mode: 0o644 });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      if (Date.now() >= deadline) throw lockedError(lockPath, what);
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

  static async acquire(target: string, what: string): Promise<LockFile> {
    return new LockFile(target, await acquireLockFile(`${target}.lock`, what));
  }

  /** One attempt, no retry (for opportunistic writes such as status refreshing stat data). */
  static acquireNow(target: string): Promise<LockFile> {
    return Promise.resolve(
      new LockFile(target, Deno.openSync(`${target}.lock`, { write: true, createNew: true, mode: 0o644 })),
    );
  }

  get held(): boolean {
    return this.#file !== null;
  }

  commit(content: Uint8Array | string): void {
    const file = this.#file;
    if (!file) throw new Error(`lock ${this.lockPath} is no longer held`);
    this.#file = null;
    try {
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
