/**
 * A branch's upstream as the repository's config records it (`branch.<name>.remote` / `.merge`) and
 * the remote-tracking ref it maps to through the remote's fetch refspecs: pure reads of the config,
 * below revision parsing (`@{upstream}`) and the porcelain that sets or reports upstreams.
 */

import type { Repo } from "./repo.ts";

export interface Upstream {
  /** The remote's name, or "." for a local branch (git's `branch.<name>.remote = .`). */
  readonly remote: string;
  /** The branch on that remote, e.g. `refs/heads/main`. */
  readonly merge: string;
}

/** `origin/main` for an upstream on `origin`, `main` for a local one (as git names it in its messages). */
export function upstreamLabel(upstream: Upstream): string {
  const branch = upstream.merge.replace(/^refs\/heads\//, "");
  return upstream.remote === "." ? branch : `${upstream.remote}/${branch}`;
}

/** Maps `ref` through one refspec side to the other: `from` → `to` (one `*` on each side, or none). */
export function mapThrough(ref: string, from: string, to: string): string | null {
  const star = from.indexOf("*");
  if (star < 0) return ref === from ? to : null;
  const head = from.slice(0, star);
  const tail = from.slice(star + 1);
  if (!ref.startsWith(head) || !ref.endsWith(tail) || ref.length < head.length + tail.length) return null;
  const middle = ref.slice(head.length, ref.length - tail.length);
  return to.includes("*") ? to.replace("*", middle) : null;
}

/** The remote's fetch refspecs as [src, dst] pairs (negative refspecs and ones without a destination left out). */
export function fetchRefspecs(repo: Repo, remote: string): [string, string][] {
  const specs = repo.config.values.get(`remote.${remote}.fetch`) ?? [];
  const pairs: [string, string][] = [];
  for (const spec of specs) {
    const plain = spec.startsWith("+") ? spec.slice(1) : spec;
    if (plain.startsWith("^")) continue;
    const colon = plain.indexOf(":");
    if (colon < 0) continue;
    pairs.push([plain.slice(0, colon), plain.slice(colon + 1)]);
  }
  return pairs;
}

/** The upstream `branch.<name>.remote` / `.merge` name, or null when either is missing. */
export function configuredUpstream(repo: Repo, name: string): Upstream | null {
  const remote = repo.config.get(`branch.${name}.remote`);
  const merge = repo.config.get(`branch.${name}.merge`);
  return remote && merge ? { remote, merge } : null;
}

/** The local ref a branch's upstream is read from: `refs/remotes/<remote>/…` through the fetch refspecs, or `refs/heads/…` for ".". */
export function upstreamRef(repo: Repo, upstream: Upstream): string | null {
  if (upstream.remote === ".") return upstream.merge;
  for (const [src, dst] of fetchRefspecs(repo, upstream.remote)) {
    const mapped = mapThrough(upstream.merge, src, dst);
    if (mapped) return mapped;
  }
  return null;
}
