/**
 * `git status` in a warm worker (`pterm mcp`): the work tree's side of the status is kept between
 * calls and re-checked only where something changed, as git's own fsmonitor does
 * (Documentation/git-fsmonitor--daemon.txt, builtin/fsmonitor--daemon.c). Without a warm worker
 * (`pterm exec`) nothing here runs: every call reads and scans everything.
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
 *    (e.g. no inotify watch left for a new folder: the watcher is then given up for good), a
 *    cookie that does not arrive in time, an event for the top folder or outside it.
 * 4. Deno delivers no event for a path that resolves outside the watched folder (a symbolic link
 *    to elsewhere swapped in): so besides the events, every folder the scan listed is lstat'ed
 *    each call (a few hundred calls, not one per file) and any change of its mtime, ctime or
 *    inode — an entry created, removed or renamed in it — makes the call scan everything. A
 *    folder changed within RACY_MS of the scan that listed it counts as changed (its timestamp
 *    could not tell a later change), as does a folder new since the last scan (the watcher adds its
 *    inotify watch only after reporting it).
 * 5. The index: kept while its lstat (size, mtime, ctime, inode) is unchanged and no event named
 *    `.git/index`; otherwise re-read, and everything is scanned again. Any event in `.git` other
 *    than objects, refs, logs, HEAD-like files and locks (config, info/exclude, info/attributes,
 *    …) does the same, as does any `.gitignore` or `.gitattributes` event.
 * 6. The rest: an event for a tracked file that is still a file or a link re-checks that one file
 *    exactly as the scan does (stat data, then content when racy); an event for a path the scan
 *    found ignored, untracked or withheld changes nothing that status reports; anything else
 *    (a new path, a deletion, a folder, a conflict, a submodule) scans everything.
 *
 * What no watcher sees, and so neither this: a file changed through a hard link from outside the
 * work tree, or written through a shared memory mapping (git's fsmonitor and watchman share both
 * limits); a work tree on a network file system changed by another machine.
 */

import type { Index, IndexEntry } from "./index_file.ts";
import { readIndexFile, S_IFGITLINK } from "./index_file.ts";
import type { Repo } from "./repo.ts";
import {
  type StatusOptions,
  trackedFileVerdict,
  type WalkObserver,
  type WorktreeChange,
  type WorktreeReport,
  worktreeStatus,
} from "./status.ts";
import type { PathPolicy } from "./worktree.ts";

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
  return a.mtime === b.mtime && a.ctime === b.ctime && a.ino === b.ino && a.size === b.size && a.mode === b.mode;
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
    void this.#pump();
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
      // The cookie never came back: the event stream cannot be trusted from here on.
      this.close();
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

/** The work tree's status as of the last full scan, with what proves it still current. */
interface Baseline {
  readonly optionsKey: string;
  indexStamp: Stamp | null;
  index: Index;
  readonly work: WorktreeReport;
  /** Every folder the scan listed, with its lstat from before the listing (null: it was gone). */
  readonly folders: Map<string, Stamp | null>;
  readonly untracked: Set<string>;
  readonly ignored: Set<string>;
  /** The next call must scan everything (a folder was racy or new). */
  readonly stale: boolean;
  readonly staleReason: string;
}

/** Per repository (work-tree folder) in this worker. */
interface Monitor {
  readonly watcher: TreeWatcher;
  baseline: Baseline | null;
}

const monitors = new Map<string, Monitor>();
/** Work trees whose watcher failed MAX_WATCH_FAILURES times in this worker: never watched again here. */
const unwatchable = new Set<string>();
const failed = new Map<string, number>();
const MAX_WATCH_FAILURES = 3;

function restart(monitor: Monitor, dir: string): undefined {
  monitor.watcher.close();
  monitors.delete(dir);
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
  };
}

/**
 * The index and the work tree's status for `git status`. `warm`: this worker serves later calls
 * (`CommandContext.warm`); only then is a watcher started and an answer kept.
 */
export async function monitoredStatus(
  warm: boolean,
  repo: Repo,
  policy: PathPolicy,
  options: StatusOptions,
): Promise<MonitoredStatus> {
  const key = optionsKey(options);
  if (!warm || key === null || repo.gitdir !== `${repo.dir}/.git` || unwatchable.has(repo.dir)) {
    const index = readIndexFile(repo.gitdir);
    return { index, work: await worktreeStatus(repo, index, policy, options), source: "scan" };
  }
  const syncStarted = Date.now();
  let monitor = monitors.get(repo.dir);
  // The work tree's folder itself replaced: its inotify watch went with the old folder, so the
  // watcher starts again on the new one (the cookie would never come back).
  if (monitor && lstamp(repo.dir)?.ino !== monitor.watcher.topIno) monitor = restart(monitor, repo.dir);
  let delivered = monitor ? await monitor.watcher.sync() : null;
  if (monitor && delivered?.topChanged) monitor = restart(monitor, repo.dir);
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
    delivered = await watcher.sync();
  }
  if (!delivered) {
    // The watcher failed, or its cookie did not come back: scan, and after a few such calls stop
    // watching this tree in this worker.
    monitor.watcher.close();
    monitors.delete(repo.dir);
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
    const kept = await keptStatus(repo, policy, baseline, delivered.paths);
    if (kept) {
      // Refreshed stat data the handler writes into this index object and the file comes back as
      // an index event: re-read, it differs from the object in nothing, so nothing is re-checked.
      return { index: baseline.index, work: kept, source: "watcher" };
    }
  }
  monitor.baseline = null;
  const scanned = await fullScan(repo, policy, options, key, syncStarted, baseline);
  monitor.baseline = scanned.baseline;
  return { index: scanned.baseline?.index ?? scanned.index, work: copyReport(scanned.work), source: "scan" };
}

async function fullScan(
  repo: Repo,
  policy: PathPolicy,
  options: StatusOptions,
  key: string,
  syncStarted: number,
  previous: Baseline | null,
): Promise<{ baseline: Baseline | null; index: Index; work: WorktreeReport }> {
  const indexPath = `${repo.gitdir}/index`;
  const before = lstamp(indexPath);
  const index = readIndexFile(repo.gitdir);
  const after = lstamp(indexPath);
  const folders = new Map<string, Stamp | null>();
  const ignored = new Set<string>();
  const observer: WalkObserver = {
    folder: (path, info) => folders.set(path, stampOf(info)),
    ignored: (path) => ignored.add(path),
  };
  const work = await worktreeStatus(repo, index, policy, options, observer);
  // An index that changed while it was read is not kept (the next call reads it again).
  if (!sameStamp(before, after)) return { baseline: null, index, work };
  const racyFrom = syncStarted - RACY_MS;
  let staleReason = "";
  for (const [path, stamp] of folders) {
    if (stamp === null || stamp.mtime >= racyFrom || stamp.ctime >= racyFrom) {
      staleReason = `folder ${path || "."} is racy`;
    } else if (previous && !previous.folders.has(path)) staleReason = `folder ${path || "."} is new`;
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
    // Refreshed stat data is written by the handler into the index: read it again next time.
    stale: staleReason !== "",
    staleReason,
  };
  return { baseline, index, work };
}

function isUnder(path: string, set: Set<string>): boolean {
  if (set.has(path)) return true;
  for (let slash = path.lastIndexOf("/"); slash > 0; slash = path.lastIndexOf("/", slash - 1)) {
    if (set.has(path.slice(0, slash))) return true;
  }
  return false;
}

/**
 * The baseline's answer brought up to date with `changed`, or null when only a full scan can
 * tell (see the module's comment for each case).
 */
async function keptStatus(
  repo: Repo,
  policy: PathPolicy,
  baseline: Baseline,
  changed: Set<string>,
): Promise<WorktreeReport | null> {
  const toCheck: IndexEntry[] = [];
  let indexTouched = false;
  for (const path of changed) {
    if (path === ".git" || path.startsWith(".git/")) {
      const inner = path.slice(5);
      if (inner === "index") {
        indexTouched = true;
        continue;
      }
      if (!INERT_GIT_PATHS.some((pattern) => pattern.test(inner))) return because(`.git/${inner} changed`);
      continue;
    }
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (name === ".gitignore" || name === ".gitattributes") return because(`${path} changed`);
    if (path.includes("\uFFFD")) return because("a name that is not UTF-8");
    const index = baseline.index;
    const entry = index.entries.get(path);
    if (policy.hidden(path) !== null) continue;
    if (entry && entry.mode !== S_IFGITLINK && !index.conflicts.has(path)) {
      toCheck.push(entry);
      continue;
    }
    if (entry || index.conflicts.has(path)) return because(`${path}: a submodule or a conflict`);
    // Content changes of files the scan left out or listed as untracked change nothing it reports;
    // their creation, removal or renaming shows in their folder's stamp below.
    if (baseline.untracked.has(path) || isUnder(path, baseline.ignored)) continue;
    // An event names a folder itself only when it is made, removed, moved or its mode changes.
    if (baseline.folders.has(path)) return because(`${path}: a folder changed`);
    return because(`${path}: a new path`);
  }
  let index = baseline.index;
  let indexStamp = baseline.indexStamp;
  if (indexTouched || !sameStamp(lstamp(`${repo.gitdir}/index`), baseline.indexStamp)) {
    const reread = rereadIndex(repo, baseline.index);
    if (typeof reread === "string") return because(reread);
    index = reread.index;
    indexStamp = reread.stamp;
    toCheck.length = 0;
    for (const path of changed) {
      const entry = index.entries.get(path);
      if (entry && !reread.changed.has(path)) toCheck.push(entry);
    }
    for (const path of reread.changed) toCheck.push(index.entries.get(path)!);
  }
  for (const [path, stamp] of baseline.folders) {
    if (!sameStamp(lstamp(path === "" ? repo.dir : `${repo.dir}/${path}`), stamp)) {
      return because(`folder ${path || "."} changed`);
    }
  }
  if (index !== baseline.index) {
    baseline.index = index;
    baseline.indexStamp = indexStamp;
  }
  if (toCheck.length === 0) return copyReport(baseline.work);
  const unstaged = new Map<string, WorktreeChange>(baseline.work.unstaged);
  const refreshed: IndexEntry[] = [];
  for (const entry of toCheck) {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(`${repo.dir}/${entry.path}`);
    } catch {
      return because(`${entry.path} is gone`); // a deletion (its folder's stamp may not show it yet)
    }
    if (!info.isFile && !info.isSymlink) return because(`${entry.path} is no longer a file`);
    const verdict = await trackedFileVerdict(repo, index, entry, info);
    if (verdict.change) unstaged.set(entry.path, verdict.change);
    else unstaged.delete(entry.path);
    if (verdict.refreshed) refreshed.push(verdict.refreshed);
  }
  const work: WorktreeReport = { ...copyReport(baseline.work), unstaged };
  // Kept for the next call too: the same answer, now current.
  (baseline as { work: WorktreeReport }).work = { ...work, unstaged: new Map(unstaged), refreshed: [] };
  return { ...work, refreshed };
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

/** Stops every watcher of this worker (tests). */
export function closeMonitors(): void {
  for (const monitor of monitors.values()) monitor.watcher.close();
  monitors.clear();
  unwatchable.clear();
  failed.clear();
}
