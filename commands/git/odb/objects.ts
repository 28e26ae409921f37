/**
 * The object database: loose objects (read and written, zlib) and packfiles (read, pack.ts).
 */

import { PtermError } from "../../../core/errors.ts";
import { concatBytes } from "../../../core/bytes.ts";
import {
  bytesToByteString,
  decodeName,
  EMPTY_TREE_OID,
  encodeName,
  encoder,
  fromHex,
  isFullOid,
  lenientDecoder,
  toHex,
} from "./bytes.ts";
import { deflate, inflate, sha1 } from "./codec.ts";
import { type BlobSource, PackSet } from "./pack.ts";
import type { GitObject, ObjectType } from "./object.ts";
import { verifyTreeEntryName } from "../worktree/verify_path.ts";
import { resolve } from "../../../core/fs/path.ts";
import { isSecretPath, isStatePath, STATE_ENTRIES } from "../../../core/fs/paths.ts";

/** `<type> <length>\0`, written byte by byte (it is ASCII): no string built, no encoder called, once per object hashed. */
export function objectHeader(type: ObjectType, length: number): Uint8Array {
  let digits = 1;
  for (let n = length; n >= 10; n = Math.floor(n / 10)) digits++;
  const out = new Uint8Array(type.length + 1 + digits + 1);
  for (let i = 0; i < type.length; i++) out[i] = type.charCodeAt(i);
  out[type.length] = 0x20;
  for (let i = type.length + digits, n = length; i > type.length; i--, n = Math.floor(n / 10)) out[i] = 0x30 + n % 10;
  return out;
}

function corrupt(message: string): PtermError {
  return new PtermError(
    "CorruptRepository",
    `${message}. The repository is damaged; check it with the real git (\`git fsck\`).`,
  );
}

/** Loose-object checks answered by a stat before the store lists fan-out folders instead. */
const LOOSE_STAT_CHECKS = 64;

/** How deep git follows alternates of alternates (object-file.c's link_alt_odb_entries: `depth > 5`). */
export const MAX_ALTERNATE_DEPTH = 5;

/**
 * The canonical folder an alternates line names, or the refusal that says which line broke which
 * rule: outside the root (checked on the written path first, so a folder outside is never
 * stat'ed, then where links lead), a secret folder (`secrets/`, `.env*`) or pterm's own state, or
 * no folder there.
 */
function confineAlternate(
  root: string | null,
  written: string,
  where: string,
  relative: (abs: string) => string,
  within: (path: string) => boolean,
): string {
  const outside = () =>
    new PtermError(
      "PathEscape",
      `${where} borrows objects from a folder outside the workspace (as \`clone --shared\` or \`--reference\` ` +
        "leave it); pterm reads nothing outside the root. Make the repository self-contained with the real git: " +
        "`git repack -a -d`, then delete that alternates file.",
    );
  const policy = (abs: string) => {
    const rel = relative(abs);
    if (isSecretPath(rel)) {
      return new PtermError(
        "SecretPathDenied",
        `${where} borrows objects from ${rel}, inside a secret folder (secrets/ or .env*), which pterm never reads. ` +
          "Make the repository self-contained with the real git (`git repack -a -d`, then delete that alternates " +
          "file), or move the objects out of the secret folder.",
      );
    }
    if (isStatePath(rel)) {
      return new PtermError(
        "PathEscape",
        `${where} borrows objects from ${rel}, inside pterm's own state (${STATE_ENTRIES.join(", ")}), which no ` +
          "repository's objects come from. Make the repository self-contained with the real git (`git repack -a -d`, " +
          "then delete that alternates file).",
      );
    }
    return null;
  };
  if (root === null || !within(written)) throw outside();
  const lexical = policy(written);
  if (lexical) throw lexical;
  let real: string;
  try {
    real = Deno.realPathSync(written);
  } catch {
    real = "";
  }
  if (real && !within(real)) throw outside();
  const canonical = real ? policy(real) : null;
  if (canonical) throw canonical;
  let folder = false;
  try {
    folder = real !== "" && Deno.statSync(real).isDirectory;
  } catch { /* not there */ }
  if (!folder) {
    throw new PtermError(
      "CorruptRepository",
      `${where} borrows objects from ${relative(written)}, which is not a folder (git: "object directory does not ` +
        'exist; check .git/objects/info/alternates"); repair it with the real git (`git repack -a -d`, then remove ' +
        "that alternates file).",
    );
  }
  return real;
}

export class ObjectStore {
  readonly gitdir: string;
  readonly #objects: string;
  #packs: boolean | null = null;
  readonly #cache = new Map<string, GitObject>();
  /** Commits parsed by readCommit, by name. */
  readonly #commits = new Map<string, Commit>();
  /** What readCommitLinks read of commits, by name. */
  readonly #links = new Map<string, CommitLinks>();
  #packReader: PackSet | null = null;
  #shallow: Set<string> | null = null;
  /** Loose object names by fan-out folder, listed once a store has checked many (see #hasLoose). */
  readonly #looseListed = new Map<string, Set<string>>();
  #looseChecks = 0;

  /** The workspace root: alternates are read only inside it. */
  readonly #root: string | undefined;
  /** Whether this store reads objects/info/alternates (a borrowed store's own are read by the one borrowing). */
  readonly #borrows: boolean;
  /** Object stores this one borrows from (objects/info/alternates, followed as git does), read on first need. */
  #alternates: ObjectStore[] | null = null;

  constructor(gitdir: string, options: { root?: string; objectsDir?: string; borrows?: boolean } = {}) {
    this.gitdir = gitdir;
    this.#objects = options.objectsDir ?? `${gitdir}/objects`;
    this.#root = options.root;
    this.#borrows = options.borrows ?? true;
  }

  /**
   * `objects/info/alternates` (clone --shared / --reference): other object folders this
   * repository reads from, followed as git's object-file.c links them — each line a folder
   * (relative ones from the folder whose alternates file names them; `#` lines are comments),
   * each folder's own alternates after it, depth first, at most 5 levels below the repository's
   * (git ignores deeper ones: "nesting too deep"), a folder already linked (or the repository's
   * own) skipped. One flat list in git's order, searched after the repository's own objects.
   *
   * Confined as every path pterm reads: inside the workspace root lexically (one outside is never
   * even stat'ed) and on its canonical location, and never in a secret folder or pterm's own state
   * (core/fs/paths.ts's rules, on both). A line that breaks them is refused, naming the alternates
   * file and line, rather than skipped: without the folder's objects pterm could not give git's
   * answer, and an error that says why beats a "missing object" later.
   */
  #borrowed(): ObjectStore[] {
    if (this.#alternates !== null) return this.#alternates;
    const stores: ObjectStore[] = [];
    this.#alternates = stores;
    if (!this.#borrows) return stores;
    const root = this.#root ?? null;
    const relative = (abs: string) => (root !== null && abs.startsWith(root + "/") ? abs.slice(root.length + 1) : ".");
    const within = (path: string) => root !== null && (path === root || path.startsWith(root + "/"));
    const canonical = (path: string) => {
      try {
        return Deno.realPathSync(path);
      } catch {
        return path;
      }
    };
    const own = canonical(this.#objects);
    const linked = new Set<string>([own]);
    const link = (objects: string, depth: number) => {
      let text: string;
      try {
        text = Deno.readTextFileSync(`${objects}/info/alternates`);
      } catch {
        return;
      }
      // git's link_alt_odb_entries: "ignoring alternate object stores, nesting too deep".
      if (depth > MAX_ALTERNATE_DEPTH) return;
      const lines = text.split("\n");
      for (let k = 0; k < lines.length; k++) {
        const line = lines[k].trim();
        if (!line || line.startsWith("#")) continue;
        const where = `${relative(objects)}/info/alternates, line ${k + 1}`;
        if (line.startsWith('"')) {
          // git reads a C-quoted line (`"…"`, for a folder whose name needs it); pterm does not unquote it.
          throw new PtermError(
            "UnsupportedFormat",
            `${where} is in git's quoted form ("…"), which pterm does not read; write the folder unquoted (a ` +
              "name that needs quoting: move the borrowed repository), or make the repository self-contained " +
              "with the real git (`git repack -a -d`, then delete that alternates file).",
          );
        }
        const folder = confineAlternate(root, resolve(objects, line), where, relative, within);
        if (linked.has(folder)) continue; // git's alt_odb_usable: listed twice, or the repository's own
        linked.add(folder);
        stores.push(new ObjectStore(this.gitdir, { root: this.#root, objectsDir: folder, borrows: false }));
        link(folder, depth + 1);
      }
    };
    link(own, 0);
    return stores;
  }

  #loosePath(oid: string): string {
    return `${this.#objects}/${oid.slice(0, 2)}/${oid.slice(2)}`;
  }

  hasPacks(): boolean {
    if (this.#packs === null) {
      try {
        this.#packs = [...Deno.readDirSync(`${this.#objects}/pack`)].some((e) => e.name.endsWith(".idx"));
      } catch {
        this.#packs = false;
      }
    }
    return this.#packs;
  }

  #packSet(): PackSet {
    this.#packReader ??= new PackSet(this.#objects, inflate, (oid) => this.tryRead(oid));
    return this.#packReader;
  }

  /** The object, or null when the repository does not have it. */
  async tryRead(oid: string): Promise<GitObject | null> {
    const cached = this.#cache.get(oid);
    if (cached) return cached;
    if (oid === EMPTY_TREE_OID) return { type: "tree", content: new Uint8Array() };
    // Packs first: a lookup there is a binary search in memory, while a missing loose object costs
    // a failed open and a thrown error (an object in both is the same object).
    // Given at once by the packs unless decoding must wait (see PackSet.readNow).
    const packed = this.hasPacks() ? this.#packSet().readNow(oid) : null;
    let object: GitObject | null = packed instanceof Promise ? await packed : packed;
    let raw: Uint8Array | null = null;
    if (!object) {
      try {
        raw = Deno.readFileSync(this.#loosePath(oid));
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) throw error;
      }
    }
    if (raw !== null) {
      let data: Uint8Array;
      try {
        data = await inflate(raw);
      } catch {
        throw corrupt(`loose object ${oid} cannot be inflated`);
      }
      const nul = data.indexOf(0);
      const header = lenientDecoder.decode(data.subarray(0, nul));
      const [type, size] = header.split(" ");
      if (!isObjectType(type) || Number(size) !== data.length - nul - 1) {
        throw corrupt(`loose object ${oid} has a bad header`);
      }
      object = { type, content: data.subarray(nul + 1) };
    }
    if (!object) {
      for (const store of this.#borrowed()) {
        object = await store.tryRead(oid);
        if (object) break;
      }
    }
    if (object && object.type !== "blob") this.#cache.set(oid, object);
    return object;
  }

  /**
   * The commits at the boundary of a shallow repository (`.git/shallow`, written by
   * `clone --depth`): git treats them as having no parents, since their parents are not here.
   */
  shallowCommits(): ReadonlySet<string> {
    if (this.#shallow === null) {
      let text = "";
      try {
        text = Deno.readTextFileSync(`${this.gitdir}/shallow`);
      } catch { /* not shallow */ }
      this.#shallow = new Set(text.split("\n").map((l) => l.trim()).filter(isFullOid));
    }
    return this.#shallow;
  }

  /**
   * A commit as history sees it: a shallow boundary commit has no parents, as in git. Parsed once
   * per store (an object never changes): a log or a blame reads the same commits again and again.
   */
  async readCommit(oid: string): Promise<Commit> {
    let commit = this.#commits.get(oid);
    if (!commit) {
      const parsed = parseCommit(await this.readTyped(oid, "commit"));
      commit = this.shallowCommits().has(oid) ? { ...parsed, parents: [] } : parsed;
      this.#commits.set(oid, commit);
    }
    return commit;
  }

  /**
   * What a walk needs of a commit — its tree, its parents (none at a shallow boundary) and its
   * committer's time — read from the header's bytes, as git's parse_commit_buffer reads them,
   * without decoding the names and the message: the same values readCommit gives, which is used
   * instead for a header this does not read alone (an `encoding`, a continued or non-ASCII field).
   */
  async readCommitLinks(oid: string): Promise<CommitLinks> {
    let links: CommitLinks | null | undefined = this.#links.get(oid);
    if (!links) {
      const parsed = this.#commits.get(oid) ?? null;
      links = parsed ? null : commitLinks(await this.readTyped(oid, "commit"));
      if (!links) {
        const commit = parsed ?? await this.readCommit(oid);
        links = { tree: commit.tree, parents: commit.parents, committerTime: commit.committer.timestamp };
      } else if (this.shallowCommits().has(oid)) links = { ...links, parents: [] };
      this.#links.set(oid, links);
    }
    return links;
  }

  async read(oid: string): Promise<GitObject> {
    const object = await this.tryRead(oid);
    if (!object) throw this.missing(oid);
    return object;
  }

  /**
   * The error for an object this repository does not have: in a partial clone (`--filter`,
   * recognised by its `.promisor` packs) that is normal — the server still has it, and a fetch
   * brings it; anywhere else the repository is damaged.
   */
  missing(oid: string): PtermError {
    if (this.isPartialClone()) {
      return new PtermError(
        "NotFound",
        `object ${oid} is not in this partial clone (it was cloned with --filter, and the server still holds ` +
          "it); fetch it with the real git (e.g. `git fetch` or `git checkout` there), then retry. Nothing was changed.",
      );
    }
    return corrupt(`object ${oid} is missing`);
  }

  isPartialClone(): boolean {
    try {
      return [...Deno.readDirSync(`${this.#objects}/pack`)].some((e) => e.name.endsWith(".promisor"));
    } catch {
      return false;
    }
  }

  /**
   * A blob larger than `threshold` bytes stored in a pack, whole or as a delta, to be read piece
   * by piece (the checkout writes it so, never holding it whole; a delta's base is decoded whole);
   * null when it is smaller, loose, borrowed, absent or a delta on a base outside the packs: read
   * it whole then.
   */
  largeBlob(oid: string, threshold: number): BlobSource | null {
    if (this.#cache.has(oid) || !this.hasPacks()) return null;
    return this.#packSet().blobSource(oid, threshold);
  }

  async readTyped(oid: string, type: ObjectType): Promise<Uint8Array> {
    const object = await this.read(oid);
    if (object.type !== type) {
      throw new PtermError("InvalidArgs", `${oid.slice(0, 7)} is a ${object.type}, not a ${type}.`);
    }
    return object.content;
  }

  async has(oid: string): Promise<boolean> {
    if (this.hasPacks() && this.#packSet().has(oid)) return true;
    try {
      Deno.statSync(this.#loosePath(oid));
      return true;
    } catch {
      for (const store of this.#borrowed()) if (await store.has(oid)) return true;
      return false;
    }
  }

  /** Hashes without writing. */
  async hash(type: ObjectType, content: Uint8Array): Promise<string> {
    return await sha1(objectHeader(type, content.length), content);
  }

  /** Writes a loose object unless it exists; temp file + rename, so a kill never leaves half an object. */
  async write(type: ObjectType, content: Uint8Array): Promise<string> {
    const header = objectHeader(type, content.length);
    const oid = await sha1(header, content);
    await this.writeHashed(oid, header, content);
    return oid;
  }

  /** `write` for callers that already hold the native helpers and the hash (bulk adds). */
  async writeHashed(oid: string, header: Uint8Array, content: Uint8Array): Promise<void> {
    // An object the repository has already is not written again (git's write_object_file checks
    // has_object the same way): packs first (a search in memory), then the loose folder.
    if (this.hasPacks() && this.#packSet().has(oid)) return;
    if (this.#hasLoose(oid)) return;
    const path = this.#loosePath(oid);
    const dir = `${this.#objects}/${oid.slice(0, 2)}`;
    try {
      if (Deno.lstatSync(dir).isSymlink) {
        throw new PtermError(
          "PathEscape",
          `.git/objects/${oid.slice(0, 2)} is a symbolic link; pterm never writes git's objects through a link ` +
            "(it could lead outside the workspace). Replace it with a real folder using the real git.",
        );
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const temp = `${dir}/tmp_obj_${crypto.randomUUID()}`;
    const data = await deflate(concatBytes([header, content]));
    try {
      Deno.writeFileSync(temp, data, { createNew: true, mode: 0o444 });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      Deno.mkdirSync(dir, { recursive: true });
      Deno.writeFileSync(temp, data, { createNew: true, mode: 0o444 });
    }
    try {
      Deno.renameSync(temp, path);
    } catch (error) {
      Deno.removeSync(temp);
      throw error;
    }
    this.#looseListed.get(oid.slice(0, 2))?.add(oid.slice(2));
  }

  /**
   * Whether `oid` is a loose object here. The first checks stat the object's file; a store asked
   * many times (`git add` of thousands of files) lists each fan-out folder once instead and keeps
   * the names, adding the objects it writes — one folder read instead of a stat per object.
   */
  #hasLoose(oid: string): boolean {
    if (++this.#looseChecks <= LOOSE_STAT_CHECKS) {
      try {
        Deno.statSync(this.#loosePath(oid));
        return true;
      } catch {
        return false;
      }
    }
    return this.#looseNames(oid.slice(0, 2)).has(oid.slice(2));
  }

  /** The loose objects' names (38 hex digits) in one fan-out folder, listed once per store; writes add theirs. */
  #looseNames(fanout: string): Set<string> {
    let names = this.#looseListed.get(fanout);
    if (!names) {
      names = new Set();
      try {
        for (const entry of Deno.readDirSync(`${this.#objects}/${fanout}`)) names.add(entry.name);
      } catch { /* no such fan-out folder yet */ }
      this.#looseListed.set(fanout, names);
    }
    return names;
  }

  /** Objects in the packs, the alternates' included: what git's `repo_approximate_object_count` counts. */
  packedObjectCount(): number {
    let count = this.hasPacks() ? this.#packSet().objectCount() : 0;
    for (const store of this.#borrowed()) count += store.packedObjectCount();
    return count;
  }

  /**
   * The most hex digits `oid` shares with any other object here (loose, packed, borrowed): an
   * abbreviation one digit longer names it alone (git's find_unique_abbrev).
   */
  sharedHexDigits(oid: string): number {
    let shared = this.hasPacks() ? this.#packSet().sharedHexDigits(oid) : 0;
    for (const name of this.#looseNames(oid.slice(0, 2))) {
      if (name.length !== 38 || name === oid.slice(2)) continue;
      let k = 0;
      while (k < 38 && name[k] === oid[k + 2]) k++;
      shared = Math.max(shared, k + 2);
    }
    for (const store of this.#borrowed()) shared = Math.max(shared, store.sharedHexDigits(oid));
    return shared;
  }

  /** Expands an abbreviated object name (at least 4 hex digits); null if none, throws if ambiguous. */
  async expand(prefix: string): Promise<string | null> {
    const lower = prefix.toLowerCase();
    if (isFullOid(lower)) return (await this.has(lower)) ? lower : null;
    if (!/^[0-9a-f]{4,39}$/.test(lower)) return null;
    const found = new Set<string>();
    try {
      for (const entry of Deno.readDirSync(`${this.#objects}/${lower.slice(0, 2)}`)) {
        const oid = lower.slice(0, 2) + entry.name;
        if (entry.name.length === 38 && oid.startsWith(lower)) found.add(oid);
      }
    } catch { /* no such fan-out folder */ }
    if (this.hasPacks()) { for (const oid of this.#packSet().matching(lower)) found.add(oid); }
    for (const store of this.#borrowed()) {
      const other = await store.expand(prefix);
      if (other) found.add(other);
    }
    if (found.size > 1) {
      throw new PtermError(
        "InvalidArgs",
        `the short object name ${prefix} is ambiguous (it matches several objects); give more hex digits.`,
      );
    }
    return found.size === 1 ? [...found][0] : null;
  }
}

function isObjectType(type: string): type is ObjectType {
  return type === "blob" || type === "tree" || type === "commit" || type === "tag";
}

// ---- tree, commit and tag objects ---------------------------------------------------------

export interface TreeEntry {
  /** Octal mode as git writes it in trees: 100644, 100755, 120000, 160000 or 40000. */
  readonly mode: string;
  readonly name: string;
  readonly oid: string;
}

export const MODE_TREE = "40000";
export const MODE_FILE = "100644";
export const MODE_EXEC = "100755";
export const MODE_LINK = "120000";
export const MODE_GITLINK = "160000";

/**
 * The entries of a tree object. Every name is checked as git's verify_path does (see
 * verify_path.ts): one unsafe name rejects the whole tree. `oid` names the tree in that error.
 */
export function parseTree(content: Uint8Array, oid?: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let i = 0;
  while (i < content.length) {
    const space = content.indexOf(0x20, i);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw corrupt("a tree object is truncated");
    const mode = lenientDecoder.decode(content.subarray(i, space));
    const name = decodeName(content.subarray(space + 1, nul));
    verifyTreeEntryName(name, oid ? `tree ${oid}` : "a tree", mode === "120000");
    entries.push({ mode: mode === "040000" ? MODE_TREE : mode, name, oid: toHex(content, nul + 1, nul + 21) });
    i = nul + 21;
  }
  return entries;
}

/** Tree order: byte order of names, a subtree compared as if its name ended in `/`. */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  const an = a.mode === MODE_TREE ? a.name + "/" : a.name;
  const bn = b.mode === MODE_TREE ? b.name + "/" : b.name;
  const ab = encodeName(an);
  const bb = encodeName(bn);
  const n = Math.min(ab.length, bb.length);
  for (let i = 0; i < n; i++) if (ab[i] !== bb[i]) return ab[i] - bb[i];
  return ab.length - bb.length;
}

export function serializeTree(entries: readonly TreeEntry[]): Uint8Array {
  const sorted = [...entries].sort(compareTreeEntries);
  const parts: Uint8Array[] = [];
  for (const e of sorted) {
    parts.push(encoder.encode(`${e.mode} `), encodeName(e.name), new Uint8Array([0]), fromHex(e.oid));
  }
  return concatBytes(parts);
}

export interface Signature {
  readonly name: string;
  readonly email: string;
  /** Seconds since the epoch. */
  readonly timestamp: number;
  /** Minutes east of UTC. */
  readonly tzOffset: number;
}

export interface Commit {
  readonly tree: string;
  readonly parents: readonly string[];
  readonly author: Signature;
  readonly committer: Signature;
  /** The raw message (subject, blank line, body), as stored. */
  readonly message: string;
}

/**
 * An author/committer/tagger line as git's split_ident_line reads it: the name before the
 * first `<`, the email up to the last `>`, then the date and a time zone of any number of
 * digits (`+051800` exists in real histories: git reads it as hours*100+minutes, and so does
 * this). A line git could not split keeps its text as the name.
 */
function parseSignature(text: string): Signature {
  const open = text.indexOf("<");
  const close = text.lastIndexOf(">");
  if (open < 0 || close < open) return { name: text, email: "", timestamp: 0, tzOffset: 0 };
  const name = text.slice(0, open).replace(/\s+$/, "");
  const email = text.slice(open + 1, close);
  const when = /^\s*(\d+)(?:\s+([+-])(\d+))?/.exec(text.slice(close + 1));
  const timestamp = when ? Number(when[1]) : 0;
  let tzOffset = 0;
  if (when?.[3]) {
    const value = Number(when[3]);
    tzOffset = (when[2] === "-" ? -1 : 1) * (Math.floor(value / 100) * 60 + (value % 100));
  }
  return { name, email, timestamp, tzOffset };
}

export function formatSignature(sig: Signature): string {
  const sign = sig.tzOffset < 0 ? "-" : "+";
  const abs = Math.abs(sig.tzOffset);
  const tz = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
  return `${sig.name} <${sig.email}> ${sig.timestamp} ${tz}`;
}

/** Splits a raw object text into its header fields and its message (headers may continue on lines starting with a space). */
function splitHeaders(text: string): { headers: [string, string][]; message: string } {
  const end = text.indexOf("\n\n");
  const head = end < 0 ? text : text.slice(0, end);
  const message = end < 0 ? "" : text.slice(end + 2);
  const headers: [string, string][] = [];
  for (const line of head.split("\n")) {
    if (line.startsWith(" ") && headers.length > 0) {
      headers[headers.length - 1][1] += "\n" + line.slice(1);
      continue;
    }
    const space = line.indexOf(" ");
    headers.push(space < 0 ? [line, ""] : [line.slice(0, space), line.slice(space + 1)]);
  }
  return { headers, message };
}

/** Labels of ISO-8859-1 itself: the web's decoder for them is windows-1252, which differs at 0x80–0x9f. */
const LATIN1_LABELS = new Set(["iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "cp819", "ibm819"]);

const ENCODING_KEY = encoder.encode("encoding ");

/** The value of the `encoding` header of a commit or tag, read from the raw header bytes; null when none. */
function encodingHeader(content: Uint8Array): string | null {
  let start = 0;
  while (start < content.length && content[start] !== 0x0a) {
    let end = content.indexOf(0x0a, start);
    if (end < 0) end = content.length;
    if (end - start > ENCODING_KEY.length && ENCODING_KEY.every((b, k) => content[start + k] === b)) {
      return lenientDecoder.decode(content.subarray(start + ENCODING_KEY.length, end)).trim();
    }
    start = end + 1;
  }
  return null;
}

/**
 * A commit's or tag's text, re-encoded from the `encoding` header as git log shows it
 * (`i18n.commitEncoding` when it was written, logmsg_reencode when read): the whole object,
 * headers too, so an ISO-8859-1 author name and message read as what was typed, not U+FFFD.
 * Without the header, or with one no decoder here knows, the bytes are read as UTF-8, as git
 * shows them when iconv cannot convert.
 */
function objectText(content: Uint8Array): string {
  const label = encodingHeader(content)?.toLowerCase();
  if (!label || label === "utf-8" || label === "utf8") return lenientDecoder.decode(content);
  if (LATIN1_LABELS.has(label)) return bytesToByteString(content);
  try {
    return new TextDecoder(label).decode(content);
  } catch {
    return lenientDecoder.decode(content);
  }
}

/** A commit's place in history: its tree, parents and committer's time (see readCommitLinks). */
export interface CommitLinks {
  readonly tree: string;
  readonly parents: readonly string[];
  readonly committerTime: number;
}

const HEADER_TREE = encoder.encode("tree ");
const HEADER_PARENT = encoder.encode("parent ");
const HEADER_AUTHOR = encoder.encode("author ");
const HEADER_COMMITTER = encoder.encode("committer ");
const HEADER_ENCODING = encoder.encode("encoding ");

function startsWithAt(content: Uint8Array, at: number, end: number, key: Uint8Array): boolean {
  if (end - at < key.length) return false;
  for (let k = 0; k < key.length; k++) if (content[at + k] !== key[k]) return false;
  return true;
}

/** The bytes [from, to) as text, or null when one is not ASCII. */
function asciiText(content: Uint8Array, from: number, to: number): string | null {
  let text = "";
  for (let i = from; i < to; i++) {
    if (content[i] >= 0x80) return null;
    text += String.fromCharCode(content[i]);
  }
  return text;
}

/**
 * A signature's time from its bytes [from, to), as parseSignature reads it from the decoded
 * line: the digits after the last `>` (0 without `<…>` or digits); null when bytes before the
 * digits are not ASCII (their decoding decides whether they are white space).
 */
function signatureTime(content: Uint8Array, from: number, to: number): number | null {
  let open = -1;
  for (let i = from; i < to; i++) {
    if (content[i] === 0x3c) {
      open = i;
      break;
    }
  }
  let close = -1;
  for (let i = to - 1; i >= from; i--) {
    if (content[i] === 0x3e) {
      close = i;
      break;
    }
  }
  if (open < 0 || close < open) return 0;
  let p = close + 1;
  while (p < to && (content[p] === 0x20 || (content[p] >= 0x09 && content[p] <= 0x0d))) p++;
  if (p < to && content[p] >= 0x80) return null;
  let digits = "";
  while (p < to && content[p] >= 0x30 && content[p] <= 0x39) digits += String.fromCharCode(content[p++]);
  return digits === "" ? 0 : Number(digits);
}

/**
 * readCommitLinks' reading of a commit's header bytes; null when it needs parseCommit (an
 * `encoding` header, a field of these continued on the next line, a name or a value that is
 * not ASCII where it matters, a tree that is not a full object name).
 */
export function commitLinks(content: Uint8Array): CommitLinks | null {
  let tree: string | null = null;
  const parents: string[] = [];
  let author: [number, number] | null = null;
  let committer: [number, number] | null = null;
  let continues = false;
  let p = 0;
  while (p < content.length) {
    let end = content.indexOf(0x0a, p);
    if (end < 0) end = content.length;
    if (end === p) break; // the blank line before the message
    if (content[p] === 0x20) {
      if (continues) return null;
    } else {
      continues = false;
      if (startsWithAt(content, p, end, HEADER_TREE)) {
        tree = asciiText(content, p + HEADER_TREE.length, end);
        continues = true;
      } else if (startsWithAt(content, p, end, HEADER_PARENT)) {
        const parent = asciiText(content, p + HEADER_PARENT.length, end);
        if (parent === null) return null;
        parents.push(parent);
        continues = true;
      } else if (startsWithAt(content, p, end, HEADER_AUTHOR)) {
        author = [p + HEADER_AUTHOR.length, end];
        continues = true;
      } else if (startsWithAt(content, p, end, HEADER_COMMITTER)) {
        committer = [p + HEADER_COMMITTER.length, end];
        continues = true;
      } else if (startsWithAt(content, p, end, HEADER_ENCODING)) return null;
    }
    p = end + 1;
  }
  if (tree === null || !isFullOid(tree)) return null;
  const signer = committer ?? author;
  const committerTime = signer ? signatureTime(content, signer[0], signer[1]) : 0;
  if (committerTime === null) return null;
  return { tree, parents, committerTime };
}

export function parseCommit(content: Uint8Array): Commit {
  const { headers, message } = splitHeaders(objectText(content));
  let tree = "";
  const parents: string[] = [];
  let author: Signature | null = null;
  let committer: Signature | null = null;
  for (const [key, value] of headers) {
    if (key === "tree") tree = value;
    else if (key === "parent") parents.push(value);
    else if (key === "author") author = parseSignature(value);
    else if (key === "committer") committer = parseSignature(value);
  }
  if (!isFullOid(tree)) throw corrupt("a commit object has no tree");
  author ??= { name: "", email: "", timestamp: 0, tzOffset: 0 };
  return { tree, parents, author, committer: committer ?? author, message };
}

export function serializeCommit(commit: Commit): Uint8Array {
  const lines = [`tree ${commit.tree}`];
  for (const parent of commit.parents) lines.push(`parent ${parent}`);
  lines.push(`author ${formatSignature(commit.author)}`, `committer ${formatSignature(commit.committer)}`);
  return encoder.encode(`${lines.join("\n")}\n\n${commit.message}`);
}

export interface Tag {
  readonly object: string;
  readonly type: ObjectType;
  readonly tag: string;
  readonly tagger: Signature | null;
  readonly message: string;
}

export function parseTag(content: Uint8Array): Tag {
  const { headers, message } = splitHeaders(objectText(content));
  const get = (key: string) => headers.find(([k]) => k === key)?.[1];
  const type = get("type") ?? "commit";
  const tagger = get("tagger");
  return {
    object: get("object") ?? "",
    type: isObjectType(type) ? type : "commit",
    tag: get("tag") ?? "",
    tagger: tagger ? parseSignature(tagger) : null,
    message,
  };
}

export function serializeTag(tag: Tag): Uint8Array {
  const lines = [`object ${tag.object}`, `type ${tag.type}`, `tag ${tag.tag}`];
  if (tag.tagger) lines.push(`tagger ${formatSignature(tag.tagger)}`);
  return encoder.encode(`${lines.join("\n")}\n\n${tag.message}`);
}

/** The subject (first paragraph joined on one line, as git's %s) and the body of a message. */
/**
 * The subject and body as git's pretty formats (%s, %b) take them: leading blank lines are
 * skipped; the subject is the lines up to the first blank one (a line of only whitespace, a
 * CRLF `\r` included), each with its trailing whitespace removed and its leading whitespace
 * kept, joined by spaces; the body is what follows the blank lines after it.
 */
export function splitMessage(message: string): { subject: string; body: string } {
  const lines = message.split("\n");
  const isBlank = (line: string) => /^\s*$/.test(line);
  let i = 0;
  while (i < lines.length && isBlank(lines[i])) i++;
  const subject: string[] = [];
  for (; i < lines.length && !isBlank(lines[i]); i++) subject.push(lines[i].replace(/\s+$/, ""));
  while (i < lines.length && isBlank(lines[i])) i++;
  return { subject: subject.join(" "), body: lines.slice(i).join("\n").replace(/\s+$/, "") };
}

/**
 * git's message clean-up for `commit -m` (cleanup mode "whitespace"): trailing whitespace
 * removed from every line, leading and trailing blank lines dropped, runs of blank lines
 * collapsed, and a final newline.
 */
export function cleanupMessage(message: string, stripComments = false): string {
  let lines = message.split("\n").map((l) => l.replace(/[ \t\r\v\f]+$/, ""));
  if (stripComments) lines = lines.filter((l) => !l.startsWith("#"));
  const out: string[] = [];
  for (const line of lines) {
    if (line === "" && (out.length === 0 || out[out.length - 1] === "")) continue;
    out.push(line);
  }
  while (out.length && out[out.length - 1] === "") out.pop();
  return out.length ? out.join("\n") + "\n" : "";
}
