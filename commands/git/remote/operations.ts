/**
 * ls-remote, clone and fetch on top of the transport: which refs to want, where the pack goes,
 * and the refs, config, reflogs and FETCH_HEAD written as git writes them. A ref changes only
 * after the pack is complete, indexed and the history it must hold is checked present, so an
 * interrupted transfer leaves the repository as it was.
 */

import { PtermError } from "../../../core/errors.ts";
import { formatSignature, parseCommit, parseTag, type Signature } from "../odb/objects.ts";
import type { PackLinks } from "./index_pack.ts";
import { deleteRef, isValidRefName, listRefs, readHead, readRawRef, resolveRefOid, updateRef } from "../repo/refs.ts";
import { initRepo, openRepo, reopenRepo, type Repo } from "../repo/repo.ts";
import { withRepoLock } from "../repo/state.ts";
import { pathPolicy } from "../worktree/worktree.ts";
import {
  connect,
  type Connection,
  type FetchOutcome,
  fetchPack,
  listRemoteRefs,
  type RemoteRef,
  sendPack,
  ZERO_OID,
} from "./transport.ts";
import { setConfigValues } from "../repo/config_edit.ts";
import { CLONE_LOCK, removeDeadCloneFolders, removeDeadPackTemps } from "./leftovers.ts";
import { createHeld } from "../odb/held_file.ts";

export const ORIGIN = "origin";

/**
 * merge.ts (history walks) loads with diff3, renames and the rest of merging: only a ref that
 * moved needs it, so a fetch with nothing new never loads it (nor push's pack writer).
 */
async function isAncestor(repo: Repo, maybeAncestor: string, of: string): Promise<boolean> {
  const merge = await import("../merge/merge.ts");
  return await merge.isAncestor(repo, maybeAncestor, of);
}
const HEADS = "refs/heads/";
const TAGS = "refs/tags/";

export interface TransferStats {
  objects: number;
  bytes: number;
  elapsed_ms: number;
}

export async function lsRemote(connection: Connection): Promise<RemoteRef[]> {
  using remote = await connect(connection);
  return await listRemoteRefs(remote, ["HEAD", HEADS, TAGS]);
}

/**
 * git's check_connected, from what index_pack saw: every object the new pack names — a commit's
 * tree and parents (not a shallow boundary's), a tree's entries, a tag's target — and every
 * wanted tip is in the pack or already in the repository (whose own objects are taken as complete,
 * as git does). Nothing is read back from the pack. `links` are used up by the check (released).
 */
export async function checkConnected(
  repo: Repo,
  tips: readonly string[],
  shallow: ReadonlySet<string>,
  links: PackLinks | null,
): Promise<void> {
  const missing = (oid: string) =>
    new PtermError(
      "CorruptInput",
      `the remote's pack lacks ${oid}, which the fetched history needs; nothing was changed (the received pack ` +
        "stays in .git/objects/pack, harmless). Retry; if it persists the remote repository may be damaged.",
    );
  const checked = new Set<string>();
  const require = async (oid: string) => {
    if (links?.has(oid) || checked.has(oid)) return;
    if (!(await repo.objects.has(oid))) throw missing(oid);
    checked.add(oid);
  };
  try {
    for (const tip of tips) await require(tip);
    if (!links) return;
    for (const oid of links.named()) await require(oid);
    for (const [commit, parents] of links.parents) {
      if (shallow.has(commit)) continue;
      for (const parent of parents) await require(parent);
    }
  } finally {
    // The links serve this check alone: their memory goes back before a clone's checkout.
    links?.release();
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
  const path = `${repo.commondir}/logs/${name}`;
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
  /** Only the checked-out branch (implied by `depth`, as in git); tags then follow into its history only. */
  readonly singleBranch?: boolean;
  readonly maxBytes: number;
  readonly who: Signature;
  /** A dead clone's folder that has no lock file is removed once untouched this long (leftovers.ts). */
  readonly staleMs: number;
}

export interface CloneOutcome {
  readonly branch: string | null;
  readonly head: string | null;
  readonly refs: number;
  readonly stats: TransferStats;
  readonly files: number;
  /** Tracked paths not written (secrets, pterm's own state): in the index, absent from the work tree. */
  readonly withheld: string[];
  readonly shallow: boolean;
}

function isEmptyDir(path: string): boolean {
  for (const _ of Deno.readDirSync(path)) return false;
  return true;
}

export async function cloneInto(options: CloneOptions): Promise<CloneOutcome> {
  const started = Date.now();
  const { connection, dir } = options;
  try {
    const info = Deno.statSync(dir);
    if (!info.isDirectory || !isEmptyDir(dir)) {
      throw new PtermError(
        "AlreadyExists",
        `--dir ${options.rel} already exists and is not an empty folder; clone into a new folder.`,
      );
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  using remote = await connect(connection);
  const advertised = await listRemoteRefs(remote, ["HEAD", HEADS, TAGS], { unborn: true });
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
  // --single-branch (implied by --depth, as in git) fetches one branch; tags then follow only into
  // the history that came (include-tag, then the ones whose object is here), as git's clone does.
  const single = options.singleBranch === true || options.depth !== undefined;
  const fetchedHeads = single ? heads.filter((r) => r.name === HEADS + branch) : heads;
  const wants = [...new Set([...fetchedHeads, ...(single ? [] : tags)].map((r) => r.oid))];

  // The clone is built beside its folder under a hidden name and renamed into place at the end: an
  // interrupted clone (a failure, a timeout, even kill -9) never leaves a half-made repository at --dir.
  const slash = dir.lastIndexOf("/");
  removeDeadCloneFolders(dir.slice(0, slash), options.staleMs);
  const building = `${dir.slice(0, slash)}/.${dir.slice(slash + 1)}.pterm-clone-${crypto.randomUUID().slice(0, 8)}`;
  // Held while the clone works, so a later clone knows this folder for a dead one's if pterm dies.
  let held: Deno.FsFile | null = null;
  try {
    const initialBranch = branch ?? remoteHead?.symref?.slice(HEADS.length) ?? "main";
    initRepo(building, initialBranch);
    held = createHeld(`${building}/.git/${CLONE_LOCK}`);
    const repo = openRepo(building, options.rel, connection.root);
    let outcome: FetchOutcome | null = null;
    if (wants.length > 0) {
      outcome = await fetchPack(remote, {
        wants,
        haves: [],
        depth: options.depth,
        includeTags: single,
        objectsDir: `${repo.gitdir}/objects`,
        maxBytes: options.maxBytes,
      }, connection);
    }
    const shallow = new Set(outcome?.shallow ?? []);
    if (shallow.size > 0) Deno.writeTextFileSync(`${repo.gitdir}/shallow`, [...shallow].sort().join("\n") + "\n");
    await checkConnected(repo, wants, shallow, outcome?.pack?.links ?? null);
    // The pack's links are not needed past the check; the checkout below should not hold them.
    const stats = { objects: outcome?.pack?.objects ?? 0, bytes: outcome?.pack?.bytes ?? 0 };
    outcome = null;
    const fetchedTags: RemoteRef[] = [];
    for (const tag of tags) {
      if (!single || (await repo.objects.has(tag.oid))) fetchedTags.push(tag);
    }

    // The refs, as `git clone` leaves them: remote-tracking branches and tags packed, the branch loose.
    const message = `clone: from ${connection.remote.url}`;
    const packed = [
      ...fetchedHeads.map((r) => ({ name: `refs/remotes/${ORIGIN}/${r.name.slice(HEADS.length)}`, oid: r.oid })),
      ...fetchedTags.map((r) => ({ name: r.name, oid: r.oid, peeled: r.peeled })),
    ];
    if (packed.length > 0) Deno.writeTextFileSync(`${repo.gitdir}/packed-refs`, packedRefsText(packed));
    const refspec = single && branch
      ? `+refs/heads/${branch}:refs/remotes/${ORIGIN}/${branch}`
      : `+refs/heads/*:refs/remotes/${ORIGIN}/*`;
    let config = configSection("remote", ORIGIN, [["url", connection.remote.url], ["fetch", refspec]]);
    // An empty remote: the branch its HEAD names is set up to track it, as git's clone does.
    const tracked = branch ??
      (remoteHead?.unborn && remoteHead.symref?.startsWith(HEADS) ? remoteHead.symref.slice(HEADS.length) : null);
    if (tracked) config += configSection("branch", tracked, [["remote", ORIGIN], ["merge", HEADS + tracked]]);
    Deno.writeTextFileSync(`${repo.gitdir}/config`, config, { append: true });
    let head: string | null = null;
    let files = 0;
    let withheld: string[] = [];
    if (branch) {
      head = heads.find((r) => r.name === HEADS + branch)!.oid;
      // origin/HEAD names the remote's HEAD branch, when that branch was fetched (not with --depth of another).
      const remoteDefault = remoteHead?.symref;
      const defaultHead = fetchedHeads.find((r) => r.name === remoteDefault);
      if (defaultHead) {
        const tracking = `refs/remotes/${ORIGIN}/HEAD`;
        Deno.mkdirSync(`${repo.gitdir}/refs/remotes/${ORIGIN}`, { recursive: true });
        Deno.writeTextFileSync(
          `${repo.gitdir}/${tracking}`,
          `ref: refs/remotes/${ORIGIN}/${defaultHead.name.slice(HEADS.length)}\n`,
        );
        appendLog(repo, tracking, defaultHead.oid, options.who, message);
      }
      await updateRef(repo, HEADS + branch, head, { expected: null, message, who: options.who });
      // initRepo pointed HEAD at the branch already; git's clone logs HEAD once, from nothing.
      appendLog(repo, "HEAD", head, options.who, message);
      const commit = parseCommit((await repo.objects.read(head)).content);
      const opened = openRepo(building, options.rel, connection.root);
      // The checkout's modules (attributes, conversions) load only for a clone, not for every fetch.
      const { checkoutIntoEmpty } = await import("./fresh_checkout.ts");
      const checkedOut = await withRepoLock(
        opened,
        () => checkoutIntoEmpty(opened, pathPolicy(options.rel, opened.dir), commit.tree),
      );
      files = checkedOut.written;
      withheld = checkedOut.withheld;
    }
    Deno.removeSync(`${building}/.git/${CLONE_LOCK}`);
    // rename(2) replaces an empty folder, so a --dir that existed empty is taken over as well.
    Deno.renameSync(building, dir);
    return {
      branch,
      head,
      refs: packed.length,
      stats: { ...stats, elapsed_ms: Date.now() - started },
      files,
      withheld,
      shallow: shallow.size > 0,
    };
  } catch (error) {
    try {
      Deno.removeSync(building, { recursive: true });
    } catch { /* never made */ }
    throw error;
  } finally {
    held?.close();
  }
}

// ---- fetch ---------------------------------------------------------------------------------

/** A configured fetch refspec: `[+]refs/heads/<src>:refs/remotes/<name>/<dst>`, with at most one `*` each side. */
export interface Refspec {
  readonly force: boolean;
  readonly src: string;
  readonly dst: string;
}

export function parseRefspec(text: string): Refspec {
  const force = text.startsWith("+");
  const body = force ? text.slice(1) : text;
  const colon = body.indexOf(":");
  const src = colon < 0 ? body : body.slice(0, colon);
  const dst = colon < 0 ? "" : body.slice(colon + 1);
  const stars = (t: string) => t.split("*").length - 1;
  if (
    !src.startsWith("refs/") || !dst.startsWith("refs/") || stars(src) !== stars(dst) || stars(src) > 1 ||
    body.startsWith("^")
  ) {
    throw new PtermError(
      "UnsupportedFormat",
      `the fetch refspec ${JSON.stringify(text)} is not one pterm supports (it maps refs/... to refs/... with at ` +
        "most one * each side, e.g. +refs/heads/*:refs/remotes/origin/*). Fix it with the real git " +
        "(`git config remote.origin.fetch ...`).",
    );
  }
  return { force, src, dst };
}

/** Where `name` goes under `spec`, or null when it does not match. */
export function mapRef(spec: Refspec, name: string): string | null {
  const star = spec.src.indexOf("*");
  if (star < 0) return name === spec.src ? spec.dst : null;
  const before = spec.src.slice(0, star);
  const after = spec.src.slice(star + 1);
  if (!name.startsWith(before) || !name.endsWith(after) || name.length < before.length + after.length) return null;
  const matched = name.slice(before.length, name.length - after.length);
  return spec.dst.replace("*", matched);
}

/** The fixed part of a refspec's source: what ls-refs is asked for. */
function refPrefix(spec: Refspec): string {
  const star = spec.src.indexOf("*");
  return star < 0 ? spec.src : spec.src.slice(0, star);
}

export type RefUpdateStatus = "new" | "fast-forward" | "forced" | "up-to-date" | "rejected" | "pruned";

export interface FetchedRef {
  /** The remote's ref, e.g. refs/heads/main. */
  readonly remote: string;
  /** The local ref it updates, e.g. refs/remotes/origin/main. */
  readonly local: string;
  readonly old: string | null;
  /** null for a pruned ref. */
  readonly new: string | null;
  readonly status: RefUpdateStatus;
  /** Why a rejected ref was left as it was. */
  readonly reason?: string;
}

export interface FetchOptions {
  readonly connection: Connection;
  /** `--prune`: remote-tracking refs whose remote ref is gone are deleted. */
  readonly prune?: boolean;
  readonly repo: Repo;
  readonly remoteName: string;
  readonly refspecs: readonly Refspec[];
  readonly maxBytes: number;
  readonly who: Signature;
  /** Remote refs that must be there (`git fetch origin <branch>`): NotFound before anything is written if not. */
  readonly required?: readonly string[];
}

export interface FetchResult {
  readonly refs: FetchedRef[];
  readonly stats: TransferStats;
}

/** The URL as git names it in FETCH_HEAD: without a trailing `/` or `.git`. */
function fetchHeadUrl(url: string): string {
  return url.replace(/\/+$/, "").replace(/\.git$/, "");
}

export async function fetchInto(options: FetchOptions): Promise<FetchResult> {
  const started = Date.now();
  const { connection, repo } = options;
  removeDeadPackTemps(`${repo.commondir}/objects/pack`);
  using remote = await connect(connection);
  const prefixes = [...new Set(options.refspecs.map(refPrefix)), TAGS];
  const advertised = await listRemoteRefs(remote, prefixes);
  for (const wanted of options.required ?? []) {
    if (!advertised.some((ref) => ref.name === wanted)) {
      throw new PtermError(
        "NotFound",
        `${options.remoteName} has no ${wanted.replace(/^refs\/heads\//, "branch ")} (couldn't find remote ref ` +
          `${wanted}, as git says); nothing was fetched. \`git ls-remote\` lists what it has.`,
      );
    }
  }

  // Branches (and whatever else the refspecs name) and where each goes.
  const planned: { remote: RemoteRef; local: string; force: boolean }[] = [];
  for (const ref of advertised) {
    for (const spec of options.refspecs) {
      const local = mapRef(spec, ref.name);
      if (local && isValidRefName(local)) {
        planned.push({ remote: ref, local, force: spec.force });
        break;
      }
    }
  }
  const localTags = listRefs(repo, "refs/tags");
  const remoteTags = advertised.filter((r) => r.name.startsWith(TAGS) && !planned.some((p) => p.remote === r));
  const missing = async (oid: string) => !(await repo.objects.has(oid));
  const wants = new Set<string>();
  // A ref already where the remote's is needs no object check (nor the packs' indexes read for it).
  const before = new Map(planned.map((p) => [p.local, resolveRefOid(repo, p.local)]));
  for (const p of planned) {
    if (before.get(p.local) !== p.remote.oid && (await missing(p.remote.oid))) wants.add(p.remote.oid);
  }
  // Tags follow what is fetched (git's auto-follow): a new tag whose commit is here or on its way.
  for (const tag of remoteTags) {
    if (localTags.has(tag.name)) continue;
    const target = tag.peeled ?? tag.oid;
    if (!(await missing(target)) && (await missing(tag.oid))) wants.add(tag.oid);
  }
  let outcome: FetchOutcome | null = null;
  const shallowBefore = repo.objects.shallowCommits();
  if (wants.size > 0) {
    const haves = new Set<string>();
    for (const prefix of ["refs/heads", "refs/remotes", "refs/tags"]) {
      for (const oid of listRefs(repo, prefix).values()) haves.add(oid);
    }
    const head = readHead(repo).oid;
    if (head) haves.add(head);
    outcome = await fetchPack(remote, {
      wants: [...wants],
      haves: [...haves].filter((h) => !wants.has(h)).slice(0, 256),
      shallow: [...shallowBefore],
      includeTags: true,
      objectsDir: `${repo.commondir}/objects`,
      maxBytes: options.maxBytes,
    }, connection);
  }
  // A fresh view of the object store: it sees the new pack.
  const fresh = outcome?.pack ? reopenRepo(repo, connection.root) : repo;
  const shallow = new Set(shallowBefore);
  for (const s of outcome?.shallow ?? []) shallow.add(s);
  for (const s of outcome?.unshallow ?? []) shallow.delete(s);
  await checkConnected(fresh, [...wants], shallow, outcome?.pack?.links ?? null);
  if (outcome && (outcome.shallow.length > 0 || outcome.unshallow.length > 0)) {
    const text = [...shallow].sort().join("\n");
    if (text) Deno.writeTextFileSync(`${repo.commondir}/shallow`, text + "\n");
    else Deno.removeSync(`${repo.commondir}/shallow`);
  }

  // Only now, with every object present, do refs move: first the pruned ones go (as in git, so a
  // remote branch `a` replaced by `a/b` can land), then the fetched ones are updated.
  const pruned = options.prune ? await prune(fresh, options.refspecs, planned, advertised) : [];
  const refs: FetchedRef[] = [];
  for (const p of planned) {
    const old = resolveRefOid(fresh, p.local);
    const next = p.remote.oid;
    let status: RefUpdateStatus;
    if (old === next) status = "up-to-date";
    else if (old === null) status = "new";
    else if (await isAncestor(fresh, old, next)) status = "fast-forward";
    else status = p.force ? "forced" : "rejected";
    if (status === "rejected") {
      refs.push({ remote: p.remote.name, local: p.local, old, new: next, status, reason: "non-fast-forward" });
      continue;
    }
    if (status !== "up-to-date") {
      const message = status === "new"
        ? "fetch: storing head"
        : `fetch: ${status === "forced" ? "forced-update" : "fast-forward"}`;
      await updateRef(fresh, p.local, next, { expected: old, message, who: options.who });
    }
    refs.push({ remote: p.remote.name, local: p.local, old, new: next, status });
  }
  const fetchedTags: FetchedRef[] = [];
  // git's order: tags naming a fetched tip first (found before the transfer), then the ones back-filled after it.
  const tips = new Set(planned.map((p) => p.remote.oid));
  const namesTip = (tag: RemoteRef) => tips.has(tag.peeled ?? tag.oid);
  for (const tag of [...remoteTags.filter(namesTip), ...remoteTags.filter((t) => !namesTip(t))]) {
    const local = localTags.get(tag.name);
    if (local === tag.oid) continue;
    if (local !== undefined) {
      fetchedTags.push({
        remote: tag.name,
        local: tag.name,
        old: local,
        new: tag.oid,
        status: "rejected",
        reason: "would clobber an existing tag",
      });
      continue;
    }
    if (!(await fresh.objects.has(tag.oid))) continue; // not part of what was fetched: not followed
    await updateRef(fresh, tag.name, tag.oid, { expected: null, message: "fetch: storing head", who: options.who });
    fetchedTags.push({ remote: tag.name, local: tag.name, old: null, new: tag.oid, status: "new" });
  }
  writeFetchHead(fresh, options.remoteName, connection.remote.url, refs, fetchedTags, options.required ?? []);
  return {
    refs: [...pruned, ...refs, ...fetchedTags],
    stats: {
      objects: outcome?.pack?.objects ?? 0,
      bytes: outcome?.pack?.bytes ?? 0,
      elapsed_ms: Date.now() - started,
    },
  };
}

/**
 * git fetch --prune: the local refs the refspecs write to (refs/remotes/<name>/* as a rule) whose
 * remote ref is no longer advertised are deleted with their reflogs, as git's prune_refs does.
 * Symbolic refs (refs/remotes/origin/HEAD) are left, as git leaves them.
 */
async function prune(
  repo: Repo,
  refspecs: readonly Refspec[],
  planned: readonly { local: string }[],
  advertised: readonly RemoteRef[],
): Promise<FetchedRef[]> {
  const kept = new Set(planned.map((p) => p.local));
  const onRemote = new Set(advertised.map((r) => r.name));
  const pruned: FetchedRef[] = [];
  for (const spec of refspecs) {
    const star = spec.dst.indexOf("*");
    const locals = star < 0
      ? [spec.dst]
      : [...listRefs(repo, spec.dst.slice(0, spec.dst.lastIndexOf("/", star))).keys()];
    const back: Refspec = { force: false, src: spec.dst, dst: spec.src };
    for (const local of locals) {
      if (kept.has(local)) continue;
      const source = mapRef(back, local);
      if (source === null || onRemote.has(source)) continue;
      const raw = readRawRef(repo, local);
      if (!raw || raw.kind === "symbolic") continue;
      await deleteRef(repo, local, raw.oid);
      kept.add(local);
      pruned.push({ remote: source, local, old: raw.oid, new: null, status: "pruned" });
    }
  }
  return pruned;
}

/**
 * FETCH_HEAD as git writes it: the refs to merge first (the current branch's upstream, or every ref
 * named on the command line: `git fetch origin side`), then the rest as not-for-merge, then new tags.
 */
function writeFetchHead(
  repo: Repo,
  remoteName: string,
  url: string,
  refs: FetchedRef[],
  tags: FetchedRef[],
  named: readonly string[],
): void {
  const branch = readHead(repo).branch;
  const upstream = branch && repo.config.get(`branch.${branch}.remote`) === remoteName
    ? repo.config.get(`branch.${branch}.merge`) ?? null
    : null;
  const forMerge = (name: string) => named.length ? named.includes(name) : name === upstream;
  const where = fetchHeadUrl(url);
  const describe = (name: string) =>
    name.startsWith(HEADS)
      ? `branch '${name.slice(HEADS.length)}'`
      : name.startsWith(TAGS)
      ? `tag '${name.slice(TAGS.length)}'`
      : `'${name}'`;
  const lines: string[] = [];
  const listed = refs.filter((r) => r.status !== "rejected" && r.status !== "pruned");
  for (const r of listed) if (forMerge(r.remote)) lines.push(`${r.new}\t\t${describe(r.remote)} of ${where}`);
  for (const r of listed) {
    if (!forMerge(r.remote)) lines.push(`${r.new}\tnot-for-merge\t${describe(r.remote)} of ${where}`);
  }
  for (const t of tags) {
    if (t.status === "new") lines.push(`${t.new}\tnot-for-merge\t${describe(t.remote)} of ${where}`);
  }
  Deno.writeTextFileSync(`${repo.gitdir}/FETCH_HEAD`, lines.map((l) => l + "\n").join(""));
}

// ---- push ----------------------------------------------------------------------------------

export interface PushOptions {
  readonly connection: Connection;
  readonly repo: Repo;
  readonly remoteName: string;
  /** The local branch pushed (its name, without refs/heads/). */
  readonly branch: string;
  /** The remote ref it goes to (refs/heads/...). */
  readonly destination: string;
  readonly forceWithLease: boolean;
  readonly setUpstream: boolean;
  readonly who: Signature;
}

export interface PushOutcome {
  readonly ref: string;
  readonly old: string | null;
  readonly new: string;
  readonly status: "new" | "fast-forward" | "forced" | "up-to-date";
  readonly commits: number;
  readonly objects: number;
  readonly elapsed_ms: number;
}

/** The remote-tracking ref of `remote` for the remote branch `ref` (refs/heads/x → refs/remotes/origin/x). */
export function trackingRef(remoteName: string, ref: string): string | null {
  return ref.startsWith(HEADS) ? `refs/remotes/${remoteName}/${ref.slice(HEADS.length)}` : null;
}

/** Commits of `tip` that none of the remote-tracking refs of `remoteName` reach: what a push would send, as far as this repository knows. */
export async function unpushedCommits(repo: Repo, remoteName: string, tip: string): Promise<number> {
  const known = [...listRefs(repo, `refs/remotes/${remoteName}`).values()];
  const { objectsToSend } = await import("./pack_writer.ts");
  return (await objectsToSend(repo, [tip], known)).commits.length;
}

export async function pushTo(options: PushOptions): Promise<PushOutcome> {
  const started = Date.now();
  const { repo, connection, destination } = options;
  const local = resolveRefOid(repo, HEADS + options.branch);
  if (!local) {
    throw new PtermError("NotFound", `there is no branch ${options.branch} (or it has no commits yet) to push.`);
  }
  using remote = await connect(connection, "git-receive-pack");
  const advertised = remote.advertisement.refs ?? [];
  const old = advertised.find((r) => r.name === destination)?.oid ?? null;
  const tracking = trackingRef(options.remoteName, destination);
  const finish = async (status: PushOutcome["status"], commits: number, objects: number): Promise<PushOutcome> => {
    if (tracking && resolveRefOid(repo, tracking) !== local) {
      await updateRef(repo, tracking, local, { message: "update by push", who: options.who });
    }
    if (options.setUpstream) {
      await setConfigValues(repo, "branch", options.branch, [["remote", options.remoteName], ["merge", destination]]);
    }
    return { ref: destination, old, new: local, status, commits, objects, elapsed_ms: Date.now() - started };
  };
  if (old === local) return await finish("up-to-date", 0, 0);

  let status: PushOutcome["status"];
  const lease = tracking ? resolveRefOid(repo, tracking) : null;
  const rejected = (why: string) =>
    new PtermError(
      "Rejected",
      `the remote's ${destination.slice(HEADS.length)} (at ${old!.slice(0, 7)}) ${why}; nothing was pushed. Bring ` +
        `its commits in first with \`git pull --repo ${repo.label} --confirm\`, then push again` +
        (options.forceWithLease ? "." : " (or, to overwrite it, --force-with-lease)."),
      { result: { ref: destination, remote_oid: old, local_oid: local } },
    );
  if (old === null) status = "new";
  else if ((await repo.objects.has(old)) && (await isAncestor(repo, old, local))) status = "fast-forward";
  else if (!options.forceWithLease) {
    throw rejected(
      (await repo.objects.has(old))
        ? `is not an ancestor of your ${options.branch} (a non-fast-forward push)`
        : "has commits this repository does not have",
    );
  } else if (lease !== old) {
    throw rejected(
      `is not where ${tracking ?? "your remote-tracking ref"} says it was (${
        lease?.slice(0, 7) ?? "none"
      }): someone pushed since your last fetch, so --force-with-lease does not overwrite it`,
    );
  } else status = "forced";

  // The remote's refs this repository has, peeled to commits: the history a push need not send.
  const remoteHas: string[] = [];
  for (const ref of advertised) {
    let oid = ref.oid;
    for (let depth = 0; depth < 10 && (await repo.objects.has(oid)); depth++) {
      const object = await repo.objects.read(oid);
      if (object.type === "commit") {
        remoteHas.push(oid);
        break;
      }
      if (object.type !== "tag") break;
      oid = parseTag(object.content).object;
    }
  }
  const { objectsToSend, packStream } = await import("./pack_writer.ts");
  const { commits, objects } = await objectsToSend(repo, [local], remoteHas);
  const pack = packStream(repo, objects, (sent) => connection.onProgress?.("sending", sent, objects.length));
  let report;
  try {
    report = await sendPack(remote, [{ ref: destination, old: old ?? ZERO_OID, new: local }], pack.stream);
  } catch (error) {
    throw pack.failure() ?? error;
  }
  const refusal = report.refs.get(destination);
  if (report.unpack !== "ok") {
    throw new PtermError(
      "RemoteError",
      `the remote could not store the pushed objects (unpack ${report.unpack}); nothing was changed there.`,
    );
  }
  if (refusal !== null) {
    throw new PtermError(
      "Rejected",
      `the remote refused ${destination}: ${refusal ?? "no status reported"}; nothing was pushed. If someone pushed ` +
        `meanwhile, \`git pull --repo ${repo.label} --confirm\` and push again.`,
      { result: { ref: destination, remote_oid: old, local_oid: local } },
    );
  }
  return await finish(status, commits.length, objects.length);
}
