/**
 * What the plumbing subcommands (rev-list, ls-tree, diff-tree, cat-file, for-each-ref, merge-base,
 * show-ref, symbolic-ref, name-rev, hash-object, var) share: git's listing lines, and the rule that
 * content and names at secret or git-directory paths stay withheld there as in the porcelain.
 */

import { PtermError } from "../../../core/errors.ts";
import { MODE_TREE, parseTree, type TreeEntry } from "../odb/objects.ts";
import { quoteName } from "../odb/bytes.ts";
import type { Repo } from "../repo/repo.ts";
import { readHead, readRawRef } from "../repo/refs.ts";
import { readIndexFile } from "../worktree/index_file.ts";
import { hiddenPathDenied, normalizeUserPath, type PathPolicy } from "../worktree/worktree.ts";
import { peelTo } from "../history/revparse.ts";

/** git's type of a tree entry by its mode. */
export function entryType(mode: string): "tree" | "commit" | "blob" {
  return mode === MODE_TREE ? "tree" : mode === "160000" ? "commit" : "blob";
}

/** git's `<mode> <type> <oid>\t<name>` line of ls-tree and `cat-file -p <tree>` (modes padded to six digits). */
export function treeLine(
  entry: { mode: string; oid: string },
  name: string,
  quotePath: boolean,
  size?: string,
): string {
  const mode = entry.mode.padStart(6, "0");
  const sized = size === undefined ? "" : ` ${size.padStart(7, " ")}`;
  return `${mode} ${entryType(entry.mode)} ${entry.oid}${sized}\t${quoteName(name, quotePath)}`;
}

/** A tree's entries whose paths (under `dir`, "" for the top) the policy lets pterm show. */
export function visibleEntries(
  policy: PathPolicy,
  dir: string,
  content: Uint8Array,
  oid: string,
): TreeEntry[] {
  return parseTree(content, oid).filter((e) => !policy.hidden(dir ? `${dir}/${e.name}` : e.name));
}

/** Refuses `<rev>:<path>` when the path is withheld (its content and name are never printed). */
export function refuseHiddenRevPath(policy: PathPolicy, rev: string): void {
  const colon = rev.indexOf(":");
  if (colon < 0) return;
  const path = normalizeUserPath(rev.slice(colon + 1));
  const hidden = path === "" ? null : policy.hidden(path);
  if (hidden) throw hiddenPathDenied(path, hidden, "its content is never printed");
}

/**
 * The blobs a withheld path holds in HEAD's tree or the index: a blob named by its id is printed only
 * when it is none of them (a secret already tracked keeps its content unprinted, whichever name asks).
 */
export async function withheldBlobs(repo: Repo, policy: PathPolicy): Promise<Set<string>> {
  const out = new Set<string>();
  for (const entry of readIndexFile(repo.gitdir).sorted()) {
    if (policy.hidden(entry.path)) out.add(entry.oid);
  }
  const head = readHead(repo).oid;
  if (!head) return out;
  const walk = async (tree: string, dir: string, hidden: boolean): Promise<void> => {
    for (const e of parseTree(await repo.objects.readTyped(tree, "tree"), tree)) {
      const path = dir ? `${dir}/${e.name}` : e.name;
      const isHidden = hidden || policy.hidden(path) !== null;
      if (e.mode === MODE_TREE) await walk(e.oid, path, isHidden);
      else if (isHidden) out.add(e.oid);
    }
  };
  await walk(await peelTo(repo, head, "tree", "HEAD"), "", false);
  return out;
}

/** The refusal of a blob whose content is withheld. */
export function withheldBlob(name: string): PtermError {
  return new PtermError(
    "SecretPathDenied",
    `\`${name}\` is the content of a secret path (inside a secrets/ folder or named .env*); git in pterm never ` +
      "prints it. Choose another object.",
  );
}

/** git's fatal answer to an object name that names nothing. */
export function notAnObject(name: string): PtermError {
  return new PtermError(
    "NotFound",
    `Not a valid object name ${name}: \`git log --oneline\` and \`git branch\` list some.`,
  );
}

/** The ref name rules git tries, in order, for a short name (`x` → refs/x, refs/tags/x, refs/heads/x, …). */
const SHORT_RULES: readonly [string, string][] = [
  ["", ""],
  ["refs/", ""],
  ["refs/tags/", ""],
  ["refs/heads/", ""],
  ["refs/remotes/", ""],
  ["refs/remotes/", "/HEAD"],
];

/**
 * git's shortest unambiguous name of a full ref (`refs/heads/x` → `x`, or `heads/x` when a tag x exists
 * too): the most specific rule that gives a short name no earlier rule also resolves.
 */
export function shortRefName(repo: Repo, refname: string): string {
  for (let i = SHORT_RULES.length - 1; i > 0; i--) {
    const [prefix, suffix] = SHORT_RULES[i];
    if (!refname.startsWith(prefix) || !refname.endsWith(suffix) || refname.length <= prefix.length + suffix.length) {
      continue;
    }
    const short = refname.slice(prefix.length, refname.length - suffix.length);
    let ambiguous = false;
    for (let j = 0; j < i && !ambiguous; j++) {
      ambiguous = readRawRef(repo, `${SHORT_RULES[j][0]}${short}${SHORT_RULES[j][1]}`) !== null;
    }
    if (!ambiguous) return short;
  }
  return refname;
}
