/**
 * ls-remote, clone and fetch on top of the transport: which refs to want, where the pack goes,
 * and the refs, config, reflogs and FETCH_HEAD written as git writes them. A ref changes only
 * after the pack is complete, indexed and the history it must hold is checked present, so an
 * interrupted transfer leaves the repository as it was.
 */

import { PtermError } from "../../../core/errors.ts";
import { formatSignature, parseCommit, parseTag, parseTree, type Signature } from "../lib/objects.ts";
import { advanceHead, listRefs, readHead, resolveRefOid, updateRef } from "../lib/refs.ts";
import { initRepo, openRepo, type Repo } from "../lib/repo.ts";
import { switchTrees } from "../lib/checkout.ts";
import { loadIndex, withRepoLock } from "../lib/state.ts";
import { pathPolicy } from "../lib/worktree.ts";
import { connect, type Connection, type FetchOutcome, fetchPack, listRemoteRefs, type RemoteRef } from "./transport.ts";

export const ORIGIN = "origin";
const HEADS = "refs/heads/";
const TAGS = "refs/tags/";

export interface TransferStats {
  objects: number;
  bytes: number;
  elapsed_ms: number;
}

export async function lsRemote(connection: Connection): Promise<RemoteRef[]> {
  const remote = await connect(connection);
  return await listRemoteRefs(remote, ["HEAD", HEADS, TAGS]);
}

/**
 * Every commit, tree and blob reachable from `tips` must be in the repository (git's
 * check_connected), stopping at shallow boundaries; tags are followed to what they name.
 */
export async function checkConnected(repo: Repo, tips: readonly string[], shallow: ReadonlySet<string>): Promise<void> {
  const seen = new Set<string>();
  const stack = [...tips];
  const missing = (oid: string) =>
    new PtermError(
      "CorruptInput",
      `the remote's pack lacks ${oid}, which the fetched history needs; nothing was changed (the received pack ` +
        "stays in .git/objects/pack, harmless). Retry; if it persists the remote repository may be damaged.",
    );
  while (stack.length) {
    const oid = stack.pop()!;
    if (seen.has(oid)) continue;
    seen.add(oid);
    const object = await repo.objects.tryRead(oid);
    if (!object) throw missing(oid);
    if (object.type === "commit") {
      const commit = parseCommit(object.content);
      stack.push(commit.tree);
      if (!shallow.has(oid)) stack.push(...commit.parents);
    } else if (object.type === "tree") {
      for (const entry of parseTree(object.content, oid)) {
        if (entry.mode === "160000") continue; // a submodule's commit lives in another repository
        if (entry.mode === "40000") stack.push(entry.oid);
        else if (!seen.has(entry.oid)) {
          seen.add(entry.oid);
          if (!await repo.objects.has(entry.oid)) throw missing(entry.oid);
        }
      }
    } else if (object.type === "tag") {
      stack.push(parseTag(object.content).object);
    }
  }
}

/** packed-refs as git writes it after a clone: sorted, annotated tags followed by their peeled line. */
function packedRefsText(refs: readonly { name: string; oid: string; peeled?: string }[]): string {
  const sorted = [...refs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let text = "# pack-refs with: peeled fully-peeled sorted \n";
  for (const ref of sorted) {
    text += `${ref.oid} ${ref.name}\n`;
    if (ref.peeled) text += `^${ref.peeled}\n`;
  }
  return text;
}

/** A config section as git writes it; subsections quoted with `"` and `\` escaped. */
function configSection(section: string, subsection: string, values: readonly [string, string][]): string {
  const quoted = subsection.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  return `[${section} "${quoted}"]\n` + values.map(([k, v]) => `\t${k} = ${v}\n`).join("");
}

function appendLog(repo: Repo, name: string, oid: string, who: Signature, message: string): void {
  const path = `${repo.gitdir}/logs/${name}`;
  Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  Deno.writeTextFileSync(path, `${"0".repeat(40)} ${oid} ${formatSignature(who)}\t${message}\n`, { append: true });
}

export interface CloneOptions {
  readonly connection: Connection;
  /** The new repository's folder (absolute) and as the agent named it. */
  readonly dir: string;
  readonly rel: string;
  readonly branch?: string;
  readonly depth?: number;
  readonly maxBytes: number;
  readonly who: Signature;
}

export interface CloneOutcome {
  readonly branch: string | null;
  readonly head: string | null;
  readonly refs: number;
  readonly stats: TransferStats;
  readonly files: number;
  readonly shallow: boolean;
}

function isEmptyDir(path: string): boolean {
  for (const _ of Deno.readDirSync(path)) return false;
  return true;
}

export async function cloneInto(options: CloneOptions): Promise<CloneOutcome> {
  const started = Date.now();
  const { connection, dir } = options;
  let existed = false;
  try {
    const info = Deno.statSync(dir);
    existed = true;
    if (!info.isDirectory || !isEmptyDir(dir)) {
      throw new PtermError(
        "AlreadyExists",
        `--dir ${options.rel} already exists and is not an empty folder; clone into a new folder.`,
      );
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const remote = await connect(connection);
  const advertised = await listRemoteRefs(remote, ["HEAD", HEADS, TAGS]);
  const heads = advertised.filter((r) => r.name.startsWith(HEADS));
  const tags = advertised.filter((r) => r.name.startsWith(TAGS) && !r.name.endsWith("^{}"));
  const remoteHead = advertised.find((r) => r.name === "HEAD");
  let branch: string | null = null;
  if (options.branch !== undefined) {
    if (!heads.some((r) => r.name === HEADS + options.branch)) {
      throw new PtermError(
        "NotFound",
        `${connection.remote.url} has no branch ${options.branch}; its branches: ${
          heads.map((r) => r.name.slice(HEADS.length)).slice(0, 20).join(", ") || "(none)"
        }. Nothing was created.`,
      );
    }
    branch = options.branch;
  } else if (remoteHead?.symref?.startsWith(HEADS) && heads.some((r) => r.name === remoteHead.symref)) {
    branch = remoteHead.symref.slice(HEADS.length);
  } else if (heads.length > 0) {
    branch = heads.find((r) => r.oid === remoteHead?.oid)?.name.slice(HEADS.length) ?? null;
  }
  // --depth fetches one branch, as git's --depth implies --single-branch (tags are not followed).
  const fetchedHeads = options.depth ? heads.filter((r) => r.name === HEADS + branch) : heads;
  const fetchedTags = options.depth ? [] : tags;
  const wants = [...new Set([...fetchedHeads, ...fetchedTags].map((r) => r.oid))];

  try {
    const initialBranch = branch ?? remoteHead?.symref?.slice(HEADS.length) ?? "main";
    initRepo(dir, initialBranch);
    const repo = openRepo(dir, options.rel, connection.root);
    let outcome: FetchOutcome | null = null;
    if (wants.length > 0) {
      outcome = await fetchPack(remote, {
        wants,
        haves: [],
        depth: options.depth,
        objectsDir: `${repo.gitdir}/objects`,
        maxBytes: options.maxBytes,
      }, connection);
    }
    const shallow = new Set(outcome?.shallow ?? []);
    if (shallow.size > 0) Deno.writeTextFileSync(`${repo.gitdir}/shallow`, [...shallow].sort().join("\n") + "\n");
    await checkConnected(repo, wants, shallow);

    // The refs, as `git clone` leaves them: remote-tracking branches and tags packed, the branch loose.
    const message = `clone: from ${connection.remote.url}`;
    const packed = [
      ...fetchedHeads.map((r) => ({ name: `refs/remotes/${ORIGIN}/${r.name.slice(HEADS.length)}`, oid: r.oid })),
      ...fetchedTags.map((r) => ({ name: r.name, oid: r.oid, peeled: r.peeled })),
    ];
    Deno.writeTextFileSync(`${repo.gitdir}/packed-refs`, packedRefsText(packed));
    const refspec = options.depth && branch
      ? `+refs/heads/${branch}:refs/remotes/${ORIGIN}/${branch}`
      : `+refs/heads/*:refs/remotes/${ORIGIN}/*`;
    let config = configSection("remote", ORIGIN, [["url", connection.remote.url], ["fetch", refspec]]);
    if (branch) config += configSection("branch", branch, [["remote", ORIGIN], ["merge", HEADS + branch]]);
    Deno.writeTextFileSync(`${repo.gitdir}/config`, config, { append: true });
    let head: string | null = null;
    let files = 0;
    if (branch) {
      head = heads.find((r) => r.name === HEADS + branch)!.oid;
      const tracking = `refs/remotes/${ORIGIN}/HEAD`;
      Deno.mkdirSync(`${repo.gitdir}/refs/remotes/${ORIGIN}`, { recursive: true });
      Deno.writeTextFileSync(`${repo.gitdir}/${tracking}`, `ref: refs/remotes/${ORIGIN}/${branch}\n`);
      appendLog(repo, tracking, head, options.who, message);
      await updateRef(repo, HEADS + branch, head, { expected: null, message, who: options.who });
      // initRepo pointed HEAD at the branch already; git's clone logs HEAD once, from nothing.
      appendLog(repo, "HEAD", head, options.who, message);
      const commit = parseCommit((await repo.objects.read(head)).content);
      const opened = openRepo(dir, options.rel, connection.root);
      files = await withRepoLock(opened, async () => {
        const result = await switchTrees(opened, loadIndex(opened), pathPolicy(options.rel), null, commit.tree, "safe");
        return result.changed.length;
      });
    }
    return {
      branch,
      head,
      refs: packed.length,
      stats: {
        objects: outcome?.pack?.objects ?? 0,
        bytes: outcome?.pack?.bytes ?? 0,
        elapsed_ms: Date.now() - started,
      },
      files,
      shallow: shallow.size > 0,
    };
  } catch (error) {
    // Nothing half-made stays: the folder is removed (or emptied, if it existed empty before).
    if (existed) {
      for (const entry of Deno.readDirSync(dir)) Deno.removeSync(`${dir}/${entry.name}`, { recursive: true });
    } else {
      Deno.removeSync(dir, { recursive: true });
    }
    throw error;
  }
}

export { advanceHead, listRefs, readHead, resolveRefOid };
