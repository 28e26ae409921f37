/**
 * `git status` in a warm worker (`pterm mcp`): the work tree's side of the status is kept between
 * calls and re-checked only where something changed, as git's own fsmonitor does
 * (Documentation/git-fsmonitor--daemon.txt, builtin/fsmonitor--daemon.c). Without a warm worker
 * (`pterm exec`), off Linux (Deno's watcher on macOS and Windows is not what these rules were
 * proved against), or on a file system another machine may change (`changesSeenHere`), nothing
 * here runs: every call reads and scans everything.
 *
 * What makes a kept answer current, each call:
 *
 * 1. A recursive `Deno.watchFs` of the work tree (inotify through the notify crate), started on
 *    the first warm call, before the scan whose answer is kept.
 * 2. A cookie: the call creates `.git/pterm-fsmonitor-cookie-<worker>-<n>` and waits for its event.
 *    inotify queues one instance's events in the order they happened and the notify thread and
 *    Deno's queue keep that order, so once the cookie's event is here, every change made before
 *    the call started has been delivered (git's daemon and watchman synchronise the same way).
 * 3. Anything the watcher may have lost makes the call scan everything: a `rescan` event (inotify's
 *    queue overflowed, or Deno's queue of 1024 events was full and dropped some), a watcher error
 *    (e.g. "OS file watch limit reached" for a new folder: the watcher is dropped), a cookie that
 *    does not come back in time (then no watcher runs in this worker again: see `sync`), an event
 *    for the work tree's folder itself or outside it (a replaced work tree gets a new watcher).
 * 4. Deno delivers no event for a path that resolves outside the watched folder (a symbolic link
 *    to elsewhere moved in): so besides the events, every folder the scan listed is lstat'ed each
 *    call (a few hundred calls, not one per file), and a folder whose mtime, ctime, inode or mode
 *    moved is listed again and its entries compared with the kept listing. A folder changed within
 *    RACY_MS of the sync before its listing is listed again on every call (its timestamp could not
 *    show a later change); one made since the previous scan, or as the watch began, makes the
 *    next call scan everything (the watcher adds its inotify watch only after reporting it).
 * 5. The index: kept while its lstat (size, mtime, ctime, inode) is unchanged and no event named
 *    `.git/index`; otherwise re-read, and if it tracks the same paths without conflicts, only the
 *    entries whose object, mode, flags or stat data changed are re-checked. Any event in `.git`
 *    other than objects, refs, logs, HEAD-like files and locks (config, info/exclude,
 *    info/attributes, …) scans everything, as does any `.gitignore` or `.gitattributes` event.
 * 6. The rest: a tracked file an event names is re-checked exactly as the scan does (stat data,
 *    then content when racy); an entry that came or went in a listed folder is decided as the scan
 *    decides it (tracked: re-checked or missing; untracked: the folder's ignore rules say untracked
 *    or ignored); content changes of untracked or ignored files change nothing status reports.
 *    A folder that came or went, a withheld path, a nested repository, a submodule, a conflict or
 *    a name that is not UTF-8 scans everything.
 *
 * A watcher holds one inotify watch per folder of the tree (ignored ones included) from the user's
 * shared limit, so a worker watches its MAX_MONITORS most recently used repositories at most.
 *
 * What no watcher sees, and so neither this: a file changed through a hard link from outside the
 * work tree, or written through a shared memory mapping (git's fsmonitor and watchman share both
 * limits); a work tree on a network file system changed by another machine.
 */

import type { Index, IndexEntry } from "./index_file.ts";
import { readIndexFile, S_IFGITLINK } from "./index_file.ts";
import type { Repo } from "../repo/repo.ts";
import {
  type StatusOptions,
  trackedFileVerdict,
  type WalkObserver,
  type WorktreeReport,
  worktreeStatus,
} from "../porcelain/status.ts";
import type { PathPolicy } from "./worktree.ts";
import { comparePaths } from "../odb/bytes.ts";
import type { IgnoreLevel, IgnoreRules } from "./ignore.ts";

/**
 * A folder changed this close to the scan (or after it) may change again unseen by its timestamp:
 * Linux stamps files from a coarse clock (one tick, at most 10 ms, behind), so 30 ms leaves margin.
 */
const RACY_MS = 30;
/** How long a call waits for its cookie's event before it stops trusting the watcher. */
const COOKIE_TIMEOUT_MS = 2000;
const COOKIE_PREFIX = "pterm-fsmonitor-cookie-";

/** `.git` entries whose changes do not change what the work tree's status is. */
const INERT_GIT_PATHS = [
  /^objects\//,
  /^refs\//,
  /^logs\//,
  /^(HEAD|ORIG_HEAD|FETCH_HEAD|MERGE_HEAD|MERGE_MSG|MERGE_MODE|REVERT_HEAD|CHERRY_PICK_HEAD|AUTO_MERGE)$/,
  /^(COMMIT_EDITMSG|packed-refs|index\.lock|HEAD\.lock|packed-refs\.lock)$/,
  new RegExp(`^${COOKIE_PREFIX}`),
];

interface Stamp {
  /** The file system's device: a folder on another one (a mount point in the tree) is not watched. */
  readonly dev: number;
  readonly mtime: number;
  /** Whole seconds: Deno reports ctime no finer. */
  readonly ctime: number;
  readonly ino: number;
  readonly size: number;
  readonly mode: number;
}

function stampOf(info: Deno.FileInfo | null): Stamp | null {
  if (!info) return null;
  return {
    dev: info.dev ?? -1,
    mtime: info.mtime?.getTime() ?? -1,
    ctime: info.ctime?.getTime() ?? -1,
    ino: info.ino ?? -1,
    size: info.size,
    mode: info.mode ?? -1,
  };
}

function lstamp(path: string): Stamp | null {
  try {
    return stampOf(Deno.lstatSync(path));
  } catch {
    return null;
  }
}

function sameStamp(a: Stamp | null, b: Stamp | null): boolean {
  if (a === null || b === null) return a === b;
  return a.dev === b.dev && a.mtime === b.mtime && a.ctime === b.ctime && a.ino === b.ino && a.size === b.size &&
    a.mode === b.mode;
}

/** What the watcher delivered between two syncs. */
interface Delivered {
  /** Work-tree-relative paths named by events (`.git/…` included). */
  readonly paths: Set<string>;
  /** Something was or may have been lost, or was not understood: scan everything. */
  readonly lost: boolean;
  /** An event named the work tree's folder itself (removed, moved, its attributes changed). */
  readonly topChanged: boolean;
}

/** The watcher of one work tree, with its cookie protocol. */
class TreeWatcher {
  readonly #dir: string;
  readonly #cookieBase: string;
  readonly #watcher: Deno.FsWatcher;
  #paths = new Set<string>();
  #lost = false;
  #topChanged = false;
  /** The inode of the work tree's folder when the watch began. */
  readonly topIno: number | undefined;
  /** When the watch began (epoch ms). */
  readonly startedAt = Date.now();
  #broken = false;
  #seq = 0;
  /** Cookies waited for, by number. */
  readonly #waiting = new Map<number, () => void>();

  constructor(dir: string, gitdir: string) {
    this.#dir = dir;
    this.#cookieBase = `${gitdir}/${COOKIE_PREFIX}${crypto.randomUUID().slice(0, 8)}-`;
    this.topIno = lstamp(dir)?.ino;
    removeStaleCookies(gitdir);
    // Throws when inotify has no watch left for the tree's folders: the caller then keeps no cache.
    this.#watcher = Deno.watchFs(dir, { recursive: true });
    this.#pumped = this.#pump();
  }

  readonly #pumped: Promise<void>;

  /**
   * Closes the watcher and waits until Deno has let go of it: Deno counts watches by path, so a
   * new watcher of the same path (a replaced work tree) would otherwise reuse this one's dead watch.
   */
  async stop(): Promise<void> {
    this.close();
    await this.#pumped;
  }

  get broken(): boolean {
    return this.#broken;
  }

  async #pump(): Promise<void> {
    try {
      for await (const event of this.#watcher) this.#take(event);
    } catch {
      // A watcher error (e.g. no inotify watch left for a new folder): give the watcher up.
    }
    this.#broken = true;
    this.#wakeAll();
  }

  #take(event: Deno.FsEvent): void {
    if (event.flag !== undefined && event.flag !== null) {
      // "rescan": events were dropped, including perhaps a cookie's.
      this.#lost = true;
      this.#wakeAll();
      return;
    }
    if (event.paths.length === 0) this.#lost = true;
    const prefix = this.#dir + "/";
    for (const path of event.paths) {
      if (path.startsWith(this.#cookieBase)) {
        const n = Number(path.slice(this.#cookieBase.length));
        for (const [seq, wake] of this.#waiting) {
          if (seq <= n) {
            this.#waiting.delete(seq);
            wake();
          }
        }
        continue;
      }
      if (path.startsWith(prefix) && path.length > prefix.length) this.#paths.add(path.slice(prefix.length));
      else {
        this.#lost = true;
        if (path === this.#dir) this.#topChanged = true;
      }
    }
  }

  #wakeAll(): void {
    for (const wake of this.#waiting.values()) wake();
    this.#waiting.clear();
  }

  /**
   * Everything delivered since the last sync, up to a moment after this call began; null when
   * the watcher cannot say (it failed, or the cookie did not come back).
   */
  async sync(): Promise<Delivered | null> {
    if (this.#broken) return null;
    const seq = ++this.#seq;
    const cookie = `${this.#cookieBase}${seq}`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let arrived = false;
    const waited = new Promise<void>((resolve) => {
      this.#waiting.set(seq, () => {
        arrived = true;
        resolve();
      });
      timer = setTimeout(resolve, COOKIE_TIMEOUT_MS);
    });
    try {
      Deno.writeFileSync(cookie, new Uint8Array(), { createNew: true });
    } catch {
      this.#waiting.delete(seq);
      clearTimeout(timer);
      return null;
    }
    await waited;
    clearTimeout(timer);
    try {
      Deno.removeSync(cookie);
    } catch { /* already gone */ }
    if (!arrived) {
      // The cookie never came back: the event stream cannot be trusted from here on. Most likely
      // Deno's watcher thread is blocked: for each event it opens the path to compare it with the
      // watched folder, and opening a named pipe (FIFO) made in the tree blocks until a writer
      // opens it. Closing the watcher would then block this thread too (it waits for a lock that
      // the blocked thread holds), and so would starting another one in this worker: give up
      // watching in this worker altogether, and close nothing.
      this.#broken = true;
      this.#wakeAll();
      watcherStuck = true;
      return null;
    }
    if (this.#broken) return null;
    const delivered = { paths: this.#paths, lost: this.#lost, topChanged: this.#topChanged };
    this.#paths = new Set();
    this.#lost = false;
    this.#topChanged = false;
    return delivered;
  }

  close(): void {
    this.#broken = true;
    this.#wakeAll();
    try {
      this.#watcher.close();
    } catch { /* closed */ }
  }
}

/**
 * Cookies a worker left when it was stopped while waiting for one. Removing another live worker's
 * cookie is harmless: it waits for the event of the cookie's creation, which has happened.
 */
function removeStaleCookies(gitdir: string): void {
  try {
    for (const entry of Deno.readDirSync(gitdir)) {
      if (entry.isFile && entry.name.startsWith(COOKIE_PREFIX)) Deno.removeSync(`${gitdir}/${entry.name}`);
    }
  } catch { /* nothing to tidy, or not allowed to */ }
}

/** What an entry of a listed folder is. */
type EntryKind = "file" | "dir" | "link" | "other";

function kindOf(entry: { isFile: boolean; isDirectory: boolean; isSymlink: boolean }): EntryKind {
  return entry.isFile ? "file" : entry.isDirectory ? "dir" : entry.isSymlink ? "link" : "other";
}

/** A folder the scan listed. */
interface Folder {
  /** Its lstat from before the listing (null: it was gone). */
  stamp: Stamp | null;
  /** Its entries when listed: the scan's listing as it was, made a map when first needed. */
  listing: readonly Deno.DirEntry[] | Map<string, EntryKind>;
  /** The ignore level its entries are judged by; whether .gitignore excludes this tracked folder. */
  readonly level: IgnoreLevel;
  readonly excluded: boolean;
  /** Changed too close to its listing for its stamp to show a later change: listed again each call. */
  racy: boolean;
}

/** The work tree's status as of the last full scan, with what proves it still current. */
interface Baseline {
  readonly optionsKey: string;
  indexStamp: Stamp | null;
  index: Index;
  work: WorktreeReport;
  readonly folders: Map<string, Folder>;
  readonly untracked: Set<string>;
  readonly ignored: Set<string>;
  readonly rules: IgnoreRules;
  /** The next call must scan everything (a folder new since the previous scan). */
  readonly stale: boolean;
  readonly staleReason: string;
}

/** Per repository (work-tree folder) in this worker. */
interface Monitor {
  readonly watcher: TreeWatcher;
  baseline: Baseline | null;
}

const monitors = new Map<string, Monitor>();
/** A watcher of this worker stopped answering: no watcher is started or closed here again. */
let watcherStuck = false;
/** Work trees whose watcher failed MAX_WATCH_FAILURES times in this worker: never watched again here. */
const unwatchable = new Set<string>();
const failed = new Map<string, number>();
const MAX_WATCH_FAILURES = 3;
/** Repositories one worker watches at most (the least recently used one stops first). */
const MAX_MONITORS = 4;

async function restart(monitor: Monitor, dir: string): Promise<undefined> {
  monitors.delete(dir);
  await monitor.watcher.stop();
  return undefined;
}

/** How the last call was answered (for tests and the bench). */
export type StatusSource = "scan" | "watcher";

/** Why the last call scanned everything (tests read it to see which rule fired). */
export let lastScanReason = "";
function because(reason: string): null {
  lastScanReason = reason;
  return null;
}

export interface MonitoredStatus {
  readonly index: Index;
  /** The work tree's side, to hand to computeStatus. */
  readonly work: WorktreeReport;
  readonly source: StatusSource;
}

function optionsKey(options: StatusOptions): string | null {
  if (options.paths && options.paths.length > 0) return null;
  return options.untracked ? "untracked" : "tracked";
}

function copyReport(work: WorktreeReport): WorktreeReport {
  return {
    unstaged: new Map(work.unstaged),
    untracked: [...work.untracked],
    withheld: [...work.withheld],
    refreshed: [],
    unaddressable: [...work.unaddressable],
    submodules: new Map(work.submodules),
  };
}

/** The major number of a Linux device id as stat reports it (glibc's gnu_dev_major). */
function deviceMajor(dev: number): number {
  return Number(((BigInt(dev) >> 8n) & 0xfffn) | ((BigInt(dev) >> 32n) & ~0xfffn));
}

/**
 * Whether every change to the file system holding `path` reaches this machine's inotify. Deno cannot
 * read /proc/self/mountinfo under pterm's permissions, so the device says: one backed by a block
 * device (major number not 0: ext4, xfs, … on a disk) is written only through this kernel. An
 * anonymous device (major 0) may be a network or shared folder (nfs, cifs, 9p as WSL's /mnt/c,
 * virtiofs, sshfs), changed by another machine unseen: never watched. That also leaves out tmpfs,
 * overlay, btrfs and zfs, which scan as before.
 */
export function changesSeenHere(path: string): boolean {
  const info = lstamp(path);
  return Deno.build.os === "linux" && info !== null && info.dev >= 0 && deviceMajor(info.dev) !== 0;
}

/** Where the call runs: only a warm worker keeps anything. */
export interface MonitorContext {
  /** This worker serves later calls (`CommandContext.warm`). */
  readonly warm: boolean;
}

function watchable(context: MonitorContext, repo: Repo): boolean {
  if (!context.warm || repo.gitdir !== `${repo.dir}/.git` || unwatchable.has(repo.dir) || watcherStuck) return false;
  if (changesSeenHere(repo.dir)) return true;
  unwatchable.add(repo.dir);
  return false;
}

/**
 * The index and the work tree's status for `git status`: kept and re-checked in a warm worker
 * (see the module's comment), read and scanned in full otherwise.
 */
export async function monitoredStatus(
  context: MonitorContext,
  repo: Repo,
  policy: PathPolicy,
  options: StatusOptions,
): Promise<MonitoredStatus> {
  const key = optionsKey(options);
  if (key === null || !watchable(context, repo)) {
    const index = readIndexFile(repo.gitdir);
    return { index, work: await worktreeStatus(repo, index, policy, options), source: "scan" };
  }
  const syncStarted = Date.now();
  let monitor = monitors.get(repo.dir);
  if (monitor) {
    // Most recently used last.
    monitors.delete(repo.dir);
    monitors.set(repo.dir, monitor);
  }
  // The work tree's folder itself replaced: its inotify watch went with the old folder, so the
  // watcher starts again on the new one (the cookie would never come back).
  if (monitor && lstamp(repo.dir)?.ino !== monitor.watcher.topIno) monitor = await restart(monitor, repo.dir);
  let delivered = monitor ? await monitor.watcher.sync() : null;
  if (monitor && delivered?.topChanged) monitor = await restart(monitor, repo.dir);
  if (!monitor) {
    let watcher: TreeWatcher;
    try {
      watcher = new TreeWatcher(repo.dir, repo.gitdir);
    } catch {
      // No inotify watch left for the tree's folders (or no watcher at all): scan, now and later.
      unwatchable.add(repo.dir);
      lastScanReason = "no watcher";
      const index = readIndexFile(repo.gitdir);
      return { index, work: await worktreeStatus(repo, index, policy, options), source: "scan" };
    }
    monitor = { watcher, baseline: null };
    monitors.set(repo.dir, monitor);
    // Each watcher holds one inotify watch per folder of its tree, from the user's shared limit:
    // a worker watches its few most recent repositories only.
    for (const [dir, old] of monitors) {
      if (monitors.size <= MAX_MONITORS) break;
      monitors.delete(dir);
      if (!watcherStuck) await old.watcher.stop();
    }
    delivered = await watcher.sync();
  }
  if (!delivered) {
    // The watcher failed, or its cookie did not come back: scan, and after a few such calls stop
    // watching this tree in this worker.
    monitors.delete(repo.dir);
    if (!watcherStuck) await monitor.watcher.stop();
    const failures = (failed.get(repo.dir) ?? 0) + 1;
    failed.set(repo.dir, failures);
    if (failures >= MAX_WATCH_FAILURES) unwatchable.add(repo.dir);
    lastScanReason = "the watcher failed";
    const index = readIndexFile(repo.gitdir);
    return { index, work: await worktreeStatus(repo, index, policy, options), source: "scan" };
  }
  const baseline = monitor.baseline;
  if (!baseline) lastScanReason = "no kept answer";
  else if (baseline.optionsKey !== key) lastScanReason = "other options";
  else if (baseline.stale) lastScanReason = baseline.staleReason;
  else if (delivered.lost) lastScanReason = "the watcher lost events";
  if (baseline && baseline.optionsKey === key && !baseline.stale && !delivered.lost) {
    const kept = await keptStatus(repo, policy, baseline, delivered.paths, syncStarted - RACY_MS);
    if (kept) {
      // Refreshed stat data the handler writes into this index object and the file comes back as
      // an index event: re-read, it differs from the object in nothing, so nothing is re-checked.
      return { index: baseline.index, work: kept, source: "watcher" };
    }
  }
  monitor.baseline = null;
  const scanned = await fullScan(repo, policy, options, key, {
    racyFrom: syncStarted - RACY_MS,
    watchedFrom: monitor.watcher.startedAt - RACY_MS,
  }, baseline);
  monitor.baseline = scanned.baseline;
  if (unwatchable.has(repo.dir)) {
    lastScanReason = "a folder of the tree is on another file system";
    monitors.delete(repo.dir);
    await monitor.watcher.stop();
  }
  return { index: scanned.baseline?.index ?? scanned.index, work: copyReport(scanned.work), source: "scan" };
}

async function fullScan(
  repo: Repo,
  policy: PathPolicy,
  options: StatusOptions,
  key: string,
  times: { readonly racyFrom: number; readonly watchedFrom: number },
  previous: Baseline | null,
): Promise<{ baseline: Baseline | null; index: Index; work: WorktreeReport }> {
  const { racyFrom, watchedFrom } = times;
  const indexPath = `${repo.gitdir}/index`;
  const before = lstamp(indexPath);
  const index = readIndexFile(repo.gitdir);
  const after = lstamp(indexPath);
  const stamps = new Map<string, Stamp | null>();
  const folders = new Map<string, Folder>();
  const ignored = new Set<string>();
  let rules: IgnoreRules | null = null;
  const observer: WalkObserver = {
    folder: (path, info) => stamps.set(path, stampOf(info)),
    ignored: (path) => ignored.add(path),
    listed: (path, entries, level, excluded) => {
      const stamp = stamps.get(path) ?? null;
      folders.set(path, { stamp, listing: entries, level, excluded, racy: isRacy(stamp, racyFrom) });
    },
    rules: (ignore) => rules = ignore,
  };
  const work = await worktreeStatus(repo, index, policy, options, observer);
  // An index that changed while it was read is not kept (the next call reads it again). Nor is an
  // answer that looked into submodules: their work trees and git folders are not watched.
  if (!sameStamp(before, after) || !rules || work.submodules.size > 0) return { baseline: null, index, work };
  // A folder on another file system (a mount point in the tree) may not be watched as the rest.
  const top = stamps.get("")?.dev;
  for (const stamp of stamps.values()) {
    if (stamp !== null && stamp.dev !== top) {
      unwatchable.add(repo.dir);
      return { baseline: null, index, work };
    }
  }
  let staleReason = "";
  for (const [path, stamp] of stamps) {
    // A folder that could not be listed, or new since the previous scan (the watcher adds its inotify
    // watch only after reporting it, perhaps after this scan listed it).
    if (stamp === null || !folders.has(path)) staleReason = `folder ${path || "."} could not be listed`;
    else if (previous && !previous.folders.has(path)) staleReason = `folder ${path || "."} is new`;
    else if (!previous && isRacy(stamp, watchedFrom)) staleReason = `folder ${path || "."} changed as the watch began`;
    if (staleReason) break;
  }
  const baseline: Baseline = {
    optionsKey: key,
    indexStamp: after,
    index,
    work: { ...work, refreshed: [] },
    folders,
    untracked: new Set(work.untracked),
    ignored,
    rules,
    stale: staleReason !== "",
    staleReason,
  };
  return { baseline, index, work };
}

function namesOf(folder: Folder): Map<string, EntryKind> {
  if (!(folder.listing instanceof Map)) {
    folder.listing = new Map(folder.listing.map((entry) => [entry.name, kindOf(entry)]));
  }
  return folder.listing;
}

function isRacy(stamp: Stamp | null, racyFrom: number): boolean {
  return stamp === null || stamp.mtime >= racyFrom || stamp.ctime >= racyFrom;
}

function isUnder(path: string, set: Set<string>): boolean {
  if (set.has(path)) return true;
  for (let slash = path.lastIndexOf("/"); slash > 0; slash = path.lastIndexOf("/", slash - 1)) {
    if (set.has(path.slice(0, slash))) return true;
  }
  return false;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/**
 * The baseline's answer brought up to date with `changed`, or null when only a full scan can
 * tell (see the module's comment for each case). Updates the baseline as it goes: on null the
 * caller drops it.
 */
async function keptStatus(
  repo: Repo,
  policy: PathPolicy,
  baseline: Baseline,
  changed: Set<string>,
  racyFrom: number,
): Promise<WorktreeReport | null> {
  refreshedNow.length = 0;
  /** Tracked paths whose files to look at again. */
  const toCheck = new Set<string>();
  /** Folders to list again (their entries may have come or gone). */
  const toList = new Set<string>();
  let indexTouched = false;
  for (const path of changed) {
    if (path === ".git" || path.startsWith(".git/")) {
      const inner = path.slice(5);
      if (inner === "index") indexTouched = true;
      else if (!INERT_GIT_PATHS.some((pattern) => pattern.test(inner))) return because(`.git/${inner} changed`);
      continue;
    }
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (name === ".gitignore" || name === ".gitattributes") return because(`${path} changed`);
    if (path.includes("\uFFFD")) return because("a name that is not UTF-8");
    if (policy.hidden(path) !== null) continue;
    const index = baseline.index;
    const entry = index.entries.get(path);
    if (entry && entry.mode !== S_IFGITLINK && !index.conflicts.has(path)) {
      // Its content or mode (made or removed: its folder's stamp moved, and the listing says).
      toCheck.add(path);
      continue;
    }
    if (entry || index.conflicts.has(path)) return because(`${path}: a submodule or a conflict`);
    // An event names a folder itself only when it is made, removed, moved or its mode changes.
    if (baseline.folders.has(path)) return because(`${path}: a folder changed`);
    // Content changes of files the scan left out or listed as untracked change nothing it reports
    // (made, removed or renamed: their folder's stamp moved).
    if (baseline.untracked.has(path) || isUnder(path, baseline.ignored)) continue;
    // Anything else in a listed folder (a file made, removed, renamed): its folder's listing says.
    if (baseline.folders.has(parentOf(path))) {
      toList.add(parentOf(path));
      continue;
    }
    return because(`${path}: a new path`);
  }
  let index = baseline.index;
  if (indexTouched || !sameStamp(lstamp(`${repo.gitdir}/index`), baseline.indexStamp)) {
    const reread = rereadIndex(repo, baseline.index);
    if (typeof reread === "string") return because(reread);
    index = reread.index;
    baseline.index = index;
    baseline.indexStamp = reread.stamp;
    for (const path of reread.changed) toCheck.add(path);
  }
  // Folders whose stamp moved (an entry made, removed or renamed, even one Deno sent no event for,
  // such as a link to outside the tree), or too recent to tell: list them again.
  for (const [path, folder] of baseline.folders) {
    if (folder.racy || !sameStamp(lstamp(path === "" ? repo.dir : `${repo.dir}/${path}`), folder.stamp)) {
      toList.add(path);
    }
  }
  const work = baseline.work;
  let untrackedChanged = false;
  for (const dir of toList) {
    const folder = baseline.folders.get(dir)!;
    const abs = dir === "" ? repo.dir : `${repo.dir}/${dir}`;
    const stamp = lstamp(abs);
    if (stamp === null || folder.stamp === null || stamp.ino !== folder.stamp.ino) {
      return because(`folder ${dir || "."} replaced`);
    }
    const names = new Map<string, EntryKind>();
    try {
      for (const entry of Deno.readDirSync(abs)) names.set(entry.name, kindOf(entry));
    } catch {
      return because(`folder ${dir || "."} cannot be listed`);
    }
    const before = namesOf(folder);
    for (const [name, kind] of before) {
      const now = names.get(name);
      if (now === kind) continue;
      if (kind === "dir" || now === "dir") return because(`${dir ? dir + "/" : ""}${name}: a folder came or went`);
      // Gone, or another kind (file, link): what it was no longer holds.
      const path = dir === "" ? name : `${dir}/${name}`;
      if (!(await entryChanged(repo, policy, baseline, folder, path, name, now ?? null))) return null;
      untrackedChanged = true;
    }
    for (const [name, kind] of names) {
      if (before.has(name)) continue;
      if (kind === "dir") return because(`${dir ? dir + "/" : ""}${name}: a new folder`);
      const path = dir === "" ? name : `${dir}/${name}`;
      if (!(await entryChanged(repo, policy, baseline, folder, path, name, kind))) return null;
      untrackedChanged = true;
    }
    folder.listing = names;
    folder.stamp = stamp;
    folder.racy = isRacy(stamp, racyFrom);
  }
  if (untrackedChanged) work.untracked = [...baseline.untracked].sort(comparePaths);
  for (const path of toCheck) {
    const entry = index.entries.get(path);
    if (!entry) return because(`${path} left the index`);
    if (entry.assumeValid || entry.skipWorktree) {
      work.unstaged.delete(path);
      continue;
    }
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(`${repo.dir}/${path}`);
    } catch {
      // Gone: its folder's listing (above) decided, as the scan would have.
      const folder = baseline.folders.get(parentOf(path));
      if (!folder || namesOf(folder).has(path.slice(path.lastIndexOf("/") + 1))) return because(`${path} is gone`);
      work.unstaged.set(path, "D");
      continue;
    }
    if (!info.isFile && !info.isSymlink) return because(`${path} is no longer a file`);
    const verdict = await trackedFileVerdict(repo, index, entry, info);
    if (verdict.change) work.unstaged.set(path, verdict.change);
    else work.unstaged.delete(path);
    if (verdict.refreshed) refreshedNow.push(verdict.refreshed);
  }
  const refreshed = refreshedNow.splice(0);
  return { ...copyReport(work), refreshed };
}

const refreshedNow: IndexEntry[] = [];

/**
 * One entry of a listed folder came, went or changed kind (not a folder: those scan everything):
 * the baseline updated as the scan would have found it, or null (with the reason) when only a
 * scan can tell.
 */
async function entryChanged(
  repo: Repo,
  policy: PathPolicy,
  baseline: Baseline,
  folder: Folder,
  path: string,
  name: string,
  now: EntryKind | null,
): Promise<boolean> {
  if (name === ".git") return because(`${path}: a repository came or went`) ?? false;
  if (name === ".gitignore" || name === ".gitattributes") return because(`${path} came or went`) ?? false;
  if (name.includes("\uFFFD")) return because("a name that is not UTF-8") ?? false;
  if (policy.hiddenChild(parentOf(path), name) !== null) {
    return because(`${path}: a withheld path came or went`) ?? false;
  }
  const index = baseline.index;
  if (index.conflicts.has(path)) return because(`${path}: a conflict`) ?? false;
  const entry = index.entries.get(path);
  const work = baseline.work;
  if (entry) {
    if (entry.mode === S_IFGITLINK) return because(`${path}: a submodule`) ?? false;
    if (now === null) {
      // Removed: missing, as the scan says (assume-unchanged and skip-worktree: not looked at).
      if (entry.assumeValid || entry.skipWorktree) work.unstaged.delete(path);
      else work.unstaged.set(path, "D");
      return true;
    }
    // Neither file nor link (a FIFO, a socket) where a file is tracked: rare, so the scan decides.
    if (now === "other") return because(`${path} is neither a file nor a link`) ?? false;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(`${repo.dir}/${path}`);
    } catch {
      return because(`${path} changed while it was looked at`) ?? false;
    }
    if (!info.isFile && !info.isSymlink) return because(`${path} changed while it was looked at`) ?? false;
    const verdict = await trackedFileVerdict(repo, index, entry, info);
    if (verdict.change) work.unstaged.set(path, verdict.change);
    else work.unstaged.delete(path);
    if (verdict.refreshed) refreshedNow.push(verdict.refreshed);
    return true;
  }
  // Not tracked.
  baseline.untracked.delete(path);
  baseline.ignored.delete(path);
  if (now === null || now === "other" || baseline.optionsKey !== "untracked" || folder.excluded) return true;
  if (baseline.rules.excludedAt(folder.level, path, false)) baseline.ignored.add(path);
  else baseline.untracked.add(path);
  return true;
}

/**
 * The index again, after real git (or pterm) rewrote it: kept only when it tracks the same paths
 * with no conflicts (then the scan's folders, untracked and ignored files are still what they
 * were); `changed` names the entries whose object, mode, flags or stat data differ, to re-check.
 * A string says why not.
 */
function rereadIndex(
  repo: Repo,
  old: Index,
): { index: Index; stamp: Stamp | null; changed: Set<string> } | string {
  const indexPath = `${repo.gitdir}/index`;
  const before = lstamp(indexPath);
  const index = readIndexFile(repo.gitdir);
  if (!sameStamp(before, lstamp(indexPath))) return "the index changed while it was read";
  if (index.conflicts.size > 0 || old.conflicts.size > 0) return "the index has conflicts";
  if (index.entries.size !== old.entries.size) return "the index tracks other paths";
  const changed = new Set<string>();
  for (const [path, entry] of index.entries) {
    const was = old.entries.get(path);
    if (!was) return "the index tracks other paths";
    if (
      was.oid !== entry.oid || was.mode !== entry.mode || was.assumeValid !== entry.assumeValid ||
      was.skipWorktree !== entry.skipWorktree || was.intentToAdd !== entry.intentToAdd
    ) {
      const name = path.slice(path.lastIndexOf("/") + 1);
      if (name === ".gitattributes" || name === ".gitignore") return `${path} changed in the index`;
      changed.add(path);
    } else if (
      was.mtimeS !== entry.mtimeS || was.mtimeNs !== entry.mtimeNs || was.ctimeS !== entry.ctimeS ||
      was.ctimeNs !== entry.ctimeNs || was.size !== entry.size || was.ino !== entry.ino || was.dev !== entry.dev ||
      was.uid !== entry.uid || was.gid !== entry.gid
    ) changed.add(path);
  }
  return { index, stamp: before, changed };
}

/** Stops every watcher of this worker (tests); after a stuck watcher, only forgets them (see `sync`). */
export async function closeMonitors(): Promise<void> {
  if (!watcherStuck) { for (const monitor of monitors.values()) await monitor.watcher.stop(); }
  monitors.clear();
  unwatchable.clear();
  failed.clear();
}
