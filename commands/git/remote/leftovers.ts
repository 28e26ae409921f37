/**
 * What a pterm killed mid-transfer (kill -9, a crash, the machine going down) leaves behind: a
 * `tmp_pack_*` / `tmp_idx_*` in objects/pack (a fetch), a `tmp_base_*` there (a large delta base
 * spilled while indexing or checking out: odb/pack.ts SpilledBase), or the hidden folder a clone was being
 * built in (`.<dir>.pterm-clone-*`, beside --dir). Neither is ever read — pack readers open
 * only `*.idx`, and a clone's folder is renamed into place only when complete — so they confuse
 * nothing; the next fetch (or clone beside them) removes them.
 *
 * Whether their maker is dead is known exactly: it holds an flock on each temporary file, and on
 * `.git/pterm-clone.lock` in a clone's folder, for as long as it works on them; the kernel lets
 * go of a dead process's locks. What has no lock to ask (a clone folder killed in the instant
 * between its creation and its lock) is removed once untouched for an hour, or twice the largest
 * call timeout.
 */

/** A clone folder without its lock file is taken for dead once untouched for this long (or twice the largest timeout). */
const STALE_AFTER_MS = 60 * 60 * 1000;

/** pterm's own temporary names (index_pack.ts, operations.ts), not other tools'. */
const PACK_TEMP = /^tmp_(pack|idx|base)_[0-9a-f]{8}$/;
const CLONE_FOLDER = /^\..+\.pterm-clone-[0-9a-f]{8}$/;
export const CLONE_LOCK = "pterm-clone.lock";

export function staleAfterMs(timeoutMaxMs: number): number {
  return Math.max(STALE_AFTER_MS, 2 * timeoutMaxMs);
}

/**
 * Runs `remove` if nobody holds a lock on `path` (its maker is gone), under the lock taken
 * meanwhile; true if it did, false if the file is held (or gone).
 */
function whenUnheld(path: string, remove: () => void): boolean {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch {
    return false;
  }
  try {
    if (!file.tryLockSync(true)) return false;
    remove();
    return true;
  } catch {
    return false;
  } finally {
    file.close();
  }
}

/** Removes the temporary pack files in `packDir` that no live pterm holds. */
export function removeDeadPackTemps(packDir: string): void {
  let names: string[];
  try {
    names = [...Deno.readDirSync(packDir)].filter((e) => e.isFile && PACK_TEMP.test(e.name)).map((e) => e.name);
  } catch {
    return;
  }
  for (const name of names) whenUnheld(`${packDir}/${name}`, () => Deno.removeSync(`${packDir}/${name}`));
}

function modified(path: string): number | null {
  try {
    return Deno.lstatSync(path).mtime?.getTime() ?? null;
  } catch {
    return null;
  }
}

/**
 * Removes the hidden folders of dead clones in `parent`: real folders (never a link) of the
 * clone's naming holding a `.git` folder, whose lock nobody holds — or, without a lock file,
 * untouched for `staleMs`.
 */
export function removeDeadCloneFolders(parent: string, staleMs: number, now = Date.now()): void {
  let names: string[];
  try {
    names = [...Deno.readDirSync(parent)]
      .filter((e) => e.isDirectory && CLONE_FOLDER.test(e.name))
      .map((e) => e.name);
  } catch {
    return;
  }
  for (const name of names) {
    const folder = `${parent}/${name}`;
    const git = `${folder}/.git`;
    try {
      if (!Deno.lstatSync(git).isDirectory) continue;
    } catch {
      continue;
    }
    const remove = () => Deno.removeSync(folder, { recursive: true });
    const lock = `${git}/${CLONE_LOCK}`;
    if (modified(lock) !== null) {
      whenUnheld(lock, remove);
      continue;
    }
    const times = [modified(folder), modified(git), modified(`${git}/objects/pack`)];
    const latest = Math.max(...times.filter((t): t is number => t !== null));
    if (now - latest > staleMs) {
      try {
        remove();
      } catch { /* removed meanwhile, or not removable: left as it is */ }
    }
  }
}
