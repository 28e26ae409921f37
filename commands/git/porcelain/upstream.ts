/**
 * Which upstream a new branch gets, as git's branch.c decides it: `branch.autoSetupMerge` (true,
 * false, always, inherit, simple), `--track` / `--no-track`, and the remote whose fetch refspec
 * maps some branch of it onto the start point (`refs/remotes/origin/x` ← origin's `refs/heads/x`).
 * Also git's "guess" for `git switch x` / `git checkout x` when only `origin/x` exists. Pure reads:
 * the handler writes `branch.<name>.remote` / `.merge`.
 */

import { PtermError } from "../../../core/errors.ts";
import { dwimRef } from "../history/revparse.ts";
import { readHead, readRawRef, resolveRefOid } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import {
  configuredUpstream,
  fetchRefspecs,
  mapThrough,
  type Upstream,
  upstreamLabel,
  upstreamRef,
} from "../repo/upstream_config.ts";

/** How `--track` / `--no-track` were given; `default` follows `branch.autoSetupMerge`. */
export type TrackChoice = "default" | "track" | "no-track";

/** The configured remotes (every `remote.<name>.url` or `.fetch`), in config order. */
function remoteNames(repo: Repo): string[] {
  const names: string[] = [];
  for (const key of repo.config.keys()) {
    const match = /^remote\.(.+)\.(url|fetch)$/.exec(key);
    if (match && !names.includes(match[1])) names.push(match[1]);
  }
  return names;
}

/** The remotes and their branches that fetch into the remote-tracking ref `tracking` (git's remote_find_tracking). */
function remotesFetchingInto(repo: Repo, tracking: string): Upstream[] {
  const found: Upstream[] = [];
  for (const remote of remoteNames(repo)) {
    for (const [src, dst] of fetchRefspecs(repo, remote)) {
      const merge = mapThrough(tracking, dst, src);
      if (merge) {
        found.push({ remote, merge });
        break;
      }
    }
  }
  return found;
}

/**
 * The upstream a branch `name` created from `start` (as the user spelled it) gets, or null for none.
 * Throws when tracking was asked for explicitly (`--track`) and cannot be set up, as git does.
 */
export function upstreamForNewBranch(repo: Repo, name: string, start: string, choice: TrackChoice): Upstream | null {
  if (choice === "no-track") return null;
  const setting = (repo.config.get("branch.autoSetupMerge") ?? "true").toLowerCase();
  const mode = choice === "track"
    ? "always"
    : ["false", "no", "off", "0"].includes(setting)
    ? "false"
    : ["always", "inherit", "simple"].includes(setting)
    ? setting
    : "true";
  if (mode === "false") return null;
  // HEAD (the default start) stands for the branch it names, as git's tracking reads it; detached, for none.
  const head = readHead(repo).ref;
  const full = start === "HEAD" || start === "@"
    ? (head?.startsWith("refs/heads/") ? head : null)
    : dwimRef(repo, start);
  const notABranch = () => {
    if (choice !== "track") return null;
    throw new PtermError(
      "InvalidArgs",
      `cannot set up tracking: the start point \`${start}\` is not a branch (give a branch such as origin/main, ` +
        "or leave out --track).",
    );
  };
  if (mode === "inherit") {
    if (!full?.startsWith("refs/heads/")) return notABranch();
    return configuredUpstream(repo, full.slice("refs/heads/".length));
  }
  if (full?.startsWith("refs/remotes/")) {
    const candidates = remotesFetchingInto(repo, full);
    if (candidates.length > 1) {
      throw new PtermError(
        "InvalidArgs",
        `cannot set up tracking: ${full.slice("refs/remotes/".length)} is fetched by several remotes (` +
          `${
            candidates.map((c) => c.remote).join(", ")
          }); fix their fetch refspecs in .git/config, or pass --no-track.`,
      );
    }
    if (candidates.length === 0) return notABranch();
    const upstream = candidates[0];
    if (mode === "simple" && upstream.merge !== `refs/heads/${name}`) return null;
    return upstream;
  }
  if (full?.startsWith("refs/heads/") && mode === "always") return { remote: ".", merge: full };
  return mode === "always" ? notABranch() : null;
}

/**
 * git's guess for `git switch <name>` / `git checkout <name>` when no local branch has that name:
 * the one remote-tracking branch `<remote>/<name>` (through each remote's fetch refspecs), or the
 * one on `checkout.defaultRemote` when several remotes have it; null when none does or
 * `checkout.guess` is false. Several without a default remote is an error naming them.
 */
export function guessRemoteBranch(repo: Repo, name: string): string | null {
  if (!repo.config.getBool("checkout.guess", true)) return null;
  if (readRawRef(repo, `refs/heads/${name}`)) return null;
  const found: { remote: string; ref: string }[] = [];
  for (const remote of remoteNames(repo)) {
    for (const [src, dst] of fetchRefspecs(repo, remote)) {
      const ref = mapThrough(`refs/heads/${name}`, src, dst);
      if (ref && resolveRefOid(repo, ref)) {
        found.push({ remote, ref });
        break;
      }
    }
  }
  if (found.length <= 1) return found[0]?.ref ?? null;
  const preferred = repo.config.get("checkout.defaultRemote");
  const chosen = found.find((f) => f.remote === preferred);
  if (chosen) return chosen.ref;
  throw new PtermError(
    "InvalidArgs",
    `\`${name}\` matches remote-tracking branches on several remotes (` +
      `${found.map((f) => f.ref.slice("refs/remotes/".length)).join(", ")}): name one, e.g. ` +
      `\`git switch --create ${name} ${found[0].ref.slice("refs/remotes/".length)}\`.`,
  );
}

/**
 * What `git branch --set-upstream-to <spelling>` sets: a remote-tracking branch's remote and branch
 * (through the remotes' fetch refspecs) or a local branch (remote "."), else an error.
 */
export function upstreamNamed(repo: Repo, spelling: string): Upstream {
  const full = dwimRef(repo, spelling);
  if (full?.startsWith("refs/heads/")) return { remote: ".", merge: full };
  if (full?.startsWith("refs/remotes/")) {
    const candidates = remotesFetchingInto(repo, full);
    if (candidates.length === 1) return candidates[0];
    if (candidates.length > 1) {
      throw new PtermError(
        "InvalidArgs",
        `${spelling} is fetched by several remotes (${candidates.map((c) => c.remote).join(", ")}); fix their ` +
          "fetch refspecs in .git/config first.",
      );
    }
  }
  throw new PtermError(
    "NotFound",
    `the upstream \`${spelling}\` is not a branch: give a remote-tracking branch (\`git branch --all\` lists them; ` +
      "`git fetch --confirm` brings new ones) or a local branch.",
  );
}

export interface Tracking {
  /** As git names it: `origin/main` (or a local branch's name). */
  readonly name: string;
  /**
   * Commits on the branch and not on its upstream, and the other way round; null when they were not
   * counted (git's `status.aheadBehind=false`) and the two differ.
   */
  readonly ahead: number | null;
  readonly behind: number | null;
  /** The upstream is configured but its ref is missing (a branch deleted on the remote and pruned). */
  readonly gone: boolean;
}

/**
 * Where `branch` stands against its upstream, as git status reports it (`## main...origin/main
 * [ahead 1, behind 2]`); null when it has none. Counted as git's stat_tracking_info does: commits
 * reachable from one tip and not the other, walking newest first and stopping once only
 * commits reachable from both are left; with `count` false (status.aheadBehind=false) not at all.
 */
export async function trackingInfo(repo: Repo, branch: string, count = true): Promise<Tracking | null> {
  const upstream = configuredUpstream(repo, branch);
  if (!upstream) return null;
  const name = upstreamLabel(upstream);
  const ref = upstreamRef(repo, upstream);
  const theirs = ref ? resolveRefOid(repo, ref) : null;
  const ours = resolveRefOid(repo, `refs/heads/${branch}`);
  if (!theirs) return { name, ahead: 0, behind: 0, gone: true };
  if (!ours || ours === theirs) return { name, ahead: 0, behind: 0, gone: false };
  // status.aheadBehind=false: git only says that they differ, without walking the history.
  if (!count) return { name, ahead: null, behind: null, gone: false };
  const OURS = 1, THEIRS = 2, BOTH = 3;
  const flags = new Map<string, number>();
  const dates = new Map<string, number>();
  const parentsOf = new Map<string, readonly string[]>();
  const queue: string[] = [];
  // A flag reaching a commit already walked goes on down to its parents at once (git's
  // mark_parents_uninteresting), so commits made in the same second cannot keep a stale side.
  const mark = async (start: string, flag: number) => {
    const stack: [string, number][] = [[start, flag]];
    while (stack.length) {
      const [oid, add] = stack.pop()!;
      const had = flags.get(oid) ?? 0;
      if ((had | add) === had) continue;
      flags.set(oid, had | add);
      if (!dates.has(oid)) {
        dates.set(oid, (await repo.objects.readCommit(oid)).committer.timestamp);
        queue.push(oid);
      } else if (parentsOf.has(oid)) {
        for (const parent of parentsOf.get(oid)!) stack.push([parent, add]);
      } else if (!queue.includes(oid)) queue.push(oid);
    }
  };
  await mark(ours, OURS);
  await mark(theirs, THEIRS);
  while (queue.length) {
    if (queue.every((oid) => flags.get(oid) === BOTH)) {
      // Only commits reachable from both are left to walk. One of them can still reach a walked
      // commit marked from one side only if that commit is not newer than it (a parent is never
      // newer than its child, clock skew aside): stop when none is.
      const newest = Math.max(...queue.map((oid) => dates.get(oid)!));
      const open = [...flags].some(([oid, flag]) => flag !== BOTH && parentsOf.has(oid) && dates.get(oid)! <= newest);
      if (!open) break;
    }
    // Newest first, as git's priority queue (ties in the order found).
    queue.sort((a, b) => dates.get(b)! - dates.get(a)!);
    const oid = queue.shift()!;
    const parents = (await repo.objects.readCommit(oid)).parents;
    parentsOf.set(oid, parents);
    for (const parent of parents) await mark(parent, flags.get(oid)!);
  }
  let ahead = 0, behind = 0;
  for (const flag of flags.values()) {
    if (flag === OURS) ahead++;
    else if (flag === THEIRS) behind++;
  }
  return { name, ahead, behind, gone: false };
}
