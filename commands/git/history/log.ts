/** History: commits newest first (by committer date, as `git log`), optionally limited to a path. */

import { lookupPath } from "./revparse.ts";
import { type Commit, type Signature, splitMessage } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";

export interface LogCommit {
  readonly id: string;
  readonly short_id: string;
  readonly author: { name: string; email: string; time: string; timestamp: number };
  readonly committer: { name: string; email: string; time: string; timestamp: number };
  readonly subject: string;
  readonly body: string;
  readonly parents: string[];
}

/** ISO 8601 in the signature's own offset, like git's --date=iso-strict. */
export function isoTime(sig: Signature): string {
  const local = new Date((sig.timestamp + sig.tzOffset * 60) * 1000).toISOString().slice(0, 19);
  if (sig.tzOffset === 0) return `${local}+00:00`;
  const sign = sig.tzOffset < 0 ? "-" : "+";
  const abs = Math.abs(sig.tzOffset);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

export function describeCommit(id: string, commit: Commit): LogCommit {
  const { subject, body } = splitMessage(commit.message);
  const person = (s: Signature) => ({ name: s.name, email: s.email, time: isoTime(s), timestamp: s.timestamp });
  return {
    id,
    short_id: id.slice(0, 7),
    author: person(commit.author),
    committer: person(commit.committer),
    subject,
    body,
    parents: [...commit.parents],
  };
}

export async function readCommit(repo: Repo, oid: string): Promise<Commit> {
  return await repo.objects.readCommit(oid);
}

/** Every commit `start` reaches (itself included), for `a..b`. */
export async function ancestorsOf(repo: Repo, start: string): Promise<Set<string>> {
  const seen = new Set<string>([start]);
  const stack = [start];
  while (stack.length) {
    for (const parent of (await readCommit(repo, stack.pop()!)).parents) {
      if (!seen.has(parent)) {
        seen.add(parent);
        stack.push(parent);
      }
    }
  }
  return seen;
}

/**
 * Up to `max` commits reachable from `start`, newest committer date first. With `path`, only
 * commits that changed it, with git's default history simplification (a merge that kept the
 * path as one parent had it follows only that parent).
 */
export async function walkLog(
  repo: Repo,
  start: string,
  max: number,
  path: string | readonly string[] | null,
  /** Commits to leave out with their history (`a..b` hides what a reaches). */
  hide: ReadonlySet<string> = new Set(),
  more: {
    /** More commits to start from (`--all`: every branch and tag). */
    readonly starts?: readonly string[];
    /** Only commits this accepts are listed (`--author`, `--since`, `--grep`); the walk goes on through the rest. */
    readonly keep?: (commit: Commit, oid: string) => boolean | Promise<boolean>;
    /**
     * Filled with every commit the walk went through, in walk order, with the parents git's history
     * simplification leaves it (a commit that did not touch the paths keeps only the parent it
     * follows; a root without them none), and whether it was such a commit (git's TREESAME).
     */
    readonly walked?: { id: string; parents: string[]; treesame: boolean }[];
  } = {},
): Promise<LogCommit[]> {
  const keep = more.keep ?? (() => true);
  const paths = path === null ? null : typeof path === "string" ? [path] : path.includes("") ? null : [...path];
  const out: LogCommit[] = [];
  const queue: { oid: string; commit: Commit; order: number }[] = [];
  const seen = new Set<string>(hide);
  let order = 0;
  const push = async (oid: string) => {
    if (seen.has(oid)) return;
    seen.add(oid);
    queue.push({ oid, commit: await readCommit(repo, oid), order: order++ });
  };
  /** What the paths are in a commit's tree, as one key; null when none of them exists there. */
  const pathOid = async (commit: Commit): Promise<string | null> => {
    if (paths === null) return null;
    const keys: string[] = [];
    for (const p of paths) {
      const found = await lookupPath(repo, commit.tree, p);
      keys.push(found ? `${found.mode}:${found.oid}` : "-");
    }
    return keys.every((k) => k === "-") ? null : keys.join(",");
  };
  await push(start);
  for (const other of more.starts ?? []) await push(other);
  while (queue.length > 0 && out.length < max) {
    let best = 0;
    for (let i = 1; i < queue.length; i++) {
      const a = queue[i];
      const b = queue[best];
      if (
        a.commit.committer.timestamp > b.commit.committer.timestamp ||
        (a.commit.committer.timestamp === b.commit.committer.timestamp && a.order < b.order)
      ) best = i;
    }
    const { oid, commit } = queue.splice(best, 1)[0];
    const walked = (parents: string[], treesame: boolean) => more.walked?.push({ id: oid, parents, treesame });
    if (paths === null) {
      walked([...commit.parents], false);
      if (await keep(commit, oid)) out.push(describeCommit(oid, commit));
      for (const parent of commit.parents) await push(parent);
      continue;
    }
    const mine = await pathOid(commit);
    if (commit.parents.length === 0) {
      walked([], mine === null);
      if (mine !== null && (await keep(commit, oid))) out.push(describeCommit(oid, commit));
      continue;
    }
    let followed = false;
    for (const parent of commit.parents) {
      const theirs = await pathOid(await readCommit(repo, parent));
      if (theirs === mine) {
        // TREESAME to this parent: the commit did not touch the path; follow only this line.
        walked([parent], true);
        await push(parent);
        followed = true;
        break;
      }
    }
    if (followed) continue;
    walked([...commit.parents], false);
    if (await keep(commit, oid)) out.push(describeCommit(oid, commit));
    for (const parent of commit.parents) await push(parent);
  }
  return out;
}
