/**
 * The first checkout of a clone: every file of the branch's tree written into the folder the
 * clone is being built in — a hidden folder pterm created moments before, empty but for `.git`,
 * with an empty index. `switchTrees` would look for local changes, untracked files in the way and
 * files where folders go, and in an empty folder each of those checks is a failed `lstat` (an
 * error thrown and caught) per file and per folder on its path, before a write through a
 * temporary name and a rename. Here each file is written once, created exclusively (something
 * that appeared there anyway is an error, never overwritten) and stat'ed through its open handle.
 * Everything else is the checkout's own: `writeBlob` (attributes, line endings, links written as
 * plain files, submodule folders), the path checks of `WorktreeWriter.prepare`, the policy's
 * withheld paths.
 */

import { comparePaths } from "../odb/bytes.ts";
import { isAttributesFile, writeBlob } from "../worktree/checkout.ts";
import { conversionFor } from "../worktree/convert.ts";
import { emptyEntry, S_IFGITLINK, S_IFREG_755, treeModeToMode } from "../worktree/index_file.ts";
import type { Repo } from "../repo/repo.ts";
import { loadIndex } from "../repo/state.ts";
import { flattenTree } from "../odb/tree.ts";
import { type BlobSource, holdingPackFiles } from "../odb/pack.ts";
import { keptInStep, type PathPolicy, refuseUnaddressable, WorktreeWriter, writeSource } from "../worktree/worktree.ts";

/** Writes new files only: the folder is pterm's own and was empty. */
class FreshWorktreeWriter extends WorktreeWriter {
  override writeFile(path: string, content: Uint8Array | BlobSource, mode: number): Deno.FileInfo {
    const abs = this.prepare(path);
    const fileMode = mode === S_IFREG_755 ? 0o755 : 0o644;
    let file: Deno.FsFile;
    if (content instanceof Uint8Array) {
      file = Deno.openSync(abs, { write: true, createNew: true, mode: fileMode });
      try {
        let written = 0;
        while (written < content.length) written += file.writeSync(content.subarray(written));
      } catch (error) {
        file.close();
        throw error;
      }
    } else file = writeSource(abs, content, fileMode);
    try {
      let info = file.statSync();
      // The process's umask may have taken bits off the mode asked for.
      if ((info.mode! & 0o777) !== fileMode) {
        Deno.chmodSync(abs, fileMode);
        info = file.statSync();
      }
      return info;
    } finally {
      file.close();
    }
  }
}

/**
 * Checks out `tree` into the empty work tree of `repo` (the repository lock held, its index
 * empty); returns how many paths were written and which were withheld (secrets, pterm's state).
 */
export async function checkoutIntoEmpty(
  repo: Repo,
  policy: PathPolicy,
  tree: string,
): Promise<{ written: number; withheld: string[] }> {
  const index = loadIndex(repo);
  const flat = await flattenTree(repo, tree);
  const paths = [...flat.keys()].sort(comparePaths);
  // Secrets are written as git writes them (never shown); pterm's state and git directories are not.
  const withheldHere = (path: string) => !keptInStep(policy.hidden(path));
  refuseUnaddressable(paths.filter((path) => !withheldHere(path)), "the checkout of the clone");
  // Every blob first, as switchTrees does: a missing one fails before anything is written.
  for (const path of paths) {
    const target = flat.get(path)!;
    if (withheldHere(path) || treeModeToMode(target.mode) === S_IFGITLINK) continue;
    if (!(await repo.objects.has(target.oid))) throw repo.objects.missing(target.oid);
  }
  // Files written by this checkout follow the .gitattributes it writes, as in git.
  conversionFor(repo, index).expectAttributes(
    new Map(paths.filter(isAttributesFile).map((path) => [path, flat.get(path)!.oid])),
  );
  const writer = new FreshWorktreeWriter(repo);
  writer.refuseGitDirectories(
    paths.filter((path) => !withheldHere(path) && treeModeToMode(flat.get(path)!.mode) !== S_IFGITLINK)
      .map((path) => [path, treeModeToMode(flat.get(path)!.mode)] as const),
    [],
    "the checkout of the clone",
  );
  let written = 0;
  const withheld: string[] = [];
  // One handle per pack for the whole checkout, not one per object read (see holdingPackFiles).
  await holdingPackFiles(async () => {
    for (const path of paths) {
      const target = flat.get(path)!;
      if (withheldHere(path)) {
        // Withheld (pterm's own state, a git directory): recorded in the index, never written, and reported.
        withheld.push(path);
        index.set(emptyEntry(path, target.oid, treeModeToMode(target.mode)));
        continue;
      }
      index.set(await writeBlob(repo, writer, path, target), true);
      written++;
    }
  });
  return { written, withheld };
}
