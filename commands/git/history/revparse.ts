/**
 * Revision names, the subset of gitrevisions(7) an agent uses: HEAD, @, branch / tag / remote
 * names, full and abbreviated object names, `<rev>~n`, `<rev>^n`, `<rev>^{commit|tree|}`,
 * `<ref>@{n}` (reflog, e.g. stash@{1}), `@{-n}` (the nth branch or commit checked out before), and `<rev>:<path>`.
 */

import { PtermError } from "../../../core/errors.ts";
import { isFullOid } from "../odb/bytes.ts";
import { type Commit, MODE_TREE, parseCommit, parseTag, parseTree } from "../odb/objects.ts";
import type { ObjectType } from "../odb/object.ts";
import { readHead, readRawRef, readReflog, resolveRefOid } from "../repo/refs.ts";
import { configuredUpstream, upstreamRef } from "../repo/upstream_config.ts";
import type { Repo } from "../repo/repo.ts";

function notFound(rev: string): PtermError {
  return new PtermError(
    "NotFound",
    `unknown revision \`${rev}\`: no branch, tag or commit has that name. List them with \`git branch\`, \`git tag\` or \`git log\`.`,
  );
}

/** The full ref a short name means (git's dwim order), or null. */
export function dwimRef(repo: Repo, name: string): string | null {
  const candidates = [
    name,
    `refs/${name}`,
    `refs/tags/${name}`,
    `refs/heads/${name}`,
    `refs/remotes/${name}`,
    `refs/remotes/${name}/HEAD`,
  ];
  for (const candidate of candidates) {
    if (candidate === name && !name.startsWith("refs/") && !/^[A-Z_]+$/.test(name)) continue;
    const raw = readRawRef(repo, candidate);
    if (raw && resolveRefOid(repo, candidate)) return candidate;
  }
  return null;
}

/**
 * What `@{-n}` names (git's interpret_nth_prior_checkout): the `X` of the nth last `checkout: moving from X to Y`
 * in HEAD's log — a branch name, or the full object name of a detached HEAD left — or null when the log has fewer.
 */
export function priorCheckout(repo: Repo, n: number): string | null {
  const prefix = "checkout: moving from ";
  const entries = readReflog(repo, "HEAD");
  let seen = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const message = entries[i].message;
    if (!message.startsWith(prefix)) continue;
    const to = message.indexOf(" to ", prefix.length);
    if (to < 0) continue;
    if (++seen === n) return message.slice(prefix.length, to);
  }
  return null;
}

/** The refusal for an `@{-n}` HEAD's log cannot answer. */
export function noPriorCheckout(word: string): PtermError {
  return new PtermError(
    "NotFound",
    `\`${word}\` names no earlier checkout: HEAD's log records fewer switches. \`git reflog\` lists them; name ` +
      "the branch instead (`git branch` lists branches).",
  );
}

/**
 * The ref a branch's upstream is read from, for git's `<branch>@{upstream}` / `@{u}` (any case; no
 * branch: the current one), e.g. `refs/remotes/origin/main`; null when `spelling` is not one.
 */
export function upstreamSpelled(repo: Repo, spelling: string): string | null {
  const match = /^(.*)@\{(upstream|u)\}$/i.exec(spelling);
  if (!match) return null;
  let branch = match[1].replace(/^refs\/heads\//, "");
  if (branch === "" || branch === "HEAD" || branch === "@") {
    const head = readHead(repo);
    if (!head.branch) throw new PtermError("NotFound", `\`${spelling}\`: HEAD does not point to a branch.`);
    branch = head.branch;
  }
  if (!resolveRefOid(repo, `refs/heads/${branch}`)) {
    throw new PtermError("NotFound", `\`${spelling}\`: there is no branch named '${branch}'.`);
  }
  const upstream = configuredUpstream(repo, branch);
  if (!upstream) {
    throw new PtermError(
      "NotFound",
      `\`${spelling}\`: no upstream configured for branch '${branch}' (\`git branch -u origin/${branch}\` sets one).`,
    );
  }
  const ref = upstreamRef(repo, upstream);
  if (!ref || !resolveRefOid(repo, ref)) {
    throw new PtermError(
      "NotFound",
      `\`${spelling}\`: the upstream of '${branch}' (${upstream.merge.replace(/^refs\/heads\//, "")} on ` +
        `${upstream.remote}) is gone: \`git branch --unset-upstream ${branch}\` forgets it.`,
    );
  }
  return ref;
}

async function resolveBase(repo: Repo, base: string, whole: string): Promise<string> {
  if (base === "@" || base === "") base = "HEAD";
  const upstream = upstreamSpelled(repo, base);
  if (upstream) return resolveRefOid(repo, upstream)!;
  const prior = /^@\{-(\d+)\}$/.exec(base);
  if (prior && Number(prior[1]) > 0) {
    const name = priorCheckout(repo, Number(prior[1]));
    if (name === null) throw noPriorCheckout(base);
    return await resolveRevision(repo, name);
  }
  const reflog = /^(.*)@\{(\d+)\}$/.exec(base);
  if (reflog) {
    const refName = reflog[1] === "" ? "HEAD" : reflog[1];
    const full = dwimRef(repo, refName) ?? (refName === "HEAD" ? "HEAD" : null);
    if (!full) throw notFound(whole);
    const entries = readReflog(repo, full);
    const n = Number(reflog[2]);
    if (n === 0 && entries.length === 0) {
      const oid = resolveRefOid(repo, full);
      if (oid) return oid;
    }
    const entry = entries[entries.length - 1 - n];
    if (!entry) {
      throw new PtermError("NotFound", `\`${whole}\`: ${refName} has only ${entries.length} entries in its log.`);
    }
    return entry.newOid;
  }
  const ref = dwimRef(repo, base);
  if (ref) return resolveRefOid(repo, ref)!;
  if (base === "HEAD") {
    throw new PtermError("NotFound", `HEAD does not point to a commit yet (no commits on this branch); commit first.`);
  }
  if (/^[0-9a-fA-F]{4,40}$/.test(base)) {
    const oid = await repo.objects.expand(base);
    if (oid) return oid;
  }
  throw notFound(whole);
}

/** Follows annotated tags until a non-tag object. */
export async function peel(repo: Repo, oid: string): Promise<{ oid: string; type: ObjectType }> {
  let current = oid;
  for (let depth = 0; depth < 20; depth++) {
    const object = await repo.objects.read(current);
    if (object.type !== "tag") return { oid: current, type: object.type };
    current = parseTag(object.content).object;
  }
  throw new PtermError("CorruptRepository", `tag chain from ${oid} is too long.`);
}

export async function peelTo(repo: Repo, oid: string, type: "commit" | "tree", rev: string): Promise<string> {
  const peeled = await peel(repo, oid);
  if (peeled.type === type) return peeled.oid;
  if (type === "tree" && peeled.type === "commit") {
    return parseCommit(await repo.objects.readTyped(peeled.oid, "commit")).tree;
  }
  throw new PtermError("InvalidArgs", `\`${rev}\` names a ${peeled.type}, not a ${type}.`);
}

/** Resolves a revision to an object name (not peeled, unless the expression asks for it). */
export async function resolveRevision(repo: Repo, rev: string): Promise<string> {
  if (isFullOid(rev) && (await repo.objects.has(rev))) return rev;
  const colon = rev.indexOf(":");
  if (colon >= 0) {
    const treeish = rev.slice(0, colon) || "HEAD";
    const path = rev.slice(colon + 1).replace(/^\/+|\/+$/g, "");
    const tree = await peelTo(repo, await resolveRevision(repo, treeish), "tree", treeish);
    if (path === "") return tree;
    const found = await lookupPath(repo, tree, path);
    if (!found) throw new PtermError("NotFound", `\`${path}\` does not exist in ${treeish}.`);
    return found.oid;
  }
  const shorthand = /\^([@!]|-\d*)$/.exec(rev);
  if (shorthand) {
    throw new PtermError(
      "InvalidArgs",
      `\`${rev}\`: git's ^${shorthand[1]} shorthand (a set of commits) is not carried here: name the parents ` +
        `one by one (\`${rev.slice(0, shorthand.index)}^1\`, \`${rev.slice(0, shorthand.index)}^2\`).`,
    );
  }
  const match = /^(.*?)((?:[~^]\d*|\^\{[a-z]*\})*)$/.exec(rev)!;
  let oid = await resolveBase(repo, match[1], rev);
  const ops = match[2].match(/~\d*|\^\{[a-z]*\}|\^\d*/g) ?? [];
  for (const op of ops) {
    if (op.startsWith("^{")) {
      const want = op.slice(2, -1);
      if (want === "") oid = (await peel(repo, oid)).oid;
      else if (want === "commit" || want === "tree") oid = await peelTo(repo, oid, want, rev);
      else if (want === "object") continue;
      else {throw new PtermError(
          "InvalidArgs",
          `\`${rev}\`: ^{${want}} is not supported (use ^{commit}, ^{tree} or ^{}).`,
        );}
      continue;
    }
    const n = op.length > 1 ? Number(op.slice(1)) : 1;
    if (op.startsWith("~")) {
      for (let i = 0; i < n; i++) {
        const commit = await readCommitAt(repo, oid, rev);
        if (commit.parents.length === 0) throw new PtermError("NotFound", `\`${rev}\` goes past the first commit.`);
        oid = commit.parents[0];
      }
    } else {
      const commitOid = await peelTo(repo, oid, "commit", rev);
      if (n === 0) {
        oid = commitOid;
        continue;
      }
      const commit = await repo.objects.readCommit(commitOid);
      const parent = commit.parents[n - 1];
      if (!parent) throw new PtermError("NotFound", `\`${rev}\`: that commit has no parent number ${n}.`);
      oid = parent;
    }
  }
  return oid;
}

async function readCommitAt(repo: Repo, oid: string, rev: string): Promise<Commit> {
  const commitOid = await peelTo(repo, oid, "commit", rev);
  return await repo.objects.readCommit(commitOid);
}

/** Resolves a revision that must name a commit (tags peeled). */
export async function resolveCommit(repo: Repo, rev: string): Promise<string> {
  return await peelTo(repo, await resolveRevision(repo, rev), "commit", rev);
}

/** The tree or blob at `path` inside `tree`. */
export async function lookupPath(
  repo: Repo,
  tree: string,
  path: string,
): Promise<{ oid: string; mode: string } | null> {
  let current = { oid: tree, mode: MODE_TREE };
  for (const part of path.split("/")) {
    if (current.mode !== MODE_TREE) return null;
    const entries = parseTree(await repo.objects.readTyped(current.oid, "tree"), current.oid);
    const next = entries.find((e) => e.name === part);
    if (!next) return null;
    current = next;
  }
  return current;
}
