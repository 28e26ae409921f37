/**
 * Writing a computed patch so that it lands whole or not at all, even if pterm is killed.
 *
 * 1. A journal (`<root>/sessions/<session>/patch/<run>/journal.json`, written atomically and
 *    flushed) lists every path the patch will touch, its original mode, the name of its backup
 *    and of its temporary file, and the folders it will create and remove.
 * 2. Preparation: missing parent folders are created, every original is hard-linked into the
 *    run folder (a copy where links are impossible), every new content is written to a temporary
 *    file beside its target; then all of them and the run folder are flushed at once (one wait
 *    for the whole set, not one per file). Nothing a reader looks at has changed yet, and the
 *    journal, the backups and the new contents are on disk before anything is replaced.
 * 3. Switch: each temporary file is renamed over its target (atomic: a reader sees the old or
 *    the new file, never a mix), deleted files are unlinked, emptied folders removed; then the
 *    folders whose entries changed are flushed, so the new names are on disk before the journal
 *    that could undo them goes.
 * 4. The caller commits (git), marks the journal committed, and `finish` removes the run folder.
 *
 * A failure at any step rolls back from the journal in-process. A kill leaves the journal; the
 * next `patch apply` (which takes the same lock) finds it and rolls the tree back to exactly
 * what it was before the killed run — or, when the journal says the commit was made, keeps the
 * new tree and only removes the journal.
 */

import { PtermError } from "../../core/errors.ts";
import { basename, dirname, join } from "../../core/fs/path.ts";
import { createWritten, syncFolder } from "../../core/fs/atomic.ts";
import { assertNoSymlinkFoldersSync } from "../../core/fs/safe_fs.ts";
import { lstatOrNull, PlannedTree, refuseGitDirectoriesAfter } from "../../core/fs/paths.ts";
import { ExecutedPathGuard } from "../../core/git_programs.ts";
import type { Change } from "./view.ts";

/** 2: entries carry content hashes, so recovery can tell the dead run's state from later work. */
export const JOURNAL_VERSION = 2;

/**
 * How many new files are written before their flushes are issued together: each stays open until
 * flushed, so this bounds the open handles.
 */
const FLUSH_CHUNK = 256;

export interface JournalEntry {
  /** Relative to the workspace root. */
  readonly path: string;
  /** Mode of the original, null when there was none. */
  readonly original_mode: number | null;
  /** File name of the original's backup inside the run folder, null when there was none. */
  readonly backup: string | null;
  /** Name of the temporary file beside the target, null when the patch deletes the path. */
  readonly temp: string | null;
  /** SHA-256 of the content before the run (null: no file). */
  readonly before_sha: string | null;
  /**
   * SHA-256 of what the run writes there (null: it deletes the path), or "unknown" for a file
   * git itself rewrites (reset, revert): recovery then accepts it only while the run's own
   * repository lock still stands, i.e. while no git could have run since.
   */
  readonly after_sha: string | null | "unknown";
}

export interface Journal {
  readonly version: number;
  readonly run_id: string;
  readonly session: string;
  /** The repository folder, relative to the root. */
  readonly repo: string;
  phase: "writing" | "committed";
  readonly entries: JournalEntry[];
  /** Folders the patch creates, shallowest first (relative to the root). */
  readonly created_dirs: string[];
  /** Folders the patch removes because they end up empty, deepest first. */
  readonly removed_dirs: string[];
  /** Git state to put back on rollback (the git library's snapshot, as JSON). */
  git_state: unknown;
  /**
   * The repository lock file this run held (`.git/index.lock`, relative to the root) and its
   * inode: a killed run leaves it behind, and recovery removes it only if it is still that file.
   */
  repo_lock: { path: string; ino: number } | null;
}

export interface RecoveryReport {
  readonly run_id: string;
  readonly session: string;
  readonly action: "rolled_back" | "rolled_forward" | "discarded";
  readonly paths: string[];
}

const decoder = new TextDecoder();

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function toRootRel(root: string, abs: string): string {
  return abs === root ? "." : abs.slice(root.length + 1);
}

function fromRootRel(root: string, rel: string): string {
  return rel === "." ? root : join(root, ...rel.split("/"));
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) throw error;
  }
}

function removeIfPresentSync(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) throw error;
  }
}

/**
 * Replaces `path` by `bytes` atomically (temp beside, renamed over it) and returns it open. With
 * `flush`, the content is on disk before the rename; without, the caller flushes the returned
 * file (and the folder, for its name) before it relies on it surviving a power loss.
 */
async function atomicWrite(path: string, bytes: Uint8Array, flush: boolean): Promise<Deno.FsFile> {
  const temp = join(dirname(path), `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  const file = createWritten(temp, bytes);
  try {
    if (flush) await file.sync();
    Deno.renameSync(temp, path);
    return file;
  } catch (error) {
    file.close();
    removeIfPresentSync(temp);
    throw error;
  }
}

/**
 * Flushes `files`, `own` (the run's own files) and `folders` to disk, all flushes in flight at once;
 * a file of `files` that fails is named by its path (relative to the root), as a write failure.
 */
async function flushAll(
  files: readonly { file: Deno.FsFile; path: string }[],
  own: readonly Deno.FsFile[],
  folders: readonly string[],
) {
  const settled = await Promise.allSettled([
    ...files.map(({ file, path }) => file.sync().catch((error) => Promise.reject(ioFailure(path, "written", error)))),
    ...own.map((file) => file.sync()),
    ...folders.map((folder) => syncFolder(folder)),
  ]);
  const failed = settled.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** Where a session keeps the runs of `patch`: `<root>/sessions/<id>/patch`. */
export function patchStateDir(sessionDir: string): string {
  return join(sessionDir, "patch");
}

function tempName(target: string, runId: string): string {
  return `.${basename(target)}.${runId}.patch-tmp`;
}

// ---- the lock ---------------------------------------------------------------------------------

/**
 * One patch at a time per workspace: an advisory lock on `<root>/sessions/.patch.lock` (a name
 * no session id can have). The OS releases it when the holder dies, so a journal found while
 * holding the lock always belongs to a dead run.
 */
export async function withPatchLock<T>(
  root: string,
  exclusive: boolean,
  signal: AbortSignal,
  fn: () => Promise<T>,
): Promise<T> {
  const dir = join(root, "sessions");
  const path = join(dir, ".patch.lock");
  let file: Deno.FsFile;
  if (exclusive) {
    await Deno.mkdir(dir, { recursive: true });
    file = await Deno.open(path, { read: true, write: true, create: true });
  } else {
    // Readers (check, --dry-run) may have no write permission; no lock file means no patch ever ran.
    try {
      file = await Deno.open(path, { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return await fn();
      throw error;
    }
  }
  try {
    if (!(await file.tryLock(exclusive))) {
      const waiting = file.lock(exclusive);
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        waiting.then(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        }, reject);
      });
    }
    return await fn();
  } finally {
    file.close();
  }
}

// ---- writing ----------------------------------------------------------------------------------

export interface TransactionOptions {
  readonly root: string;
  readonly sessionDir: string;
  readonly session: string;
  readonly runId: string;
  readonly repoAbs: string;
  /** Git state to put back on rollback (JSON-safe), null for a folder that is not a repository. */
  readonly gitState: unknown;
  /** The repository lock file held for the whole run (absolute), if any. */
  readonly repoLock?: string;
  readonly restoreGit: GitStateRestorer | null;
  readonly signal: AbortSignal;
  /** Flush new contents to disk before they replace the old (survives power loss, not only a kill). */
  readonly durable?: boolean;
}

/**
 * Refuses a patch whose complete set of changes (files written and deleted, folders emptied or
 * created, absolute paths) would leave a git directory where there was none — HEAD, objects/ and
 * refs/ written together at the root or in any folder — judged on the state after all of them.
 * `patch check` / `--dry-run` call it on the same view, so they refuse what apply refuses.
 */
export function refuseGitDirectoriesFormed(
  root: string,
  changes: readonly Change[],
  emptiedDirs: readonly string[],
  folders: readonly string[] = [],
): void {
  const plan = new PlannedTree();
  for (const change of changes) {
    if (change.after) plan.writeFile(change.abs, change.after.bytes, change.after.mode);
    else plan.removeFile(change.abs);
  }
  for (const dir of emptiedDirs) plan.removeFolder(dir);
  for (const dir of folders) plan.createFolder(dir);
  refuseGitDirectoriesAfter(root, plan, "the patch");
  const executed = new ExecutedPathGuard(root);
  for (const change of changes) executed.refuse(change.abs, "the patch");
}

export class Transaction {
  readonly journal: Journal;
  readonly #options: TransactionOptions;
  readonly #runDir: string;
  #backups = 0;
  #closed = false;

  private constructor(options: TransactionOptions, runDir: string, journal: Journal) {
    this.#options = options;
    this.#runDir = runDir;
    this.journal = journal;
  }

  /** Creates the run folder and its journal; nothing in the tree has changed yet. */
  static async begin(options: TransactionOptions): Promise<Transaction> {
    const runDir = join(patchStateDir(options.sessionDir), options.runId);
    const lockInfo = options.repoLock ? lstatOrNull(options.repoLock) : null;
    const journal: Journal = {
      version: JOURNAL_VERSION,
      run_id: options.runId,
      session: options.session,
      repo: toRootRel(options.root, options.repoAbs),
      phase: "writing",
      entries: [],
      created_dirs: [],
      removed_dirs: [],
      git_state: options.gitState ?? null,
      repo_lock: options.repoLock && lockInfo?.ino != null
        ? { path: toRootRel(options.root, options.repoLock), ino: lockInfo.ino }
        : null,
    };
    await Deno.mkdir(runDir, { recursive: true });
    const tx = new Transaction(options, runDir, journal);
    if (tx.#changesBeforeWrite) await tx.#saveJournal();
    else (await tx.#writeJournal(false)).close();
    return tx;
  }

  /**
   * A repository's index and refs may change before `write` (under the run's own lock), so its
   * journal is on disk before each step. Without git state nothing changes before `write`, whose
   * journal is flushed together with the new files, before any target is replaced.
   */
  get #changesBeforeWrite(): boolean {
    return this.journal.git_state !== null || this.journal.repo_lock !== null;
  }

  /** Writes the journal, on disk before this returns. */
  async #saveJournal(): Promise<void> {
    (await this.#writeJournal(true)).close();
  }

  /** Writes the journal; unless `flush`, the caller flushes the returned file and the run folder. */
  #writeJournal(flush: boolean): Promise<Deno.FsFile> {
    return atomicWrite(
      join(this.#runDir, "journal.json"),
      new TextEncoder().encode(JSON.stringify(this.journal)),
      flush,
    );
  }

  /**
   * Backs up files something else (git reset / revert) is about to change, so a rollback can
   * put them back. Journaled before any backup is made.
   */
  async protect(paths: readonly string[]): Promise<void> {
    const root = this.#options.root;
    const added: { entry: JournalEntry; abs: string; info: Deno.FileInfo | null }[] = [];
    for (const abs of paths) {
      const info = lstatOrNull(abs);
      const entry: JournalEntry = {
        path: toRootRel(root, abs),
        original_mode: info?.isFile ? (info.mode ?? 0o644) & 0o7777 : null,
        backup: info?.isFile ? `b${this.#backups++}` : null,
        temp: null,
        before_sha: info?.isFile ? await sha256(await Deno.readFile(abs)) : null,
        after_sha: "unknown",
      };
      added.push({ entry, abs, info });
    }
    this.journal.entries.push(...added.map((a) => a.entry));
    // Folders git may create for new files are journaled too, so a rollback removes them again.
    const missing = missingParents(added.filter((a) => a.info === null).map((a) => a.abs), this.#options.repoAbs);
    this.journal.created_dirs.push(...missing.map((d) => toRootRel(root, d)));
    await this.#saveJournal();
    for (const { entry, abs } of added) {
      if (entry.backup) this.#backupSync(abs, join(this.#runDir, entry.backup), null);
    }
  }

  /**
   * A hard link to the original (its inode stays as it is: the switch renames a new file over the
   * name), or a copy where the file system has no links. A copy written from `bytes` is flushed
   * before it is closed; a link is on disk once the run folder is flushed.
   */
  #backupSync(abs: string, backup: string, bytes: { bytes: Uint8Array; mode: number } | null): void {
    try {
      Deno.linkSync(abs, backup);
    } catch {
      if (!bytes) {
        Deno.copyFileSync(abs, backup);
        return;
      }
      const file = createWritten(backup, bytes.bytes, bytes.mode);
      try {
        if (this.#options.durable ?? true) file.syncSync();
      } finally {
        file.close();
      }
    }
  }

  /** Journals, prepares and switches every change. On failure the caller rolls back. */
  /**
   * `folders` are empty folders to create (absolute; a new submodule's, as git apply makes it), with
   * their missing parents; journaled like the parents of new files, so a rollback removes them.
   */
  async write(
    changes: readonly Change[],
    emptiedDirs: readonly string[],
    folders: readonly string[] = [],
  ): Promise<void> {
    const { root, runId } = this.#options;
    refuseGitDirectoriesFormed(root, changes, emptiedDirs, folders);
    const created = dirsToCreate(changes, this.#options.repoAbs, folders);
    const entries: JournalEntry[] = await Promise.all(changes.map(async (c) => ({
      path: toRootRel(root, c.abs),
      original_mode: c.before?.mode ?? null,
      backup: c.before ? `b${this.#backups++}` : null,
      temp: c.after ? tempName(c.abs, runId) : null,
      before_sha: c.before ? await sha256(c.before.bytes) : null,
      after_sha: c.after ? await sha256(c.after.bytes) : null,
    })));
    this.journal.entries.push(...entries);
    this.journal.created_dirs.push(...created.map((d) => toRootRel(root, d)));
    this.journal.removed_dirs.push(...emptiedDirs.map((d) => toRootRel(root, d)));
    // Otherwise flushed with the new files, before any target is replaced (see `#prepare`).
    const journal = await this.#writeJournal(this.#changesBeforeWrite);
    try {
      await this.#prepare(changes, entries, created, journal);
    } finally {
      journal.close();
    }
    await this.#switch(changes, entries, emptiedDirs, created);
  }

  /**
   * Backs up every original, writes every new content to its temporary file, then flushes them all
   * at once: the flushes of one chunk are in flight together, so the file system commits them in one
   * journal transaction or a few instead of one wait per file. The journal and the run folder are
   * flushed with them, so the journal, its name and the backups' links are on disk before any
   * target is replaced.
   */
  async #prepare(
    changes: readonly Change[],
    entries: readonly JournalEntry[],
    created: readonly string[],
    journal: Deno.FsFile,
  ): Promise<void> {
    const durable = this.#options.durable ?? true;
    // The folders were found plain when the patch was computed; one swapped for a symlink since
    // would take the new files (and the folders created below) wherever it leads.
    assertNoSymlinkFoldersSync(this.#options.root, [...created.map((dir) => dirname(dir)), ...foldersOf(changes)]);
    for (const dir of created) {
      try {
        Deno.mkdirSync(dir);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      }
    }
    for (let start = 0; start < changes.length; start += FLUSH_CHUNK) {
      if (this.#options.signal.aborted) throw this.#options.signal.reason;
      const written: { file: Deno.FsFile; path: string }[] = [];
      try {
        for (let i = start; i < Math.min(start + FLUSH_CHUNK, changes.length); i++) {
          const file = this.#prepareOne(changes[i], entries[i]);
          if (file) written.push({ file, path: entries[i].path });
        }
        if (!durable) continue;
        const last = start + FLUSH_CHUNK >= changes.length;
        await flushAll(written, last ? [journal] : [], last ? [this.#runDir] : []);
      } finally {
        for (const { file } of written) file.close();
      }
    }
  }

  /** Checks that the original is as read, backs it up, and writes the new content beside it (left open). */
  #prepareOne(change: Change, entry: JournalEntry): Deno.FsFile | null {
    const now = lstatOrNull(change.abs);
    if (change.before) {
      const unchanged = now?.isFile && now.size === change.before.size &&
        (now.mtime?.getTime() ?? null) === change.before.mtimeMs && now.ino === change.before.ino;
      if (!unchanged) throw changedUnderneath(entry.path);
      try {
        this.#backupSync(change.abs, join(this.#runDir, entry.backup!), change.before);
      } catch (error) {
        throw ioFailure(entry.path, "written", error);
      }
    } else if (now !== null) {
      throw changedUnderneath(entry.path);
    }
    if (!change.after) return null;
    const temp = join(dirname(change.abs), entry.temp!);
    try {
      // The temp name is the run's own, so it is there only if this run id ran before and was
      // killed: then it goes first. Tried without removing: a removal that finds nothing costs
      // an error per file.
      try {
        return createWritten(temp, change.after.bytes, change.after.mode);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
        Deno.removeSync(temp);
        return createWritten(temp, change.after.bytes, change.after.mode);
      }
    } catch (error) {
      throw ioFailure(entry.path, "written", error);
    }
  }

  /**
   * Renames every temporary file over its target (in path order) and deletes what the patch
   * deletes, then flushes the folders whose entries changed (those of the targets, the parents of
   * created and removed folders): the new names are on disk before the journal that could roll them
   * back is marked committed or removed.
   */
  async #switch(
    changes: readonly Change[],
    entries: readonly JournalEntry[],
    emptiedDirs: readonly string[],
    created: readonly string[],
  ) {
    const touched = new Set<string>(created.map((dir) => dirname(dir)));
    // Again right before the names change: a rename through a folder swapped for a link since the
    // files were prepared would replace (or delete) a file wherever the link leads.
    assertNoSymlinkFoldersSync(this.#options.root, foldersOf(changes));
    for (const [i, change] of changes.entries()) {
      try {
        if (change.after) Deno.renameSync(join(dirname(change.abs), entries[i].temp!), change.abs);
        else removeIfPresentSync(change.abs);
      } catch (error) {
        throw ioFailure(entries[i].path, change.after ? "replaced" : "deleted", error);
      }
      touched.add(dirname(change.abs));
    }
    for (const dir of emptiedDirs) {
      try {
        Deno.removeSync(dir);
        touched.delete(dir);
        touched.add(dirname(dir));
      } catch {
        // Someone put something there meanwhile: the folder stays, which loses nothing.
      }
    }
    if (this.#options.durable ?? true) {
      await flushAll(
        [],
        [],
        [...touched].filter((dir) => lstatOrNull(dir)?.isDirectory),
      );
    }
  }

  /** Records that the commit was made: from now on a kill keeps the new tree. */
  async markCommitted(): Promise<void> {
    this.journal.phase = "committed";
    await this.#saveJournal();
  }

  /**
   * Undoes everything journaled so far (files, folders, git state) and drops the run folder.
   * `restoreGit` overrides the restorer given at the start (e.g. one that takes the repository
   * lock, once it is no longer held).
   */
  async rollback(restoreGit?: GitStateRestorer): Promise<void> {
    if (this.#closed) return;
    // Closed before trying: a rollback that cannot finish keeps the run folder for `patch recover`.
    this.#closed = true;
    await rollback(this.#options.root, this.#runDir, this.journal, restoreGit ?? this.#options.restoreGit);
    await this.finish();
  }

  /** The patch is done: the backups and the journal go. */
  async finish(): Promise<void> {
    this.#closed = true;
    await Deno.remove(this.#runDir, { recursive: true });
  }
}

/** The distinct folders holding the changed paths. */
function foldersOf(changes: readonly Change[]): Set<string> {
  return new Set(changes.map((change) => dirname(change.abs)));
}

/** The OS's reason for an I/O error, without the host paths Deno puts in its message. */
function osReason(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const text = error.message.split(" (os error")[0].split(":")[0].trim();
  return typeof code === "string" ? `${text}, ${code}` : text;
}

/** An error the OS gave (EPERM, EBUSY, a sharing violation on Windows…), not pterm's sandbox refusing. */
function isOsError(error: unknown): error is Error {
  if (!(error instanceof Error) || error instanceof PtermError || error instanceof Deno.errors.NotCapable) return false;
  return typeof (error as { code?: unknown }).code === "string" ||
    Object.values(Deno.errors).some((kind) => error instanceof kind);
}

/**
 * One path the file system refused (EPERM, EACCES, EBUSY, a full disk…) while writing. Thrown
 * before the rollback, which puts every other file back; a rollback that cannot finish throws
 * its own WriteFailed instead (see `rollback`).
 */
function ioFailure(path: string, action: "written" | "replaced" | "deleted", error: unknown): unknown {
  if (!isOsError(error)) return error;
  return new PtermError(
    "WriteFailed",
    `\`${path}\` could not be ${action} (${osReason(error)}); every file the patch had changed was put back as it ` +
      `was and nothing was committed. Make \`${path}\` writable (or close what holds it open) and apply the patch again.`,
    { result: { failed_path: path, reason: osReason(error) } },
  );
}

function changedUnderneath(path: string): PtermError {
  return new PtermError(
    "ConcurrentModification",
    `\`${path}\` changed on disk while the patch was being computed; nothing was written. Run the patch again.`,
  );
}

/** Parent folders of new files that do not exist yet, shallowest first. */
function dirsToCreate(changes: readonly Change[], repoAbs: string, folders: readonly string[]): string[] {
  const wanted = folders.filter((f) => lstatOrNull(f) === null);
  // A folder is its own child's parent: ask for the parents of a name inside it.
  const inside = wanted.map((f) => join(f, "x"));
  return missingParents([...changes.filter((c) => c.after).map((c) => c.abs), ...inside], repoAbs);
}

function missingParents(paths: readonly string[], repoAbs: string): string[] {
  const missing = new Set<string>();
  // Many files share a folder: each is looked up once.
  const present = new Set<string>();
  for (const path of paths) {
    let dir = dirname(path);
    const chain: string[] = [];
    while (dir.length > repoAbs.length && dir.startsWith(repoAbs) && !missing.has(dir) && !present.has(dir)) {
      if (lstatOrNull(dir)) {
        present.add(dir);
        break;
      }
      chain.push(dir);
      dir = dirname(dir);
    }
    for (const d of chain) missing.add(d);
  }
  return [...missing].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));
}

// ---- rollback and recovery --------------------------------------------------------------------

/** Puts back the git state a journal recorded (supplied by the git integration). */
export type GitStateRestorer = (repoAbs: string, state: unknown) => Promise<void>;

/** A path a rollback could not put back, and why. */
interface NotRestored {
  readonly path: string;
  readonly reason: string;
}

/**
 * Puts back one journaled path from its backup. A file the run never replaced (same inode as
 * its backup) is left alone, its mode reset only if it differs: the file the switch failed on
 * is usually one the OS will not let anyone change.
 */
async function restoreEntry(root: string, runDir: string, journal: Journal, entry: JournalEntry): Promise<void> {
  const target = fromRootRel(root, entry.path);
  if (entry.temp) await removeIfPresent(join(dirname(target), entry.temp));
  if (entry.backup === null) {
    await removeIfPresent(target);
    return;
  }
  const backup = join(runDir, entry.backup);
  const saved = lstatOrNull(backup);
  if (!saved) return; // the run died before backing it up, so it never touched it
  let now = lstatOrNull(target);
  if (!(now && now.ino !== null && now.ino === saved.ino) && !(await sameFile(target, now, backup))) {
    // Its folder may be gone (git removes emptied folders).
    await Deno.mkdir(dirname(target), { recursive: true });
    const restoring = join(dirname(target), `.${basename(target)}.${journal.run_id}.restore-tmp`);
    await removeIfPresent(restoring);
    try {
      try {
        await Deno.link(backup, restoring);
      } catch {
        await Deno.copyFile(backup, restoring);
      }
      await Deno.rename(restoring, target);
    } catch (error) {
      await removeIfPresent(restoring).catch(() => {});
      throw error;
    }
    now = lstatOrNull(target);
  }
  const mode = now?.mode == null ? null : now.mode & 0o7777;
  if (entry.original_mode !== null && mode !== entry.original_mode && Deno.build.os !== "windows") {
    await Deno.chmod(target, entry.original_mode);
  }
}

/** Whether `target` (a file) already holds the backup's bytes — a copy-made backup of an untouched file. */
async function sameFile(target: string, now: Deno.FileInfo | null, backup: string): Promise<boolean> {
  if (!now?.isFile) return false;
  const [a, b] = await Promise.all([Deno.readFile(target), Deno.readFile(backup)]);
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

async function rollback(
  root: string,
  runDir: string,
  journal: Journal,
  restoreGit: GitStateRestorer | null,
): Promise<void> {
  // Every path is tried even when one fails, so one stuck file does not leave the others changed.
  const notRestored: NotRestored[] = [];
  const attempt = async (path: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (error) {
      if (!isOsError(error)) throw error;
      notRestored.push({ path, reason: osReason(error) });
    }
  };
  // Folders first, so that restored files have their parents.
  for (const dir of [...journal.removed_dirs].reverse()) {
    await attempt(dir, () => Deno.mkdir(fromRootRel(root, dir), { recursive: true }));
  }
  for (const entry of [...journal.entries].reverse()) {
    await attempt(entry.path, () => restoreEntry(root, runDir, journal, entry));
  }
  const deepestFirst = [...journal.created_dirs].sort((a, b) => b.split("/").length - a.split("/").length);
  for (const dir of deepestFirst) {
    try {
      await Deno.remove(fromRootRel(root, dir));
    } catch {
      // Not empty: something else lives there now; leave it.
    }
  }
  if (journal.git_state !== null && journal.git_state !== undefined) {
    if (!restoreGit) throw new Error("a journal holds git state but no git restorer was given");
    await restoreGit(fromRootRel(root, journal.repo), journal.git_state);
  }
  if (notRestored.length > 0) throw rollbackIncomplete(journal, notRestored);
}

function rollbackIncomplete(journal: Journal, notRestored: readonly NotRestored[]): PtermError {
  const list = notRestored.map((n) => `\`${n.path}\` (${n.reason})`).join(", ");
  return new PtermError(
    "WriteFailed",
    `the patch failed and could not put back ${list}; every other file was restored. The journal of run ` +
      `${journal.run_id} was kept: make those paths writable, then run \`patch recover\`, which finishes the rollback.`,
    { helpFor: "patch recover", result: { run_id: journal.run_id, not_restored: [...notRestored] } },
  );
}

/** A killed run's repository lock is still its own file (same inode): it is stale, remove it. */
async function removeStaleRepoLock(root: string, journal: Journal): Promise<void> {
  if (!journal.repo_lock) return;
  const path = fromRootRel(root, journal.repo_lock.path);
  const info = lstatOrNull(path);
  if (info?.isFile && info.ino === journal.repo_lock.ino) await removeIfPresent(path);
}

/** Journals left by killed runs, in any session (call with the patch lock held). */
async function pendingRuns(root: string): Promise<{ runDir: string; journal: Journal | null }[]> {
  const found: { runDir: string; journal: Journal | null }[] = [];
  const sessions = join(root, "sessions");
  let sessionEntries: Deno.DirEntry[];
  try {
    sessionEntries = await Array.fromAsync(Deno.readDir(sessions));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  for (const session of sessionEntries) {
    if (!session.isDirectory) continue;
    const dir = join(sessions, session.name, "patch");
    let runs: Deno.DirEntry[];
    try {
      runs = await Array.fromAsync(Deno.readDir(dir));
    } catch {
      continue;
    }
    for (const run of runs) {
      if (!run.isDirectory) continue;
      const runDir = join(dir, run.name);
      let journal: Journal | null = null;
      try {
        journal = JSON.parse(decoder.decode(await Deno.readFile(join(runDir, "journal.json"))));
      } catch {
        journal = null;
      }
      found.push({ runDir, journal });
    }
  }
  return found.sort((a, b) => (a.runDir < b.runDir ? -1 : 1));
}

/**
 * `patch recover --discard`: drops what killed runs left — their journals and backups, the
 * temporary files beside their targets, and their repository lock while it is still their own —
 * and leaves every file and the git state as they are now. Call with the patch lock held.
 */
export async function discardPending(root: string): Promise<RecoveryReport[]> {
  const reports: RecoveryReport[] = [];
  for (const { runDir, journal } of await pendingRuns(root)) {
    if (journal !== null) {
      for (const entry of journal.entries ?? []) {
        if (entry.temp) await removeIfPresent(join(dirname(fromRootRel(root, entry.path)), entry.temp));
      }
      await removeStaleRepoLock(root, journal);
      reports.push({
        run_id: journal.run_id,
        session: journal.session,
        action: "discarded",
        paths: (journal.entries ?? []).map((e) => e.path),
      });
    }
    await Deno.remove(runDir, { recursive: true });
  }
  return reports;
}

/** Whether a killed run left a journal behind (for `patch check`, which writes nothing). */
export async function hasPendingRecovery(root: string): Promise<string[]> {
  return (await pendingRuns(root)).filter((r) => r.journal !== null).map((r) => r.journal!.run_id);
}

/** Reads the repository's git state now, in the form a journal keeps it (supplied by the git integration). */
export type GitStateReader = (repoAbs: string) => Promise<unknown>;

/** The hash of what `path` holds now: null when nothing, "not a file" for a folder or link. */
async function currentSha(path: string): Promise<string | null> {
  const info = lstatOrNull(path);
  if (!info) return null;
  if (!info.isFile) return "not a file";
  return await sha256(await Deno.readFile(path));
}

function repoLockStillOurs(root: string, journal: Journal): boolean {
  if (!journal.repo_lock) return false;
  const info = lstatOrNull(fromRootRel(root, journal.repo_lock.path));
  return Boolean(info?.isFile && info.ino === journal.repo_lock.ino);
}

/**
 * What changed since a killed run, so that rolling it back would undo someone's later work:
 * the repository's git state (HEAD, refs, index, reflogs) when the run's own lock is gone, and
 * every file it journaled that holds neither its original nor its new content. Empty when the
 * tree is exactly as the dead run left it.
 */
async function changesSince(root: string, journal: Journal, readGit: GitStateReader | null): Promise<string[]> {
  const found: string[] = [];
  const lockStands = repoLockStillOurs(root, journal);
  if (journal.git_state !== null && journal.git_state !== undefined && !lockStands) {
    const now = readGit ? await readGit(fromRootRel(root, journal.repo)) : undefined;
    if (JSON.stringify(withoutTimes(now)) !== JSON.stringify(withoutTimes(journal.git_state))) {
      found.push(
        `the repository \`${journal.repo}\` changed (HEAD, a branch, the index or a reflog) after the run's lock was removed`,
      );
    }
  }
  for (const entry of journal.entries) {
    const now = await currentSha(fromRootRel(root, entry.path));
    if (now === entry.before_sha || now === entry.after_sha) continue;
    if (entry.after_sha === "unknown" && lockStands) continue; // git's own write, mid-way
    found.push(`\`${entry.path}\` holds neither what it held before the run nor what the run wrote`);
  }
  return found;
}

/**
 * The git state without the index file's time, which a snapshot keeps only so a restore can put it
 * back: git rewrites an unchanged index now and then (a status refreshing it), which is not a change.
 */
function withoutTimes(state: unknown): unknown {
  const fields = (state as { $object?: Record<string, unknown> } | null)?.$object;
  if (!fields || !("indexMtime" in fields)) return state;
  const { indexMtime: _, ...rest } = fields;
  return { $object: rest };
}

function staleJournal(journal: Journal, found: readonly string[]): PtermError {
  const shown = found.slice(0, 5).join("; ") + (found.length > 5 ? `; and ${found.length - 5} more` : "");
  return new PtermError(
    "StaleJournal",
    `patch run ${journal.run_id} was killed mid-apply, and the workspace has changed since (${shown}); rolling it ` +
      "back now would undo that later work, so nothing was touched. Run `patch recover --discard` to drop its " +
      "journal and keep the tree as it is now (check it with `git status` first), then apply again.",
    { helpFor: "patch recover", result: { stale_run: journal.run_id, changed: [...found] } },
  );
}

/**
 * Finishes what killed runs left: rolls back (or, once committed, forward) — but only a run
 * whose traces are exactly as it left them (see `changesSince`); otherwise `StaleJournal`, and
 * nothing is touched. Call with the patch lock held.
 */
export async function recover(
  root: string,
  restoreGit: GitStateRestorer | null,
  readGit: GitStateReader | null,
): Promise<RecoveryReport[]> {
  const pending = await pendingRuns(root);
  // Every journal is checked before any is acted on: all or nothing here too.
  for (const { journal } of pending) {
    if (journal === null || journal.phase === "committed") continue;
    if (journal.version !== JOURNAL_VERSION) {
      throw staleJournal(journal, ["its journal is of an older pterm, which recorded no content hashes"]);
    }
    const found = await changesSince(root, journal, readGit);
    if (found.length > 0) throw staleJournal(journal, found);
  }
  const reports: RecoveryReport[] = [];
  for (const { runDir, journal } of pending) {
    if (journal === null) {
      // Killed before its journal was complete: it had not touched the tree yet.
      await Deno.remove(runDir, { recursive: true });
      continue;
    }
    const paths = journal.entries.map((e) => e.path);
    await removeStaleRepoLock(root, journal);
    if (journal.phase === "committed") {
      for (const entry of journal.entries) {
        if (entry.temp) await removeIfPresent(join(dirname(fromRootRel(root, entry.path)), entry.temp));
      }
      reports.push({ run_id: journal.run_id, session: journal.session, action: "rolled_forward", paths });
    } else {
      await rollback(root, runDir, journal, restoreGit);
      reports.push({ run_id: journal.run_id, session: journal.session, action: "rolled_back", paths });
    }
    await Deno.remove(runDir, { recursive: true });
  }
  return reports;
}
