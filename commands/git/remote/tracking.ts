/** Remote-tracking branches (refs/remotes/<remote>/<branch>), as `git branch --all` lists them. */

import { listRefs, readRawRef } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";

export interface RemoteBranch {
  /** `origin/main` */
  readonly name: string;
  readonly commit: string;
  /** For a symbolic one (origin/HEAD): the branch it names, as `origin/main`. */
  readonly points_to?: string;
}

export function listRemoteBranches(repo: Repo): RemoteBranch[] {
  const out: RemoteBranch[] = [];
  for (const [ref, commit] of listRefs(repo, "refs/remotes")) {
    const raw = readRawRef(repo, ref);
    const name = ref.slice("refs/remotes/".length);
    if (raw?.kind === "symbolic" && raw.target.startsWith("refs/remotes/")) {
      out.push({ name, commit, points_to: raw.target.slice("refs/remotes/".length) });
    } else out.push({ name, commit });
  }
  return out;
}
