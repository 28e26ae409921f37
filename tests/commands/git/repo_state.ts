/**
 * A repository's state as real git sees it, in a form two makers of the same history share:
 * pterm and real git write the same trees, blobs, refs and index, but their new commits carry
 * different dates (and so ids). Each commit is named here by its content — tree, message and
 * (recursively) its parents' names — so "the same commit made by either" compares equal, while
 * a commit rewritten in place (an amend where git did nothing) does not.
 */

import { createHash } from "node:crypto";
import { join } from "node:path";
import { git, gitRaw } from "./oracle.ts";

/** Every work-tree file (outside .git and pterm's state) with its mode and content hash, one per line. */
export async function worktreeFingerprint(dir: string): Promise<string> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    const entries = [];
    for await (const entry of Deno.readDir(rel ? join(dir, rel) : dir)) entries.push(entry);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name === ".git") continue;
      if (!rel && ["audit", "artifacts", "sessions", "cache", "pterm.json"].includes(entry.name)) continue;
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(path);
      else {
        const info = await Deno.lstat(join(dir, path));
        // Conflict markers may name a commit by its short id, which differs between two makers.
        const raw = await Deno.readFile(join(dir, path));
        const text = new TextDecoder().decode(raw);
        const bytes = text.includes(">>>>>>> ")
          ? new TextEncoder().encode(text.replace(/^(<<<<<<<|>>>>>>>) [0-9a-f]{7,40}\b/gm, "$1 <id>"))
          : raw;
        const mode = info.mode !== null && (info.mode & 0o111) !== 0 ? "x" : "-";
        out.push(`${path} ${mode} ${createHash("sha1").update(bytes).digest("hex")}`);
      }
    }
  };
  await walk("");
  return out.join("\n");
}

/**
 * Names every commit reachable from a ref (stash included) by its content, recursively; a commit in
 * `known` (one both sides started with) keeps its id, so rewriting it shows.
 */
async function commitNames(dir: string, known: ReadonlySet<string>): Promise<(oid: string) => string> {
  const log = (await gitRaw(dir, ["log", "--all", "--reflog", "--format=%H%x01%T%x01%P%x01%B%x02"])).stdout;
  const commits = new Map<string, { tree: string; parents: string[]; message: string }>();
  for (const record of log.split("\x02")) {
    const [oid, tree, parents, message] = record.replace(/^\n/, "").split("\x01");
    if (!oid) continue;
    // A stash message names HEAD by its short id, which differs between two makers of the same history.
    commits.set(oid, { tree, parents: parents ? parents.split(" ") : [], message: withoutShortIds(message) });
  }
  const memo = new Map<string, string>();
  const name = (oid: string): string => {
    if (known.has(oid)) return oid;
    const named = memo.get(oid);
    if (named) return named;
    const commit = commits.get(oid);
    if (!commit) return `?${oid}`;
    // A message that names another commit in full (`This reverts commit <id>.`, `cherry picked from
    // commit <id>`) names it by its content too.
    const message = commit.message.replace(/\b[0-9a-f]{40}\b/g, (id) => id !== oid && commits.has(id) ? name(id) : id);
    const hash = createHash("sha1").update(`${commit.tree}\n${commit.parents.map(name).join(" ")}\n${message}`)
      .digest("hex").slice(0, 16);
    memo.set(oid, hash);
    return hash;
  };
  return name;
}

function withoutShortIds(text: string): string {
  return text.replace(/^((?:WIP on|On|index on|untracked files on) [^:]*: )[0-9a-f]{7,40} /gm, "$1<id> ");
}

/** The state of the repository whose work tree is `dir`; commits in `known` are named by their ids. */
export async function repoState(dir: string, known: ReadonlySet<string> = new Set()): Promise<string> {
  const name = await commitNames(dir, known);
  const refs = (await git(dir, "for-each-ref", "--format=%(refname) %(objecttype) %(objectname) %(*objectname)"))
    .split("\n").filter(Boolean).map((line) => {
      const [ref, type, oid, peeled] = line.split(" ");
      return type === "tag" ? `${ref} tag -> ${name(peeled)}` : `${ref} ${type} ${type === "commit" ? name(oid) : oid}`;
    });
  const symbolic = (await gitRaw(dir, ["symbolic-ref", "-q", "HEAD"])).stdout.trim();
  const head = symbolic || `detached ${name((await gitRaw(dir, ["rev-parse", "HEAD"])).stdout.trim())}`;
  const index = (await gitRaw(dir, ["ls-files", "-s"])).stdout;
  const stash = (await gitRaw(dir, ["log", "-g", "--format=%H %gs", "refs/stash"])).stdout.split("\n").filter(Boolean)
    .map((line) => `${name(line.slice(0, 40))} ${withoutShortIds(line.slice(41))}`);
  const merging = (await Deno.stat(join(dir, ".git/MERGE_HEAD")).catch(() => null)) ? "merging" : "";
  return [head, ...refs, "-- index", index, "-- stash", ...stash, merging, "-- files", await worktreeFingerprint(dir)]
    .join("\n");
}
