/**
 * Line endings and content conversion as git's convert.c applies them: `text`, `eol`, `-text`,
 * `binary`, `text=auto` (and the old `crlf` attribute), `core.autocrlf` and `core.eol`, and
 * `ident`. "To git" runs when content enters the object store or is compared with it (add,
 * commit -a, stash, status, diff of the work tree); "to the work tree" when a blob is written
 * out (checkout, reset, merge, revert, stash apply).
 *
 * Filters (`filter=lfs` or any other) are external programs that pterm cannot run: a filtered
 * path is never staged with its work-tree content (UnsupportedFilter), except an LFS pointer
 * that is already a pointer (what `git lfs clean` gives back unchanged); on checkout the blob
 * is written as it is, so LFS pointer files stay pointers. `working-tree-encoding` needs a
 * re-encoding pterm does not do: refused the same way in both directions.
 */

import { PtermError } from "../../../core/errors.ts";
import { sha1 } from "../odb/codec.ts";
import { Attributes, type AttrValue } from "./attributes.ts";
import { type Index, readIndexFile } from "./index_file.ts";
import { objectHeader } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";
import { lstatTracked, readWorktreeContent } from "./worktree.ts";

/** ll_merge's reading of `conflict-marker-size`: C's atoi of a value; set, unset or not positive is git's 7. */
function markerSize(value: AttrValue | undefined): number {
  const digits = typeof value === "string" ? /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(value) : null;
  const size = digits ? parseInt(digits[1], 10) : 0;
  return size > 0 && size <= 0x7fffffff ? size : 7;
}

/** git's crlf_action. */
type CrlfAction = "undefined" | "binary" | "text" | "text-input" | "text-crlf" | "auto" | "auto-input" | "auto-crlf";

export interface PathConversion {
  readonly crlf: CrlfAction;
  /** The `filter` driver named for the path, or null. */
  readonly filter: string | null;
  readonly ident: boolean;
  readonly encoding: string | null;
  /** The `diff` attribute (false: shown as binary). */
  readonly diff: AttrValue | undefined;
  /** The `merge` attribute (false: never merged line by line). */
  readonly merge: AttrValue | undefined;
  /** Length of conflict markers (`conflict-marker-size`, read as ll-merge.c reads it: atoi, 7 unless positive). */
  readonly conflictMarkerSize: number;
}

interface TextStats {
  nul: number;
  lonecr: number;
  lonelf: number;
  crlf: number;
  printable: number;
  nonprintable: number;
}

function gatherStats(buf: Uint8Array): TextStats {
  const s: TextStats = { nul: 0, lonecr: 0, lonelf: 0, crlf: 0, printable: 0, nonprintable: 0 };
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const c = buf[i];
    if (c === 13) {
      if (i + 1 < n && buf[i + 1] === 10) {
        s.crlf++;
        i++;
      } else s.lonecr++;
      continue;
    }
    if (c === 10) {
      s.lonelf++;
      continue;
    }
    if (c === 127) s.nonprintable++;
    else if (c < 32) {
      if (c === 8 || c === 9 || c === 27 || c === 12) s.printable++;
      else {
        if (c === 0) s.nul++;
        s.nonprintable++;
      }
    } else s.printable++;
  }
  // A trailing Ctrl-Z (an old DOS end-of-file mark) does not count as non-printable.
  if (n >= 1 && buf[n - 1] === 0x1a) s.nonprintable--;
  return s;
}

function isBinary(s: TextStats): boolean {
  return s.lonecr > 0 || s.nul > 0 || (s.printable >> 7) < s.nonprintable;
}

const isAuto = (a: CrlfAction) => a === "auto" || a === "auto-input" || a === "auto-crlf";

/** What an attribute value means for line endings (git_path_check_crlf). */
function crlfFromAttr(value: AttrValue | undefined): CrlfAction {
  if (value === true) return "text";
  if (value === false) return "binary";
  if (value === "input") return "text-input";
  if (value === "auto") return "auto";
  return "undefined";
}

type AutoCrlf = "true" | "false" | "input";

/** An LFS pointer as `git lfs clean` gives it back unchanged (git-lfs's pointer format v1). */
export function isLfsPointer(bytes: Uint8Array): boolean {
  if (bytes.length > 1024) return false;
  const text = new TextDecoder().decode(bytes);
  return text.startsWith("version https://git-lfs.github.com/spec/v1\n") &&
    /^oid sha256:[0-9a-f]{64}$/m.test(text) && /^size [0-9]+$/m.test(text) && text.endsWith("\n");
}

export class TextConversion {
  readonly #repo: Repo;
  #index: Index | null;
  readonly #attributes: Attributes;
  readonly #autocrlf: AutoCrlf;
  readonly #eolCrlf: boolean;
  readonly #safeCrlf: boolean;
  /** The plan of every path without attributes (it depends on the configuration only). */
  #unattributed: PathConversion | null = null;
  /** Attribute files that a checkout is about to write, by folder: they count before the index's. */
  readonly #incoming = new Map<string, string | null>();

  constructor(repo: Repo, index: Index | null) {
    this.#repo = repo;
    this.#index = index;
    const auto = (repo.config.get("core.autocrlf") ?? "false").toLowerCase();
    this.#autocrlf = auto === "input" ? "input" : repo.config.getBool("core.autocrlf", false) ? "true" : "false";
    this.#eolCrlf = (repo.config.get("core.eol") ?? "").toLowerCase() === "crlf";
    // "warn" (git's default) only warns; a boolean true refuses.
    this.#safeCrlf = (repo.config.get("core.safecrlf") ?? "").toLowerCase() !== "warn" &&
      repo.config.getBool("core.safecrlf", false);
    this.#attributes = new Attributes((folder) => this.#readAttrFile(folder), repo.ignoreCase);
  }

  useIndex(index: Index): void {
    this.#index = index;
  }

  /**
   * Before a checkout writes `.gitattributes` files, their new blobs (null: removed) are
   * declared here, so the files written in the same operation follow them, as in git.
   */
  expectAttributes(files: ReadonlyMap<string, string | null>): void {
    for (const [path, oid] of files) {
      const slash = path.lastIndexOf("/");
      const folder = slash < 0 ? "" : path.slice(0, slash);
      this.#incoming.set(folder, oid);
      this.#attributes.forget(folder);
    }
  }

  async #readAttrFile(folder: string | null): Promise<Uint8Array | null> {
    const repo = this.#repo;
    if (folder === null) {
      try {
        return Deno.readFileSync(`${repo.commondir}/info/attributes`);
      } catch {
        return null;
      }
    }
    if (this.#incoming.has(folder)) {
      const oid = this.#incoming.get(folder)!;
      return oid ? await repo.objects.readTyped(oid, "blob") : null;
    }
    const rel = folder === "" ? ".gitattributes" : `${folder}/.gitattributes`;
    // git opens it without following links (a link, or a linked folder on the way, is as if there
    // were no file), then falls back to the index.
    try {
      if (lstatTracked(repo, rel)?.isFile) return Deno.readFileSync(`${repo.dir}/${rel}`);
    } catch { /* absent */ }
    this.#index ??= readIndexOrNull(repo);
    const entry = this.#index?.entries.get(rel);
    if (!entry || (entry.mode & 0o170000) !== 0o100000) return null;
    try {
      return await repo.objects.readTyped(entry.oid, "blob");
    } catch {
      return null;
    }
  }

  #textEolIsCrlf(): boolean {
    if (this.#autocrlf === "true") return true;
    if (this.#autocrlf === "input") return false;
    return this.#eolCrlf;
  }

  #outputCrlf(action: CrlfAction): boolean {
    switch (action) {
      case "binary":
      case "text-input":
      case "auto-input":
        return false;
      case "text-crlf":
      case "undefined":
      case "auto-crlf":
        return true;
      default:
        return this.#textEolIsCrlf();
    }
  }

  /** git's convert_attrs: the decided action for `path`. */
  async plan(path: string): Promise<PathConversion> {
    const attrs = await this.#attributes.get(path);
    // A path no attribute names (most paths of most repositories) gets the configuration's plan.
    if (attrs.size === 0) return this.#unattributed ??= this.#planOf(attrs);
    return this.#planOf(attrs);
  }

  /** The plan of a path with these attributes. */
  #planOf(attrs: Map<string, AttrValue>): PathConversion {
    let crlf = crlfFromAttr(attrs.get("text"));
    if (crlf === "undefined") crlf = crlfFromAttr(attrs.get("crlf"));
    if (crlf !== "binary") {
      const eol = attrs.get("eol");
      if (crlf === "auto" && eol === "lf") crlf = "auto-input";
      else if (crlf === "auto" && eol === "crlf") crlf = "auto-crlf";
      else if (eol === "lf") crlf = "text-input";
      else if (eol === "crlf") crlf = "text-crlf";
    }
    if (crlf === "text") crlf = this.#textEolIsCrlf() ? "text-crlf" : "text-input";
    if (crlf === "undefined") {
      crlf = this.#autocrlf === "true" ? "auto-crlf" : this.#autocrlf === "input" ? "auto-input" : "binary";
    }
    const filter = attrs.get("filter");
    const encoding = attrs.get("working-tree-encoding");
    return {
      crlf,
      filter: typeof filter === "string" ? filter : null,
      ident: attrs.get("ident") === true,
      encoding: typeof encoding === "string" && encoding !== "" && !/^utf-?8$/i.test(encoding) ? encoding : null,
      diff: attrs.get("diff"),
      merge: attrs.get("merge"),
      conflictMarkerSize: markerSize(attrs.get("conflict-marker-size")),
    };
  }

  /** git's has_crlf_in_index: the path's stage-0 blob (stage 2, "ours", during a merge) is text with CRLF. */
  async #hasCrlfInIndex(path: string): Promise<boolean> {
    this.#index ??= readIndexOrNull(this.#repo);
    const index = this.#index;
    const indexOid = index?.entries.get(path)?.oid ?? index?.conflicts.get(path)?.find((e) => e.stage === 2)?.oid;
    if (!indexOid) return false;
    let blob: Uint8Array;
    try {
      blob = await this.#repo.objects.readTyped(indexOid, "blob");
    } catch {
      return false;
    }
    if (!blob.includes(13)) return false;
    const stats = gatherStats(blob);
    return !isBinary(stats) && stats.crlf > 0;
  }

  /**
   * The bytes git would store for work-tree `content` at `path` (convert_to_git). git's "safer
   * autocrlf": text=auto content whose blob in the index already has CRLF is stored as it is.
   * With `staging`, a filtered path is refused.
   *
   * `patching`: read as git apply reads a file it patches (read_old_data) — a filtered path is
   * refused (pterm cannot run the filter, so it cannot see what git would patch); line endings
   * are converted whatever the index holds (git's CONV_EOL_RENORMALIZE), or, with `keepCrlf`
   * (the diff's own old lines end in CRLF), left as they are (CONV_EOL_KEEP_CRLF).
   */
  async toGit(
    path: string,
    content: Uint8Array,
    options: { staging?: boolean; patching?: { keepCrlf: boolean } } = {},
  ): Promise<Uint8Array> {
    const plan = await this.plan(path);
    if (options.staging) refuseUnsupported(path, plan, content, "stage");
    if (options.patching) refuseUnsupported(path, plan, content, "patch");
    let out = content;
    if (plan.crlf !== "binary" && out.length > 0 && !options.patching?.keepCrlf) {
      const stats = gatherStats(out);
      let convert = stats.crlf > 0;
      let binary = false;
      if (isAuto(plan.crlf)) {
        binary = isBinary(stats);
        if (binary) convert = false;
        else if (convert && !options.patching && (await this.#hasCrlfInIndex(path))) convert = false;
      }
      if (options.staging && !binary && this.#safeCrlf) this.#refuseLossyRoundTrip(path, plan.crlf, stats, convert);
      if (convert) out = stripCr(out, isAuto(plan.crlf));
    }
    if (plan.ident) out = identToGit(out);
    return out;
  }

  /**
   * core.safecrlf=true: git refuses to store content whose line endings a checkout would not give
   * back (CRLF stored as LF and not restored, or LF that a checkout would turn into CRLF).
   */
  #refuseLossyRoundTrip(path: string, action: CrlfAction, stats: TextStats, convert: boolean): void {
    const after = { ...stats };
    if (convert) {
      after.lonelf += after.crlf;
      after.crlf = 0;
    }
    if (this.#willAddCr(after, action)) {
      after.crlf += after.lonelf;
      after.lonelf = 0;
    }
    let what: string | null = null;
    if (stats.crlf > 0 && after.crlf === 0) what = "CRLF would be replaced by LF";
    else if (stats.lonelf > 0 && after.lonelf === 0) what = "LF would be replaced by CRLF";
    if (what === null) return;
    throw new PtermError(
      "InvalidArgs",
      `${what} in ${path}, and core.safecrlf=true makes git refuse that; nothing was staged. Change the file's ` +
        "line endings (or its text/eol attributes), or set core.safecrlf to warn.",
    );
  }

  /** git's will_convert_lf_to_crlf. */
  #willAddCr(stats: TextStats, action: CrlfAction): boolean {
    if (!this.#outputCrlf(action) || stats.lonelf === 0) return false;
    if (isAuto(action) && (stats.lonecr > 0 || stats.crlf > 0 || isBinary(stats))) return false;
    return true;
  }

  /**
   * Whether `toWorktree` writes any blob at `path` unchanged (no encoding, no ident, no line
   * endings to add): such a blob can be written to the work tree as it is read, piece by piece.
   */
  async writesAsIs(path: string): Promise<boolean> {
    const plan = await this.plan(path);
    return !plan.encoding && !plan.ident && !this.#outputCrlf(plan.crlf);
  }

  /** The bytes git writes to the work tree for blob `content` at `path` (convert_to_working_tree). */
  async toWorktree(path: string, content: Uint8Array): Promise<Uint8Array> {
    const plan = await this.plan(path);
    if (plan.encoding) refuseUnsupported(path, plan, content, "check out");
    let out = content;
    if (plan.ident) out = await identToWorktree(out);
    if (this.#outputCrlf(plan.crlf) && out.length > 0) {
      const stats = gatherStats(out);
      if (this.#willAddCr(stats, plan.crlf)) out = addCr(out, stats.lonelf);
    }
    return out;
  }
}

function refuseUnsupported(
  path: string,
  plan: PathConversion,
  content: Uint8Array,
  action: "stage" | "check out" | "patch",
): void {
  if (plan.encoding) {
    throw new PtermError(
      "UnsupportedFilter",
      `${path} has working-tree-encoding=${plan.encoding} in .gitattributes; pterm cannot re-encode it, so it ` +
        `does not ${action} it. Use the real git for this path.`,
    );
  }
  if (plan.filter === null) return;
  if (plan.filter === "lfs" && isLfsPointer(content)) return;
  const why = action === "patch"
    ? "so it cannot see the content git would patch; nothing was written"
    : "and staging the file as it is would commit its unfiltered content";
  throw new PtermError(
    "UnsupportedFilter",
    `${path} has filter=${plan.filter} in .gitattributes; pterm cannot run filters, ${why}. Use the real git ` +
      `(with the ${plan.filter} filter installed) for this path, or leave it out (name other paths).`,
  );
}

function stripCr(src: Uint8Array, anyCr: boolean): Uint8Array {
  const out = new Uint8Array(src.length);
  let o = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    // text=auto has already refused content with a lone CR, so every CR goes (as in git).
    if (c === 13 && (anyCr || (i + 1 < src.length && src[i + 1] === 10))) continue;
    out[o++] = c;
  }
  return out.subarray(0, o);
}

function addCr(src: Uint8Array, lonelf: number): Uint8Array {
  const out = new Uint8Array(src.length + lonelf);
  let o = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === 10 && (i === 0 || src[i - 1] !== 13)) out[o++] = 13;
    out[o++] = c;
  }
  return out.subarray(0, o);
}

const DOLLAR = 0x24;

/** `$Id: … $` back to `$Id$` (git's ident_to_git). */
function identToGit(src: Uint8Array): Uint8Array {
  const text = latin1(src);
  if (!/\$Id(\$|:[^$\n]*\$)/.test(text)) return src;
  return fromLatin1(text.replace(/\$Id:[^$\n]*\$/g, "$Id$"));
}

/** `$Id$` (and a git-style `$Id: … $`) expanded with the blob's name (git's ident_to_worktree). */
async function identToWorktree(src: Uint8Array): Promise<Uint8Array> {
  if (!src.includes(DOLLAR)) return src;
  const text = latin1(src);
  if (!/\$Id(\$|:[^$\n]*\$)/.test(text)) return src;
  const oid = await sha1(objectHeader("blob", src.length), src);
  const out = text.replace(/\$Id(\$|:([^$\n]*)\$)/g, (whole, _tail, inner: string | undefined) => {
    // An expansion from another system (spaces inside) is kept, as git keeps it.
    if (inner !== undefined) {
      const space = inner.indexOf(" ", 1);
      if (space >= 0 && space < inner.length - 1) return whole;
    }
    return `$Id: ${oid} $`;
  });
  return fromLatin1(out);
}

function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
  }
  return s;
}

function fromLatin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

function readIndexOrNull(repo: Repo): Index | null {
  try {
    return readIndexFile(repo.gitdir);
  } catch {
    return null;
  }
}

const conversions = new WeakMap<Repo, TextConversion>();

/**
 * The conversion of `repo` for this call (attribute files are read once per call). `index`, when
 * given, is the index the call works on (attribute files missing from the work tree are read
 * from it, as git does).
 */
export function conversionFor(repo: Repo, index?: Index | null): TextConversion {
  let conversion = conversions.get(repo);
  if (!conversion) {
    conversion = new TextConversion(repo, index ?? null);
    conversions.set(repo, conversion);
  } else if (index) conversion.useIndex(index);
  return conversion;
}

/**
 * The blob content git would hash for the work-tree file at `path`: a link's target as it is,
 * a file's bytes converted to git's form. With `staging`, filtered paths are refused.
 */
export async function worktreeBlob(
  repo: Repo,
  path: string,
  info: Deno.FileInfo,
  options: { staging?: boolean } = {},
): Promise<Uint8Array> {
  const raw = readWorktreeContent(repo, path, info);
  if (info.isSymlink) return raw;
  return await conversionFor(repo).toGit(path, raw, options);
}
