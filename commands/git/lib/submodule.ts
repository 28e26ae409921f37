/**
 * Submodules as the superproject sees them: a gitlink (mode 160000) records a commit of another
 * repository checked out at that path. What matters here is which commit that checkout is at
 * now, read from its own HEAD — never followed outside the superproject's folder.
 */

import { isFullOid } from "./bytes.ts";
import type { Repo } from "./repo.ts";

function readText(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

/** The submodule's git folder: `<path>/.git` itself, or where its `gitdir:` file points (inside the superproject). */
function submoduleGitdir(repo: Repo, path: string): string | null {
  const dotGit = `${repo.dir}/${path}/.git`;
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(dotGit);
  } catch {
    return null;
  }
  if (info.isDirectory) return dotGit;
  if (!info.isFile) return null;
  const pointer = /^gitdir: (.+)$/m.exec(readText(dotGit) ?? "")?.[1].trim();
  if (!pointer) return null;
  const parts: string[] = [];
  for (const part of (pointer.startsWith("/") ? pointer : `${repo.dir}/${path}/${pointer}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  const resolved = "/" + parts.join("/");
  // Only a git folder inside the superproject (usually .git/modules/<name>) is read.
  return resolved.startsWith(repo.dir + "/") ? resolved : null;
}

/** The commit a submodule's checkout is at, or null when it is not checked out (or cannot be read). */
export function submoduleHead(repo: Repo, path: string): string | null {
  const gitdir = submoduleGitdir(repo, path);
  if (!gitdir) return null;
  const head = readText(`${gitdir}/HEAD`)?.trim();
  if (!head) return null;
  if (isFullOid(head)) return head;
  const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
  if (!ref || ref.includes("..")) return null;
  const loose = readText(`${gitdir}/${ref}`)?.trim();
  if (loose && isFullOid(loose)) return loose;
  for (const line of (readText(`${gitdir}/packed-refs`) ?? "").split("\n")) {
    const [oid, name] = line.split(" ");
    if (name === ref && isFullOid(oid)) return oid;
  }
  return null;
}

/** What a diff shows for a gitlink: git's `Subproject commit <id>` line. */
export function subprojectText(oid: string): Uint8Array {
  return new TextEncoder().encode(`Subproject commit ${oid}\n`);
}
