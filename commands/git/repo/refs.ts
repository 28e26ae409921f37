/**
 * References: loose files under `.git/refs`, `packed-refs`, symbolic `HEAD`, and reflogs. Every
 * update takes `<ref>.lock` (git's protocol) and checks the old value it expects, so parallel
 * pterm runs and a real git never lose an update silently.
 */

import { PtermError } from "../../../core/errors.ts";
import { isFullOid, ZERO_OID } from "../odb/bytes.ts";
import { LockFile } from "./lock.ts";
import { formatSignature, type Signature } from "../odb/objects.ts";
import { gitPath, refuseSymlinkedRepoPath, type Repo } from "./repo.ts";

export type RawRef = { kind: "symbolic"; target: string } | { kind: "direct"; oid: string };

interface PackedRefs {
  refs: Map<string, { oid: string; peeled: string | null }>;
}

function readPackedRefs(repo: Repo): PackedRefs {
  const refs = new Map<string, { oid: string; peeled: string | null }>();
  let text: string;
  try {
    text = Deno.readTextFileSync(gitPath(repo, "packed-refs"));
  } catch {
    return { refs };
  }
  let last: string | null = null;
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("^")) {
      if (last) refs.get(last)!.peeled = line.slice(1).trim();
      continue;
    }
    const space = line.indexOf(" ");
    const oid = line.slice(0, space);
    const name = line.slice(space + 1).trim();
    if (!isFullOid(oid)) continue;
    refs.set(name, { oid, peeled: null });
    last = name;
  }
  return { refs };
}

/**
 * Whether `name` may be looked up as a file under .git: a ref that passes check-ref-format
 * (`refs/…`), or a pseudo-ref at the top (HEAD, ORIG_HEAD, MERGE_HEAD: capitals and `_`, as git
 * allows). Anything else — `refs/../../secrets/token`, `config`, `index` — is never opened, so a
 * ref name can neither read a file outside the refs nor echo its content.
 */
export function isReadableRefName(name: string): boolean {
  if (/^[A-Z][A-Z_]*$/.test(name)) return true;
  return name.startsWith("refs/") && isValidRefName(name);
}

function readLoose(repo: Repo, name: string): RawRef | null {
  if (!isReadableRefName(name)) return null;
  let text: string;
  try {
    const info = Deno.statSync(gitPath(repo, name));
    if (!info.isFile) return null;
    text = Deno.readTextFileSync(gitPath(repo, name));
  } catch {
    return null;
  }
  const line = text.trim();
  if (line.startsWith("ref:")) return { kind: "symbolic", target: line.slice(4).trim() };
  if (isFullOid(line)) return { kind: "direct", oid: line };
  return null;
}

/** The ref as stored (loose first, then packed), without following symbolic refs. */
export function readRawRef(repo: Repo, name: string): RawRef | null {
  const loose = readLoose(repo, name);
  if (loose) return loose;
  if (!name.startsWith("refs/")) return null;
  const packed = readPackedRefs(repo).refs.get(name);
  return packed ? { kind: "direct", oid: packed.oid } : null;
}

/** Follows symbolic refs; null for an unborn branch or a missing ref. */
export function resolveRefOid(repo: Repo, name: string): string | null {
  let current = name;
  for (let depth = 0; depth < 6; depth++) {
    const raw = readRawRef(repo, current);
    if (!raw) return null;
    if (raw.kind === "direct") return raw.oid;
    current = raw.target;
  }
  return null;
}

export interface HeadState {
  /** The branch name (without refs/heads/) HEAD points to, or null when detached. */
  readonly branch: string | null;
  /** The full ref HEAD points to (refs/heads/x), or null when detached. */
  readonly ref: string | null;
  /** The commit, or null on an unborn branch. */
  readonly oid: string | null;
}

export function readHead(repo: Repo): HeadState {
  const raw = readLoose(repo, "HEAD");
  if (!raw) throw new PtermError("CorruptRepository", `${repo.label}/.git/HEAD is missing or unreadable.`);
  if (raw.kind === "direct") return { branch: null, ref: null, oid: raw.oid };
  const ref = raw.target;
  const branch = ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref;
  return { branch, ref, oid: resolveRefOid(repo, ref) };
}

function walkLoose(dir: string, prefix: string, out: Map<string, string>, repo: Repo): void {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  for (const entry of entries) {
    const name = `${prefix}/${entry.name}`;
    if (entry.isDirectory) walkLoose(`${dir}/${entry.name}`, name, out, repo);
    else if (entry.isFile && !entry.name.endsWith(".lock")) {
      const raw = readLoose(repo, name);
      if (raw?.kind === "direct") out.set(name, raw.oid);
      else if (raw?.kind === "symbolic") {
        const oid = resolveRefOid(repo, raw.target);
        if (oid) out.set(name, oid);
      }
    }
  }
}

/** Every ref under `prefix` (e.g. `refs/heads`), loose ones shadowing packed ones: name → oid. */
export function listRefs(repo: Repo, prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, { oid }] of readPackedRefs(repo).refs) if (name.startsWith(prefix + "/")) out.set(name, oid);
  walkLoose(gitPath(repo, prefix), prefix, out, repo);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// ---- names ---------------------------------------------------------------------------------

/** git check-ref-format's rules for a full ref name. */
export function isValidRefName(name: string): boolean {
  if (name === "@" || name.length === 0) return false;
  if (name.endsWith("/") || name.endsWith(".") || name.startsWith("/")) return false;
  if (name.includes("..") || name.includes("//") || name.includes("@{")) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return false;
  }
  if (/[~^:?*[\\]/.test(name)) return false;
  for (const part of name.split("/")) {
    if (part.startsWith(".") || part.endsWith(".lock") || part === "") return false;
  }
  return true;
}

export function checkBranchName(name: string): void {
  if (name.startsWith("-") || name === "HEAD" || !isValidRefName(`refs/heads/${name}`)) {
    throw new PtermError(
      "InvalidArgs",
      `\`${name}\` is not a valid branch name (no spaces, ~ ^ : ? * [ \\, .., @{, leading - or ., or trailing .lock).`,
    );
  }
}

export function checkTagName(name: string): void {
  if (name.startsWith("-") || !isValidRefName(`refs/tags/${name}`)) {
    throw new PtermError(
      "InvalidArgs",
      `\`${name}\` is not a valid tag name (no spaces, ~ ^ : ? * [ \\, .., @{, leading - or ., or trailing .lock).`,
    );
  }
}

// ---- updates -------------------------------------------------------------------------------

export interface RefUpdate {
  /** The value the ref must have now (null: must not exist); omitted: no check. */
  readonly expected?: string | null;
  readonly message: string;
  readonly who: Signature;
  /** Create the reflog even where git would not by default (refs/stash keeps its entries there). */
  readonly forceLog?: boolean;
}

/** Whether git would keep a reflog for `name` (core.logAllRefUpdates: true logs branches, remotes, notes and HEAD). */
function logsByDefault(repo: Repo, name: string): boolean {
  const setting = (repo.config.get("core.logallrefupdates") ?? "true").toLowerCase();
  if (setting === "always") return true;
  if (!repo.config.getBool("core.logallrefupdates", true)) return false;
  return name === "HEAD" || name.startsWith("refs/heads/") || name.startsWith("refs/remotes/") ||
    name.startsWith("refs/notes/");
}

function appendReflog(
  repo: Repo,
  name: string,
  oldOid: string,
  newOid: string,
  who: Signature,
  message: string,
  force = false,
) {
  const path = gitPath(repo, `logs/${name}`);
  const line = `${oldOid} ${newOid} ${formatSignature(who)}\t${message.split("\n")[0]}\n`;
  if (!force && !logsByDefault(repo, name) && !exists(path)) return;
  // An append follows a link: a reflog (or a folder on its way) that is one is refused first.
  refuseSymlinkedRepoPath(repo, `logs/${name}`);
  try {
    Deno.writeTextFileSync(path, line, { append: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(path, line, { append: true });
  }
}

/** Whether anything (a file, folder or link) is at `path`. */
export function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A ref name that would clash with an existing one as a file/folder (refs/heads/a vs refs/heads/a/b). */
function checkNoDirectoryConflict(repo: Repo, name: string): void {
  const parts = name.split("/");
  const packed = readPackedRefs(repo).refs;
  for (let i = 2; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join("/");
    const info = (() => {
      try {
        return Deno.statSync(gitPath(repo, prefix));
      } catch {
        return null;
      }
    })();
    if (info?.isFile || packed.has(prefix)) {
      throw new PtermError(
        "AlreadyExists",
        `cannot create ${name}: ${prefix} exists and a ref cannot also be a folder.`,
      );
    }
  }
  if (exists(gitPath(repo, name)) && Deno.statSync(gitPath(repo, name)).isDirectory) {
    throw new PtermError("AlreadyExists", `cannot create ${name}: refs named ${name}/... exist.`);
  }
  for (const other of packed.keys()) {
    if (other.startsWith(name + "/")) {
      throw new PtermError("AlreadyExists", `cannot create ${name}: the ref ${other} exists.`);
    }
  }
}

function ensureParent(path: string): void {
  Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
}

/** Points `name` (a full ref, or HEAD when detached) at `oid`, under its lock, checking `expected`. */
export async function updateRef(repo: Repo, name: string, oid: string, update: RefUpdate): Promise<void> {
  const path = gitPath(repo, name);
  refuseSymlinkedRepoPath(repo, name);
  if (name !== "HEAD") {
    checkNoDirectoryConflict(repo, name);
    ensureParent(path);
  }
  const lock = await LockFile.acquire(path, `the ref ${name}`);
  try {
    const current = name === "HEAD"
      ? (() => {
        const raw = readLoose(repo, "HEAD");
        return raw?.kind === "direct" ? raw.oid : null;
      })()
      : resolveRefOid(repo, name);
    if (update.expected !== undefined && current !== update.expected) {
      throw new PtermError(
        "RepoLocked",
        `${name} changed while pterm was working (another git process updated it); nothing was changed. Retry.`,
      );
    }
    appendReflog(repo, name, current ?? ZERO_OID, oid, update.who, update.message, update.forceLog);
    lock.commit(`${oid}\n`);
  } finally {
    lock.rollback();
  }
}

/**
 * Moves what HEAD names: the branch it points to (logging both the branch and HEAD, as git
 * does), or HEAD itself when detached.
 */
export async function advanceHead(repo: Repo, oid: string, update: RefUpdate): Promise<void> {
  const head = readHead(repo);
  if (head.ref) {
    await updateRef(repo, head.ref, oid, update);
    appendReflog(repo, "HEAD", head.oid ?? ZERO_OID, oid, update.who, update.message);
  } else {
    await updateRef(repo, "HEAD", oid, update);
  }
}

/** Makes HEAD a symbolic ref to `ref` (a branch switch), logging the move. */
export async function setHeadSymbolic(repo: Repo, ref: string, who: Signature, message: string): Promise<void> {
  const before = readHead(repo);
  const lock = await LockFile.acquire(gitPath(repo, "HEAD"), "HEAD");
  try {
    lock.commit(`ref: ${ref}\n`);
  } finally {
    lock.rollback();
  }
  const after = resolveRefOid(repo, ref);
  if (after) appendReflog(repo, "HEAD", before.oid ?? ZERO_OID, after, who, message);
}

/** Detaches HEAD at `oid`. */
export async function setHeadDetached(repo: Repo, oid: string, who: Signature, message: string): Promise<void> {
  const before = readHead(repo);
  const lock = await LockFile.acquire(gitPath(repo, "HEAD"), "HEAD");
  try {
    lock.commit(`${oid}\n`);
  } finally {
    lock.rollback();
  }
  appendReflog(repo, "HEAD", before.oid ?? ZERO_OID, oid, who, message);
}

/** Deletes a ref: its loose file, its packed-refs line (under packed-refs.lock) and its reflog. */
export async function deleteRef(repo: Repo, name: string, expected?: string): Promise<void> {
  const path = gitPath(repo, name);
  const lock = await LockFile.acquire(path, `the ref ${name}`);
  try {
    if (expected !== undefined && resolveRefOid(repo, name) !== expected) {
      throw new PtermError("RepoLocked", `${name} changed while pterm was working; nothing was changed. Retry.`);
    }
    const packed = readPackedRefs(repo);
    if (packed.refs.has(name)) {
      const packedLock = await LockFile.acquire(gitPath(repo, "packed-refs"), "packed-refs");
      try {
        const text = Deno.readTextFileSync(gitPath(repo, "packed-refs"));
        const lines = text.split("\n");
        const out: string[] = [];
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i];
          if (!line.startsWith("#") && !line.startsWith("^") && line.slice(41).trim() === name) {
            if (lines[i + 1]?.startsWith("^")) i++;
            continue;
          }
          out.push(line);
        }
        packedLock.commit(out.join("\n"));
      } finally {
        packedLock.rollback();
      }
    }
    try {
      Deno.removeSync(path);
    } catch { /* only packed */ }
    try {
      Deno.removeSync(gitPath(repo, `logs/${name}`));
    } catch { /* no reflog */ }
    pruneEmptyParents(repo, name);
  } finally {
    lock.rollback();
  }
}

function pruneEmptyParents(repo: Repo, name: string): void {
  for (const logs of ["", "logs/"]) {
    const parts = name.split("/");
    for (let i = parts.length - 1; i > 2; i--) {
      try {
        Deno.removeSync(gitPath(repo, `${logs}${parts.slice(0, i).join("/")}`));
      } catch {
        break;
      }
    }
  }
}

// ---- reflogs -------------------------------------------------------------------------------

export interface ReflogEntry {
  readonly oldOid: string;
  readonly newOid: string;
  readonly who: string;
  readonly message: string;
}

/** Reflog entries oldest first. */
export function readReflog(repo: Repo, name: string): ReflogEntry[] {
  if (!isReadableRefName(name)) return [];
  let text: string;
  try {
    text = Deno.readTextFileSync(gitPath(repo, `logs/${name}`));
  } catch {
    return [];
  }
  const out: ReflogEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    const tab = line.indexOf("\t");
    const head = tab < 0 ? line : line.slice(0, tab);
    out.push({
      oldOid: head.slice(0, 40),
      newOid: head.slice(41, 81),
      who: head.slice(82),
      message: tab < 0 ? "" : line.slice(tab + 1),
    });
  }
  return out;
}

/** Rewrites a reflog under the ref's lock (used by `stash drop`). */
export function writeReflog(repo: Repo, name: string, entries: readonly ReflogEntry[]): void {
  const text = entries.map((e) => `${e.oldOid} ${e.newOid} ${e.who}\t${e.message}\n`).join("");
  const path = gitPath(repo, `logs/${name}`);
  ensureParent(path);
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  Deno.writeTextFileSync(temp, text);
  Deno.renameSync(temp, path);
}

export { appendReflog };
