/**
 * What a pterm killed mid-transfer (kill -9, a crash, the machine going down) leaves behind: a
 * `tmp_pack_*` / `tmp_idx_*` in objects/pack (a fetch), or the hidden folder a clone was being
 * built in (`.<dir>.pterm-clone-*`, beside --dir). Neither is ever read — pack readers open
 * only `*.idx`, and a clone's folder is renamed into place only when complete — so they confuse
 * nothing; but they take space. As git's gc does with its temporary packs, they are removed once
 * old enough that no live transfer can own them: a pterm call cannot outlive the kernel's
 * largest timeout, and a live transfer keeps touching its files.
 */

/** Leftovers untouched for this long (or twice the largest timeout a call may have, if longer) are removed. */
const STALE_AFTER_MS = 60 * 60 * 1000;

/** pterm's own temporary names (index_pack.ts), not other tools'. */
const PACK_TEMP = /^tmp_(pack|idx)_[0-9a-f]{8}$/;
const CLONE_FOLDER = /^\..+\.pterm-clone-[0-9a-f]{8}$/;

export function staleAfterMs(timeoutMaxMs: number): number {
  return Math.max(STALE_AFTER_MS, 2 * timeoutMaxMs);
}

function modified(path: string): number | null {
  try {
    return Deno.lstatSync(path).mtime?.getTime() ?? null;
  } catch {
    return null;
  }
}

/** Removes pterm's temporary pack files in `packDir` that nothing has written to for `staleMs`. */
export function removeStalePackTemps(packDir: string, staleMs: number, now = Date.now()): void {
  let names: string[];
  try {
    names = [...Deno.readDirSync(packDir)].filter((e) => e.isFile && PACK_TEMP.test(e.name)).map((e) => e.name);
  } catch {
    return;
  }
  for (const name of names) {
    const at = modified(`${packDir}/${name}`);
    if (at !== null && now - at > staleMs) {
      try {
        Deno.removeSync(`${packDir}/${name}`);
      } catch { /* gone meanwhile, or not ours to remove */ }
    }
  }
}

/**
 * Removes the hidden folders of dead clones in `parent`: real folders (never a link) of the
 * clone's naming, holding a `.git`, whose folder, `.git` and pack files all went untouched for
 * `staleMs`.
 */
export function removeStaleCloneFolders(parent: string, staleMs: number, now = Date.now()): void {
  let names: string[];
  try {
    names = [...Deno.readDirSync(parent)].filter((e) => e.isDirectory && CLONE_FOLDER.test(e.name)).map((e) => e.name);
  } catch {
    return;
  }
  for (const name of names) {
    const folder = `${parent}/${name}`;
    const git = `${folder}/.git`;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(git);
    } catch {
      continue;
    }
    if (!info.isDirectory) continue;
    const times = [modified(folder), modified(git), modified(`${git}/index.lock`), modified(`${git}/objects/pack`)];
    try {
      for (const entry of Deno.readDirSync(`${git}/objects/pack`)) {
        times.push(modified(`${git}/objects/pack/${entry.name}`));
      }
    } catch { /* no pack yet */ }
    const latest = Math.max(...times.filter((t): t is number => t !== null));
    if (now - latest <= staleMs) continue;
    try {
      Deno.removeSync(folder, { recursive: true });
    } catch { /* removed meanwhile, or not removable: left as it is */ }
  }
}
