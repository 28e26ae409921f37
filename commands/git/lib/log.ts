/** History: commits newest first (by committer date, as `git log`), optionally limited to a path. */

import { lookupPath } from "./revparse.ts";
import { type Commit, type Signature, splitMessage } from "./objects.ts";
import type { Repo } from "./repo.ts";

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

/**
 * Up to `max` commits reachable from `start`, newest committer date first. With `path`, only
 * commits that changed it, with git's default history simplification (a merge that kept the
 * path as one parent had it follows only that parent).
 */
export async function walkLog(repo: Repo, start: string, max: number, path: string | null): Promise<LogCommit[]> {
  const out: LogCommit[] = [];
  const queue: { oid: string; commit: Commit; order: number }[] = [];
  const seen = new Set<string>();
  let order = 0;
  const push = async (oid: string) => {
    if (seen.has(oid)) return;
    seen.add(oid);
    queue.push({ oid, commit: await readCommit(repo, oid), order: order++ });
  };
  const pathOid = async (commit: Commit): Promise<string | null> => {
    if (path === null) return null;
    const found = await lookupPath(repo, commit.tree, path);
    return found ? `${found.mode}:${found.oid}` : null;
  };
  await push(start);
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
    if (path === null) {
      out.push(describeCommit(oid, commit));
      for (const parent of commit.parents) await push(parent);
      continue;
    }
    const mine = await pathOid(commit);
    if (commit.parents.length === 0) {
      if (mine !== null) out.push(describeCommit(oid, commit));
      continue;
    }
    let followed = false;
    for (const parent of commit.parents) {
      const theirs = await pathOid(await readCommit(repo, parent));
      if (theirs === mine) {
        // TREESAME to this parent: the commit did not touch the path; follow only this line.
        await push(parent);
        followed = true;
        break;
      }
    }
    if (followed) continue;
    out.push(describeCommit(oid, commit));
    for (const parent of commit.parents) await push(parent);
  }
  return out;
}
