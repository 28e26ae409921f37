/**
 * `git branch` listings in git's text (builtin/branch.c's build_format over ref-filter): the
 * plain list, `-v` / `-vv` with git's aligned name column, abbreviated commit, upstream bracket
 * (`[origin/main: ahead 1, behind 2]`, `[origin/main: gone]`) and subject, branches checked out in
 * another worktree marked `+` (and their path under `-vv`), the detached HEAD's own line, and
 * `--format` with ref-filter's common atoms.
 */

import { displayWidth } from "../odb/bytes.ts";
import { PtermError } from "../../../core/errors.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { splitMessage } from "../odb/objects.ts";
import { listRefs, readRawRef } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { trackingInfo } from "./upstream.ts";
import { configuredUpstream, upstreamRef } from "../repo/upstream_config.ts";

export interface ListedRef {
  /** Full ref name (`refs/heads/main`), or null for the detached HEAD's line. */
  readonly ref: string | null;
  /** What git prints as the name: `main`, `origin/main`, `(HEAD detached at 1a2b3c4)`. */
  readonly shortName: string;
  readonly oid: string;
  readonly current: boolean;
  readonly remote: boolean;
  /** Where a symbolic remote ref points (`origin/main` for origin/HEAD). */
  readonly symref: string | null;
  /** The work tree this branch is checked out in, when it is another one. */
  readonly worktreePath: string | null;
}

export interface BranchListOptions {
  readonly verbose: number;
  readonly remotes: boolean;
  readonly locals: boolean;
  /** The detached HEAD's description (`(HEAD detached at …)`, `(no branch)`), when HEAD is detached. */
  readonly detached: string | null;
  readonly headOid: string | null;
  readonly headRef: string | null;
  readonly matches: (name: string) => boolean;
}

/** Branches checked out in the other work trees of this repository: ref → that work tree's path. */
export function checkedOutElsewhere(repo: Repo): Map<string, string> {
  const out = new Map<string, string>();
  const heads: { head: string; path: string }[] = [];
  const read = (path: string) => {
    try {
      return Deno.readTextFileSync(path).trim();
    } catch {
      return null;
    }
  };
  // The main work tree (when this one is linked), then each linked one.
  if (repo.commondir.endsWith("/.git")) {
    const head = read(`${repo.commondir}/HEAD`);
    if (head) heads.push({ head, path: repo.commondir.slice(0, -5) });
  }
  let names: string[] = [];
  try {
    names = [...Deno.readDirSync(`${repo.commondir}/worktrees`)].filter((e) => e.isDirectory).map((e) => e.name);
  } catch { /* no linked work trees */ }
  for (const name of names.sort()) {
    const dir = `${repo.commondir}/worktrees/${name}`;
    const head = read(`${dir}/HEAD`);
    const gitfile = read(`${dir}/gitdir`);
    if (head && gitfile) heads.push({ head, path: gitfile.replace(/\/\.git$/, "") });
  }
  for (const { head, path } of heads) {
    const match = /^ref: (refs\/heads\/.+)$/.exec(head);
    if (match && !out.has(match[1])) out.set(match[1], path);
  }
  return out;
}

/** The refs `git branch` lists, in git's order (detached HEAD first, then by ref name). */
export function listedRefs(repo: Repo, options: BranchListOptions): ListedRef[] {
  const elsewhere = checkedOutElsewhere(repo);
  const out: ListedRef[] = [];
  if (options.detached !== null && options.headOid && options.locals) {
    out.push({
      ref: null,
      shortName: options.detached,
      oid: options.headOid,
      current: true,
      remote: false,
      symref: null,
      worktreePath: null,
    });
  }
  const kinds: [string, boolean][] = [];
  if (options.locals) kinds.push(["refs/heads/", false]);
  if (options.remotes) kinds.push(["refs/remotes/", true]);
  for (const [prefix, remote] of kinds) {
    const refs = [...listRefs(repo, prefix.slice(0, -1))].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    for (const [ref, oid] of refs) {
      const shortName = ref.slice(prefix.length);
      if (!options.matches(shortName)) continue;
      const raw = readRawRef(repo, ref);
      const symref = raw?.kind === "symbolic" ? raw.target.replace(/^refs\/(heads|remotes)\//, "") : null;
      out.push({
        ref,
        shortName,
        oid,
        current: !remote && options.headRef === ref,
        remote,
        symref,
        worktreePath: options.headRef === ref ? null : elsewhere.get(ref) ?? null,
      });
    }
  }
  return out;
}

const padTo = (text: string, width: number) => text + " ".repeat(Math.max(0, width - displayWidth(text)));

async function subjectOf(repo: Repo, oid: string): Promise<string> {
  try {
    return splitMessage((await repo.objects.readCommit(oid)).message).subject;
  } catch {
    return "";
  }
}

/** `[ahead 1, behind 2]` / `[gone]` / "" as ref-filter's %(upstream:track). */
async function trackText(repo: Repo, ref: ListedRef, brackets: boolean): Promise<string> {
  if (!ref.ref || ref.remote) return "";
  const tracking = await trackingInfo(repo, ref.shortName);
  if (!tracking) return "";
  let text = "";
  if (tracking.gone) text = "gone";
  else if (tracking.ahead === null) text = "different";
  else {
    const parts = [];
    if (tracking.ahead) parts.push(`ahead ${tracking.ahead}`);
    if (tracking.behind) parts.push(`behind ${tracking.behind}`);
    text = parts.join(", ");
  }
  return text && brackets ? `[${text}]` : text;
}

/** The full ref name of a branch's upstream (`refs/remotes/origin/main`), as %(upstream) prints it. */
function upstreamFullName(repo: Repo, ref: ListedRef): string | null {
  if (!ref.ref || ref.remote) return null;
  const upstream = configuredUpstream(repo, ref.shortName);
  return upstream ? upstreamRef(repo, upstream) : null;
}

const shortRef = (full: string) => full.replace(/^refs\/(heads|tags|remotes)\//, "");

/** git's default listing text (plain, -v, -vv). */
export async function branchListText(
  repo: Repo,
  refs: readonly ListedRef[],
  options: BranchListOptions,
): Promise<string> {
  const remotePrefix = options.locals && options.remotes ? "remotes/" : "";
  const maxWidth = Math.max(
    0,
    ...refs.map((r) => displayWidth(r.shortName) + (r.remote ? remotePrefix.length : 0)),
  );
  const lines: string[] = [];
  for (const r of refs) {
    const marker = r.current ? "* " : r.worktreePath ? "+ " : "  ";
    const name = r.remote ? remotePrefix + r.shortName : r.shortName;
    if (!options.verbose) {
      lines.push(`${marker}${name}${r.symref ? ` -> ${r.symref}` : ""}`);
      continue;
    }
    const short = abbreviate(repo, r.oid);
    if (r.remote) {
      lines.push(
        `${marker}${padTo(name, maxWidth)}${
          r.symref ? ` -> ${r.symref}` : ` ${short} ${await subjectOf(repo, r.oid)}`
        }`,
      );
      continue;
    }
    let line = `${marker}${padTo(name, maxWidth)} ${short} `;
    if (options.verbose > 1) {
      if (!r.current && r.worktreePath) line += `(${r.worktreePath}) `;
      const upstream = upstreamFullName(repo, r);
      if (upstream) {
        const track = await trackText(repo, r, false);
        line += `[${shortRef(upstream)}${track ? `: ${track}` : ""}] `;
      }
    } else {
      const track = await trackText(repo, r, true);
      if (track) line += `${track} `;
    }
    lines.push(line + await subjectOf(repo, r.oid));
  }
  return lines.map((l) => l + "\n").join("");
}

/** The atoms `--format` understands, as ref-filter spells them. */
const FORMAT_ATOMS = [
  "refname",
  "refname:short",
  "objectname",
  "objectname:short",
  "upstream",
  "upstream:short",
  "upstream:track",
  "upstream:track,nobracket",
  "upstream:trackshort",
  "HEAD",
  "subject",
  "contents:subject",
  "symref",
  "symref:short",
  "worktreepath",
];

/** Refuses a format with an atom pterm does not compute, naming it (never prints it wrong). */
export function checkFormat(format: string): void {
  for (const match of format.matchAll(/%\(([^)]*)\)/g)) {
    if (!FORMAT_ATOMS.includes(match[1])) {
      throw new PtermError(
        "InvalidArgs",
        `--format: %(${match[1]}) is not supported here; the atoms are ${
          FORMAT_ATOMS.map((a) => `%(${a})`).join(", ")
        } (e.g. \`git branch --format='%(refname:short) %(upstream:short)'\`).`,
      );
    }
  }
}

/** One ref through a `--format` string: `%(atom)`, `%%` and `%xx` (a byte in hex) as ref-filter reads them. */
export async function formatRef(repo: Repo, ref: ListedRef, format: string): Promise<string> {
  const values = new Map<string, () => Promise<string> | string>([
    ["refname", () => ref.ref ?? ref.shortName],
    ["refname:short", () => ref.ref ? shortRef(ref.ref) : ref.shortName],
    ["objectname", () => ref.oid],
    ["objectname:short", () => abbreviate(repo, ref.oid)],
    ["upstream", () => upstreamFullName(repo, ref) ?? ""],
    ["upstream:short", () => {
      const full = upstreamFullName(repo, ref);
      return full ? shortRef(full) : "";
    }],
    ["upstream:track", () => trackText(repo, ref, true)],
    ["upstream:track,nobracket", () => trackText(repo, ref, false)],
    ["upstream:trackshort", async () => {
      if (!upstreamFullName(repo, ref)) return "";
      const tracking = await trackingInfo(repo, ref.shortName);
      if (!tracking || tracking.gone) return "";
      if (tracking.ahead === null) return "<>";
      return tracking.ahead && tracking.behind ? "<>" : tracking.ahead ? ">" : tracking.behind ? "<" : "=";
    }],
    ["HEAD", () => ref.current ? "*" : " "],
    ["subject", () => subjectOf(repo, ref.oid)],
    ["contents:subject", () => subjectOf(repo, ref.oid)],
    ["symref", () => {
      const raw = ref.ref ? readRawRef(repo, ref.ref) : null;
      return raw?.kind === "symbolic" ? raw.target : "";
    }],
    ["symref:short", () => ref.symref ?? ""],
    ["worktreepath", () => ref.current && ref.ref ? repo.dir : ref.worktreePath ?? ""],
  ]);
  let out = "";
  for (let i = 0; i < format.length;) {
    if (format[i] !== "%") {
      out += format[i++];
      continue;
    }
    if (format[i + 1] === "%") {
      out += "%";
      i += 2;
    } else if (format[i + 1] === "(") {
      const end = format.indexOf(")", i);
      out += await values.get(format.slice(i + 2, end))!();
      i = end + 1;
    } else if (/^[0-9a-fA-F]{2}$/.test(format.slice(i + 1, i + 3))) {
      out += String.fromCharCode(parseInt(format.slice(i + 1, i + 3), 16));
      i += 3;
    } else out += format[i++];
  }
  return out;
}
