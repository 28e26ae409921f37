/** diff and show: read-only views that render patches. */

import type { CommandContext, Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { blameFlags, diffFlags, grepFlags, logFlags, reflogFlags, showFlags, stashShowFlags } from "../spec.ts";
import { blame as blameLines, NOT_COMMITTED } from "../history/blame.ts";
import { worktreeBlob } from "../worktree/convert.ts";
import {
  changesBetween,
  type DiffFile,
  type FileChange,
  findRenames,
  lineAlgorithm,
  renderDiff,
  type RenderedDiff,
  renderStat,
} from "../diff/diff.ts";
import { mergeBases } from "../merge/merge.ts";
import { combinedDiff, type CombinedParent } from "../diff/combined_diff.ts";
import { parseTree } from "../odb/objects.ts";
import { MAX_SCORE } from "../diff/renames.ts";
import { type Index, modeToTreeMode, readIndexFile, S_IFGITLINK } from "../worktree/index_file.ts";
import { ancestorsOf, describeCommit, readCommit, walkLog } from "../history/log.ts";
import { parseTag } from "../odb/objects.ts";
import { describeTag } from "../porcelain/ops.ts";
import { listStash, parseStashRef } from "../porcelain/stash.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { listRefs, readHead, readReflog } from "../repo/refs.ts";
import { parseApproxDate } from "../history/approxidate.ts";
import { compilePattern } from "../history/pattern.ts";
import type { Commit } from "../odb/objects.ts";
import { dwimRef, lookupPath, peel, peelTo, resolveCommit, resolveRevision } from "../history/revparse.ts";
import type { Repo } from "../repo/repo.ts";
import { worktreeStatus } from "../porcelain/status.ts";
import { type FlatEntry, flattenTree, pathWithin } from "../odb/tree.ts";
import {
  hiddenPathDenied,
  lstatTracked,
  normalizeUserPath,
  type PathPolicy,
  worktreeMode,
} from "../worktree/worktree.ts";
import { bounded, openFromFlags, plural, splitRevsAndPaths, userPaths } from "./common.ts";
import { bytesToByteString, comparePaths, encoder, quoteName } from "../odb/bytes.ts";
import { concatBytes } from "../diff/line_diff.ts";
import {
  decorations,
  parseDateMode,
  parsePretty,
  prettyCommit,
  type PrettyContext,
  type PrettyFormat,
  prettyTagHeader,
  unsupportedPlaceholder,
} from "../history/pretty.ts";

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The bytes as UTF-8 text (a BOM kept, as git prints it), or null when they are not UTF-8. */
function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    return null;
  }
}

function indexFlat(index: Index): Map<string, FlatEntry> {
  const out = new Map<string, FlatEntry>();
  for (const [path, e] of index.entries) {
    if (!e.intentToAdd) out.set(path, { mode: modeToTreeMode(e.mode), oid: e.oid });
  }
  return out;
}

async function treeOfRev(repo: Repo, rev: string): Promise<string> {
  return (await readCommit(repo, await resolveCommit(repo, rev))).tree;
}

/** The tree to compare against the work tree: HEAD's, or none before the first commit. */
async function headFlat(repo: Repo): Promise<Map<string, FlatEntry>> {
  const head = readHead(repo);
  return head.oid ? await flattenTree(repo, (await readCommit(repo, head.oid)).tree) : new Map();
}

/** Changes from `base` (a flattened tree) to the work tree, for paths tracked in the index or in base. */
async function changesToWorktree(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  base: Map<string, FlatEntry> | null,
): Promise<FileChange[]> {
  const work = await worktreeStatus(repo, index, policy, { untracked: false });
  const out: FileChange[] = [];
  const paths = new Set<string>(
    base ? [...base.keys(), ...index.entries.keys(), ...index.conflicts.keys()] : work.unstaged.keys(),
  );
  for (const path of paths) {
    const entry = index.entries.get(path);
    const old = base ? base.get(path) : entry ? { mode: modeToTreeMode(entry.mode), oid: entry.oid } : undefined;
    const change = work.unstaged.get(path);
    let next: FileChange["new"] = null;
    const conflict = !entry && base ? index.conflicts.get(path) : undefined;
    if (conflict) {
      // A path with a conflict in progress: against a commit, git diffs the work-tree file as it is.
      const info = lstatTracked(repo, path);
      const recorded = conflict.find((e) => e.stage === 2) ?? conflict[conflict.length - 1];
      if (info) next = { kind: "worktree", mode: modeToTreeMode(worktreeMode(repo, info, recorded.mode)) };
    } else if (entry && change !== "D") {
      if (change === undefined) next = { kind: "blob", mode: modeToTreeMode(entry.mode), oid: entry.oid };
      else {
        const info = lstatTracked(repo, path);
        // A submodule stays a gitlink; its checkout's commit is read by the diff itself.
        const mode = entry.mode === S_IFGITLINK
          ? "160000"
          : info
          ? modeToTreeMode(worktreeMode(repo, info, entry.mode))
          : null;
        next = info && mode ? { kind: "worktree", mode } : null;
      }
    }
    if (!old && !next) continue;
    if (old && next?.kind === "blob" && next.oid === old.oid && next.mode === old.mode) continue;
    out.push({ path, old: old ? { kind: "blob", ...old } : null, new: next });
  }
  return out;
}

function filterChanges(
  changes: FileChange[],
  scope: string[],
  policy: PathPolicy,
): { kept: FileChange[]; withheld: string[] } {
  const kept: FileChange[] = [];
  const withheld: string[] = [];
  for (const c of changes) {
    if (scope.length && !scope.some((s) => pathWithin(c.path, s))) continue;
    if (policy.hidden(c.path)) withheld.push(c.path);
    else kept.push(c);
  }
  return { kept, withheld: withheld.sort() };
}

const STATUS_LETTER: Record<DiffFile["status"], string> = {
  added: "A",
  modified: "M",
  deleted: "D",
  typechange: "T",
  renamed: "R",
};

type ViewFlags = { stat?: boolean; "name-only"?: boolean; "name-status"?: boolean; "no-patch"?: boolean };

/** The text of a diff in the form the flags ask for (stat, names); null for the patch itself. */
function viewOf(rendered: RenderedDiff, flags: ViewFlags): string | null {
  if (flags["no-patch"]) return "";
  if (flags["name-only"] || flags["name-status"]) {
    // git's form: `R<similarity>\t<old>\t<new>` for a rename; a conflicted path `U\t<path>` (its name alone
    // with --name-only) before the change of our side's file in the work tree, if any.
    const line = (f: DiffFile) =>
      flags["name-only"]
        ? quoteName(f.path)
        : f.status === "renamed"
        ? `R${String(f.similarity ?? 100).padStart(3, "0")}\t${quoteName(f.old_path!)}\t${quoteName(f.path)}`
        : `${STATUS_LETTER[f.status]}\t${quoteName(f.path)}`;
    const rows = [
      ...rendered.unmerged.map((path) => ({
        path,
        first: 0,
        text: flags["name-only"] ? quoteName(path) : `U\t${quoteName(path)}`,
      })),
      ...rendered.files.map((f) => ({ path: f.path, first: 1, text: line(f) })),
    ].sort((a, b) => comparePaths(a.path, b.path) || a.first - b.first);
    return rows.map((r) => r.text).join("\n") + (rows.length ? "\n" : "");
  }
  if (flags.stat) return renderStat(rendered);
  return null;
}

/**
 * Why stdout's patch is not the patch itself: files whose lines are not UTF-8 show each byte as
 * one character there (Latin-1's é as é, whatever the file's encoding), so that text, written
 * back as UTF-8, would change those bytes. The artifact holds git's bytes.
 */
function notUtf8Warning(paths: readonly string[], artifact: string): string {
  const named = paths.slice(0, 5).map(quoteName).join(", ") + (paths.length > 5 ? ` and ${paths.length - 5} more` : "");
  return `[Warning] ${named} ${paths.length === 1 ? "is" : "are"} not UTF-8: stdout shows each of ${
    paths.length === 1 ? "its" : "their"
  } bytes as one character (as Latin-1), so that text is not the patch; the patch, byte for byte as git writes it, ` +
    `is the artifact ${artifact} (apply that file, e.g. \`patch apply --file ${artifact}\`).\n`;
}

/** Which files' hunk headers carry git's default function line where git would use their diff driver's. */
function functionLineNote(files: ReadonlyMap<string, string>): string {
  const named = [...files].slice(0, 5).map(([path, driver]) => `${quoteName(path)} (diff=${driver})`).join(", ") +
    (files.size > 5 ? ` and ${files.size - 5} more` : "");
  return `[Note] the function names after \`@@ … @@\` in the hunk headers of ${named} are git's default ones; git ` +
    "would take them from the diff driver's own patterns, which pterm does not apply. The changed lines are git's.\n";
}

async function emit(
  // deno-lint-ignore no-explicit-any
  ctx: CommandContext<any, any>,
  rendered: RenderedDiff,
  flags: ViewFlags,
  header: string | ((hasDiff: boolean) => string) = "",
  /** What an empty diff prints after the header. */
  empty = "No differences.\n",
) {
  const prefix = typeof header === "string" ? header : header(rendered.files.length > 0 && !flags["no-patch"]);
  let text = viewOf(rendered, flags);
  let artifact: string | null = null;
  const notUtf8 = text === null ? rendered.notUtf8 : [];
  if (text === null) {
    const size = rendered.patchBytes.length;
    const budget = Math.max(1024, ctx.limits.stdout_bytes - prefix.length - 512);
    // A patch too long for stdout, or one whose text is not its bytes, is saved as git's bytes.
    if (size > budget || notUtf8.length) {
      const ref = await ctx.artifacts.save("diff.patch", rendered.patchBytes, {
        mime: "text/x-diff",
        description: "the full patch, git's bytes (git apply can read it)",
      });
      artifact = ref.path;
    }
    text = size > budget
      ? `${renderStat(rendered)}\nThe patch is ${size} bytes; it is in the artifact ${artifact}.\n`
      : rendered.patch;
    if (notUtf8.length) ctx.stderr.write(notUtf8Warning(notUtf8, artifact!));
    if (rendered.otherFunctionLines.size) ctx.stderr.write(functionLineNote(rendered.otherFunctionLines));
  }
  ctx.stdout.write(prefix + (text || (flags["no-patch"] ? "" : empty)));
  const listed = bounded(rendered.files);
  return {
    files: listed.items,
    additions: rendered.additions,
    deletions: rendered.deletions,
    truncated: listed.truncated,
    patch_artifact: artifact,
    not_utf8: notUtf8,
  };
}

/** The two sides `a..b` or `a...b` (the merge base of a and b, then b) name; an empty end is HEAD. */
async function rangeEnds(repo: Repo, word: string): Promise<[string, string] | null> {
  const range = word.includes(":") ? null : word.match(/^(.*?)(\.\.\.?)(.*)$/);
  if (!range) return null;
  const from = range[1] || "HEAD";
  const to = range[3] || "HEAD";
  if (range[2] === "..") return [from, to];
  const bases = await mergeBases(repo, await resolveCommit(repo, from), await resolveCommit(repo, to));
  if (bases.length === 0) {
    throw new PtermError(
      "NotFound",
      `\`${from}\` and \`${to}\` have no common ancestor, so \`${word}\` names nothing.`,
    );
  }
  return [bases[0], to];
}

/** Renames are detected unless --no-renames, as with git's default diff.renames=true. */
async function withRenames(
  repo: Repo,
  changes: FileChange[],
  flags: { "find-renames": number; "no-renames"?: boolean },
): Promise<FileChange[]> {
  if (flags["no-renames"]) return changes;
  return await findRenames(repo, changes, Math.round(flags["find-renames"] * MAX_SCORE / 100));
}

export const diff: Handler<typeof diffFlags, readonly [{ name: "args"; description: string; variadic: true }]> = async (
  ctx,
) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const split = await splitRevsAndPaths(ctx, repo, ctx.positionals.args, 2);
  const scope = userPaths([...ctx.flags.path, ...split.paths]);
  const staged = ctx.flags.staged;
  let [from, to] = split.revs as (string | undefined)[];
  if (from !== undefined && to === undefined) {
    const ends = await rangeEnds(repo, from);
    if (ends) [from, to] = ends;
  } else if (from !== undefined && (await rangeEnds(repo, from) || (to && await rangeEnds(repo, to)))) {
    throw new PtermError("InvalidArgs", "give either two commits or one `a..b` range, not both.");
  }
  const index = readIndexFile(repo.gitdir);
  let changes: FileChange[];
  let labels: [string, string];
  /** Paths with a conflict in progress, shown as git shows them (see unmergedChanges). */
  let unmerged: UnmergedView = { changes: [], combined: [] };
  if (to !== undefined) {
    if (staged) {
      throw new PtermError("InvalidArgs", "--staged compares with the index; do not give two commits with it.");
    }
    changes = changesBetween(
      await flattenTree(repo, await treeOfRev(repo, from!)),
      await flattenTree(repo, await treeOfRev(repo, to)),
    );
    labels = [from!, to];
  } else if (from !== undefined) {
    const base = await flattenTree(repo, await treeOfRev(repo, from));
    changes = staged ? changesBetween(base, indexFlat(index)) : await changesToWorktree(repo, index, policy, base);
    labels = [from, staged ? "index" : "worktree"];
    if (staged) unmerged = unmergedChanges(repo, index, false, false);
  } else if (staged) {
    changes = changesBetween(await headFlat(repo), indexFlat(index));
    labels = ["HEAD", "index"];
    unmerged = unmergedChanges(repo, index, false, false);
  } else {
    changes = await changesToWorktree(repo, index, policy, null);
    labels = ["index", "worktree"];
    // git combines only for the patch: the name and stat views list each side's change instead.
    unmerged = unmergedChanges(
      repo,
      index,
      true,
      !ctx.flags.stat && !ctx.flags["name-only"] && !ctx.flags["name-status"],
    );
  }
  // Against the index, a conflicted path is its `* Unmerged path` line, never a deletion of its stage-0 entry.
  if (staged) changes = changes.filter((c) => !index.conflicts.has(c.path));
  const { kept, withheld } = filterChanges(changes, scope, policy);
  const unmergedKept = filterChanges(unmerged.changes, scope, policy).kept;
  const combinedKept = unmerged.combined.filter((c) =>
    !policy.hidden(c.path) && (!scope.length || scope.some((s) => pathWithin(c.path, s)))
  );
  const algorithm = lineAlgorithm(repo, ctx.flags);
  const rendered = await renderDiff(repo, [...await withRenames(repo, kept, ctx.flags), ...unmergedKept], {
    context: ctx.flags.context,
    algorithm,
  });
  // git prints each unmerged path's combined diff first (diff-files shows them as it meets them), then the rest.
  const combined: { path: string; bytes: Uint8Array }[] = [];
  for (const { path, parents } of combinedKept) {
    const bytes = await combinedDiff(repo, path, parents, {
      context: ctx.flags.context,
      dense: !ctx.flags.combined,
      algorithm,
    });
    combined.push({ path, bytes });
  }
  const out = await emit(ctx, combined.length ? withCombined(rendered, combined) : rendered, ctx.flags);
  const unmergedPaths = [...new Set([...combinedKept.map((c) => c.path), ...unmergedKept.map((c) => c.path)])]
    .sort(comparePaths);
  return { repo_path: rel, from: labels[0], to: labels[1], ...out, withheld, unmerged: unmergedPaths };
};

interface UnmergedView {
  /** `* Unmerged path` entries, with the diff git adds after some (see unmergedChanges). */
  changes: FileChange[];
  /** Paths both sides of the conflict have: their combined diff. */
  combined: { path: string; parents: CombinedParent[] }[];
}

/**
 * The conflicted paths as git's diff shows them. Against the work tree (diff-files): with `combine`
 * (the patch view), a path both sides have (index stages 2 and 3) gets the combined diff; any
 * other gets `* Unmerged path`, and where our side has it (stage 2), the diff of that side with
 * the work tree after it. Against HEAD (`--staged`, diff-index): the `* Unmerged path` line alone.
 */
function unmergedChanges(repo: Repo, index: Index, worktree: boolean, combine = worktree): UnmergedView {
  const view: UnmergedView = { changes: [], combined: [] };
  for (const path of [...index.conflicts.keys()].sort(comparePaths)) {
    const stages = index.conflicts.get(path)!;
    const ours = stages.find((e) => e.stage === 2);
    const theirs = stages.find((e) => e.stage === 3);
    if (combine && ours && theirs) {
      view.combined.push({
        path,
        parents: [ours, theirs].map((e) => ({ oid: e.oid, mode: modeToTreeMode(e.mode) })),
      });
      continue;
    }
    let old: FileChange["old"] = null;
    let next: FileChange["new"] = null;
    if (worktree && ours) {
      old = { kind: "blob", mode: modeToTreeMode(ours.mode), oid: ours.oid };
      // Gone from the work tree: git shows our side deleted.
      const info = lstatTracked(repo, path);
      if (info) next = { kind: "worktree", mode: modeToTreeMode(worktreeMode(repo, info, ours.mode)) };
    }
    view.changes.push({ path, old, new: next, unmerged: true });
  }
  return view;
}

/**
 * The rendered diff with the combined diffs before it, as one patch. A combined diff whose lines
 * are not UTF-8 shows each byte as one character in the text, and its path joins `notUtf8` (the
 * patch's bytes then go to an artifact, as for any other such file).
 */
function withCombined(rendered: RenderedDiff, combined: readonly { path: string; bytes: Uint8Array }[]): RenderedDiff {
  const texts = combined.map((c) => strictUtf8(c.bytes));
  const notUtf8 = combined.filter((_, i) => texts[i] === null).map((c) => c.path);
  const patchBytes = concatBytes([...combined.map((c) => c.bytes), rendered.patchBytes]);
  let text: string | undefined;
  return {
    ...rendered,
    patchBytes,
    notUtf8: [...notUtf8, ...rendered.notUtf8],
    get patch() {
      return text ??= combined.map((c, i) => texts[i] ?? bytesToByteString(c.bytes)).join("") + rendered.patch;
    },
  };
}

/** `git show <rev>:<path>`: the file (or folder listing) at that commit. */
async function showPath(
  // deno-lint-ignore no-explicit-any
  ctx: CommandContext<any, any>,
  repo: Repo,
  policy: PathPolicy,
  rel: string,
  rev: string,
) {
  const colon = rev.indexOf(":");
  const path = normalizeUserPath(rev.slice(colon + 1));
  const hidden = path === "" ? null : policy.hidden(path);
  if (hidden) throw hiddenPathDenied(path, hidden, "its content is never printed");
  const oid = await resolveRevision(repo, rev);
  const object = await repo.objects.read(oid);
  if (object.type === "tree") {
    // Secret entries (secrets/, .env*) stay invisible here too, as in status and ls-files.
    const names = parseTree(object.content)
      .filter((e) => !policy.hidden(path ? `${path}/${e.name}` : e.name))
      .map((e) => e.mode === "40000" ? `${e.name}/` : e.name);
    ctx.stdout.write(names.join("\n") + (names.length ? "\n" : ""));
    return {
      repo_path: rel,
      rev,
      path,
      object_id: oid,
      type: "tree",
      entries: names,
      binary: false,
      not_utf8: false,
      content_artifact: null,
    };
  }
  if (object.type !== "blob") {
    throw new PtermError("InvalidArgs", `\`${rev}\` is a ${object.type}, not a file.`);
  }
  const binary = object.content.subarray(0, 8000).includes(0);
  const budget = Math.max(1024, ctx.limits.stdout_bytes - 512);
  // Text that is not UTF-8 (Latin-1, Shift_JIS…) shows one character per byte, never U+FFFD; its bytes are the artifact.
  const text = binary ? null : strictUtf8(object.content);
  const notUtf8 = !binary && text === null;
  let artifact: string | null = null;
  if (binary || notUtf8 || object.content.length > budget) {
    const name = path.split("/").pop() || "file";
    const ref = await ctx.artifacts.save(name, object.content, {
      mime: binary || notUtf8 ? "application/octet-stream" : "text/plain",
      description: `${path} at ${rev.slice(0, colon) || "the index"}`,
    });
    artifact = ref.path;
  }
  if (binary) {
    ctx.stdout.write(`${path} is binary (${object.content.length} bytes); it is in the artifact ${artifact}.\n`);
  } else ctx.stdout.write(text ?? bytesToByteString(object.content));
  if (notUtf8) {
    ctx.stderr.write(
      `[Warning] ${quoteName(path)} is not UTF-8: stdout shows each of its bytes as one character (as Latin-1); ` +
        `its bytes are the artifact ${artifact}.\n`,
    );
  }
  return {
    repo_path: rel,
    rev,
    path,
    object_id: oid,
    type: "blob",
    entries: null,
    binary,
    not_utf8: notUtf8,
    content_artifact: artifact,
  };
}

/**
 * Where `log --all` starts, in git's order (every ref by name, then HEAD): commits with equal dates
 * are listed in the order their starting points were given, so the order matters.
 */
async function allStarts(repo: Repo): Promise<string[]> {
  const refs = [...listRefs(repo, "refs")].filter(([name]) => name !== "refs/stash").sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0
  );
  const starts: string[] = [];
  for (const [, oid] of refs) {
    try {
      starts.push(await peelTo(repo, oid, "commit", oid));
    } catch { /* a tag of a tree or blob leads to no commit */ }
  }
  const head = readHead(repo).oid;
  if (head) starts.push(head);
  return starts;
}

/** The commit filter of --since, --until, --author and --grep, as git applies them; null when none is given. */
function logFilter(
  repo: Repo,
  policy: PathPolicy,
  paths: string[],
  flags: {
    since?: string;
    until?: string;
    author?: string;
    grep?: string;
    "regexp-ignore-case": boolean;
    "pickaxe-string"?: string;
    "pickaxe-grep"?: string;
    "pickaxe-regex"?: boolean;
  },
): ((commit: Commit, oid: string) => boolean | Promise<boolean>) | undefined {
  const since = flags.since === undefined ? null : parseApproxDate(flags.since);
  const until = flags.until === undefined ? null : parseApproxDate(flags.until);
  const ignoreCase = flags["regexp-ignore-case"];
  const author = flags.author === undefined ? null : compilePattern(flags.author, { ignoreCase });
  const grep = flags.grep === undefined ? null : compilePattern(flags.grep, { ignoreCase });
  const pickaxe = pickaxeOf(repo, policy, paths, flags);
  if (since === null && until === null && !author && !grep && !pickaxe) return undefined;
  return (commit, oid) => {
    // git compares the committer date for --since/--until.
    if (since !== null && commit.committer.timestamp < since) return false;
    if (until !== null && commit.committer.timestamp > until) return false;
    if (author && !author.test(`${commit.author.name} <${commit.author.email}>`)) return false;
    if (grep && !commit.message.split("\n").some((line) => grep.test(line))) return false;
    return pickaxe ? pickaxe(commit, oid) : true;
  };
}

/**
 * git's pickaxe over a commit's diff against its first parent (none for a merge, as git log shows
 * merges no diff): -S counts the occurrences of a string (or, with --pickaxe-regex, of a POSIX
 * extended expression's matches) in each changed file before and after, and keeps the commit when
 * a count changed; -G keeps it when an added or removed line matches (binary files skipped, as
 * git skips them for -G without --text).
 */
function pickaxeOf(
  repo: Repo,
  policy: PathPolicy,
  paths: string[],
  flags: {
    "pickaxe-string"?: string;
    "pickaxe-grep"?: string;
    "pickaxe-regex"?: boolean;
    "regexp-ignore-case": boolean;
  },
): ((commit: Commit, oid: string) => Promise<boolean>) | null {
  const text = flags["pickaxe-string"];
  const lineRegex = flags["pickaxe-grep"];
  if (text === undefined && lineRegex === undefined) return null;
  if (text !== undefined && lineRegex !== undefined) {
    throw new PtermError("InvalidArgs", "give -S or -G, not both (as git).");
  }
  if (text === "" || lineRegex === "") throw new PtermError("InvalidArgs", "-S and -G need something to look for.");
  const ignoreCase = flags["regexp-ignore-case"];
  const decoder = new TextDecoder();
  const counter = text === undefined ? null : flags["pickaxe-regex"]
    ? (() => {
      const pattern = compilePattern(text, { syntax: "extended", ignoreCase });
      const global = new RegExp(pattern.source, pattern.flags + "g");
      return (s: string) => [...s.matchAll(global)].filter((m) => m[0] !== "").length;
    })()
    : (s: string) => {
      const hay = ignoreCase ? s.toLowerCase() : s;
      const needle = ignoreCase ? text.toLowerCase() : text;
      let count = 0;
      for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) count++;
      return count;
    };
  const grepLine = lineRegex === undefined ? null : compilePattern(lineRegex, { syntax: "extended", ignoreCase });
  return async (commit) => {
    if (commit.parents.length > 1) return false;
    const parentTree = commit.parents.length ? (await readCommit(repo, commit.parents[0])).tree : null;
    const changes = changesBetween(await flattenTree(repo, parentTree), await flattenTree(repo, commit.tree));
    // Renames are paired first, as git's diffcore runs rename detection before the pickaxe.
    const kept = await withRenames(repo, filterChanges(changes, paths, policy).kept, { "find-renames": 50 });
    const blob = async (side: { kind: string; oid?: string; mode: string } | null) =>
      side && side.kind === "blob" && !side.mode.startsWith("160")
        ? await repo.objects.readTyped(side.oid!, "blob")
        : new Uint8Array();
    if (counter) {
      for (const change of kept) {
        // -S searches binary files too (git skips them for -G only).
        const before = await blob(change.old);
        const after = await blob(change.new);
        if (counter(decoder.decode(before)) !== counter(decoder.decode(after))) return true;
      }
      return false;
    }
    const rendered = await renderDiff(repo, kept, { algorithm: lineAlgorithm(repo, {}) });
    let inHunk = false;
    for (const line of rendered.patch.split("\n")) {
      if (line.startsWith("diff --git ")) inHunk = false;
      else if (line.startsWith("@@")) inHunk = true;
      else if (inHunk && (line.startsWith("+") || line.startsWith("-")) && grepLine!.test(line.slice(1))) return true;
    }
    return false;
  };
}

/** Whether git's dense combined diff of a merge shows any path: one whose result differs from every parent's. */
async function combinedDiffHasPaths(repo: Repo, commit: Commit, againstFirst: RenderedDiff): Promise<boolean> {
  const result = await flattenTree(repo, commit.tree);
  const others: Map<string, FlatEntry>[] = [];
  for (const parent of commit.parents.slice(1)) {
    others.push(await flattenTree(repo, (await readCommit(repo, parent)).tree));
  }
  return againstFirst.files.some((file) => {
    const mine = result.get(file.path)?.oid;
    return others.every((tree) => tree.get(file.path)?.oid !== mine);
  });
}

/** The same diff with nothing in it (for a result whose diff git would not show). */
function emptyDiff(rendered: RenderedDiff): RenderedDiff {
  return { ...rendered, files: [], additions: 0, deletions: 0, patch: "", patchBytes: new Uint8Array() };
}

/** `--format`/`--pretty`/`--oneline` given: git's pretty output; null keeps pterm's one-line form. */
async function prettyOptions(
  repo: Repo,
  flags: { format?: string; oneline?: boolean; "abbrev-commit"?: boolean; decorate?: boolean; date?: string },
): Promise<(PrettyContext & { format: PrettyFormat }) | null> {
  const spec = flags.format ?? (flags.oneline ? "oneline" : undefined);
  if (spec === undefined) {
    if (flags.date !== undefined || flags.decorate || flags["abbrev-commit"]) {
      throw new PtermError(
        "InvalidArgs",
        "--date, --decorate and --abbrev-commit go with a git format: add --format=medium (git's default), " +
          "--oneline or --format=<template>.",
      );
    }
    return null;
  }
  const format = parsePretty(spec);
  if (format.kind === "template") {
    const unsupported = unsupportedPlaceholder(format.template);
    if (unsupported) {
      throw new PtermError(
        "InvalidArgs",
        `--format: ${unsupported}… (padding, wrapping, trailers or reflog fields) is not available in pterm; the ` +
          "other placeholders are (see --help).",
      );
    }
  }
  const wantsDecorations = flags.decorate || (format.kind === "template" && /%[dD]/.test(format.template));
  return {
    repo,
    format,
    date: parseDateMode(flags.date ?? (format.kind === "builtin" && format.name === "reference" ? "short" : undefined)),
    decorations: wantsDecorations ? await decorations(repo) : null,
    abbrevCommit: flags.oneline === true || flags["abbrev-commit"] === true,
  };
}

/** Formats whose commits are separated by a newline (git's !use_terminator). */
function separatorFormat(format: PrettyFormat): boolean {
  return format.kind === "template" ? !format.terminator : format.name !== "oneline" && format.name !== "reference";
}

/** Formats that end each commit with a newline (oneline, reference, tformat). */
function terminatorFormat(format: PrettyFormat): boolean {
  return format.kind === "template" ? format.terminator : format.name === "oneline" || format.name === "reference";
}

/** A commit's diff against its first parent (renames found), as log -p/--stat shows it. */
async function commitDiff(
  repo: Repo,
  id: string,
  paths: string[],
  policy: PathPolicy,
  algorithm: ReturnType<typeof lineAlgorithm> | undefined,
): Promise<RenderedDiff> {
  const commit = await readCommit(repo, id);
  const parentTree = commit.parents.length ? (await readCommit(repo, commit.parents[0])).tree : null;
  const changes = changesBetween(await flattenTree(repo, parentTree), await flattenTree(repo, commit.tree));
  const { kept } = filterChanges(changes, paths, policy);
  return await renderDiff(repo, await withRenames(repo, kept, { "find-renames": 50 }), { algorithm });
}

/** What a diff prints under a formatted commit: names, the stat, or the patch text (empty: nothing changed). */
function diffBody(rendered: RenderedDiff, flags: ViewFlags & { patch?: boolean }): string {
  if (rendered.files.length === 0) return "";
  if (flags["name-only"] || flags["name-status"]) return viewOf(rendered, flags) ?? "";
  return flags.stat && !flags.patch ? renderStat(rendered) : rendered.patch;
}

export const log: Handler<typeof logFlags, readonly [{ name: "args"; description: string; variadic: true }]> = async (
  ctx,
) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const split = await splitRevsAndPaths(ctx, repo, ctx.positionals.args, 1);
  if (split.revs.length && ctx.flags.ref !== undefined) {
    throw new PtermError("InvalidArgs", `give the revision once: --ref ${ctx.flags.ref} or \`${split.revs[0]}\`.`);
  }
  const ref = split.revs[0] ?? ctx.flags.ref ?? "HEAD";
  if (ref === "HEAD" && !readHead(repo).oid) {
    ctx.stdout.write("No commits yet.\n");
    return { repo_path: rel, commits: [] };
  }
  const ends = await rangeEnds(repo, ref);
  const explicit = split.revs.length > 0 || ctx.flags.ref !== undefined;
  const all = ctx.flags.all ? await allStarts(repo) : [];
  // `--all` alone starts from the refs in git's order; a revision given with it comes first.
  const start = all.length && !explicit ? all[0] : await resolveCommit(repo, ends ? ends[1] : ref);
  const hide = ends ? await ancestorsOf(repo, await resolveCommit(repo, ends[0])) : new Set<string>();
  const paths = userPaths([...ctx.flags.path, ...split.paths]);
  const commits = await walkLog(repo, start, ctx.flags.max, paths.length ? paths : null, hide, {
    starts: all,
    keep: logFilter(repo, policy, paths, ctx.flags),
  });
  const names = ctx.flags["name-only"] || ctx.flags["name-status"];
  const withDiff = ctx.flags.stat || ctx.flags.patch || names;
  const algorithm = withDiff ? lineAlgorithm(repo, ctx.flags) : undefined;
  const pretty = await prettyOptions(repo, ctx.flags);
  // Each commit's line, then (with --stat/-p) its diff; a patch is kept as git's bytes (see emit).
  const parts: (string | RenderedDiff)[] = [];
  const notUtf8 = new Set<string>();
  const otherFunctionLines = new Map<string, string>();
  for (const [i, c] of commits.entries()) {
    if (pretty) {
      // git's log-tree: a separator before each commit but the first (separator formats), the
      // entry, a newline before its diff (`---` with both stat and patch) unless oneline.
      const { format } = pretty;
      if (i > 0 && separatorFormat(format)) parts.push("\n");
      const entry = prettyCommit(pretty, format, c.id, await readCommit(repo, c.id));
      parts.push(entry + (terminatorFormat(format) ? "\n" : ""));
      // git log -p/--stat shows no diff for a merge (diff-merges is off by default).
      if (!withDiff || c.parents.length > 1) continue;
      const rendered = await commitDiff(repo, c.id, paths, policy, algorithm);
      const body = diffBody(rendered, ctx.flags);
      if (body === "") continue;
      if (!(format.kind === "builtin" && format.name === "oneline")) {
        parts.push(ctx.flags.stat && ctx.flags.patch && !names ? "---\n" : "\n");
      }
      if (ctx.flags.patch && !names) {
        if (ctx.flags.stat) parts.push(`${renderStat(rendered)}\n`);
        parts.push(rendered);
        for (const path of rendered.notUtf8) notUtf8.add(path);
        for (const [path, driver] of rendered.otherFunctionLines) otherFunctionLines.set(path, driver);
      } else parts.push(body);
      continue;
    }
    const line = `${c.short_id} ${c.author.time.slice(0, 10)} ${c.author.name}: ${c.subject}`;
    if (parts.length) parts.push("\n");
    if (!withDiff) {
      parts.push(line);
      continue;
    }
    const commit = await readCommit(repo, c.id);
    const parentTree = commit.parents.length ? (await readCommit(repo, commit.parents[0])).tree : null;
    const changes = changesBetween(await flattenTree(repo, parentTree), await flattenTree(repo, commit.tree));
    const { kept } = filterChanges(changes, paths, policy);
    // git log -p/--stat detect renames as git diff does (diff.renames defaults to true).
    const rendered = await renderDiff(repo, await withRenames(repo, kept, { "find-renames": 50 }), { algorithm });
    const view = viewOf(rendered, {
      stat: ctx.flags.stat && !ctx.flags.patch,
      "name-only": ctx.flags["name-only"],
      "name-status": ctx.flags["name-status"],
    });
    parts.push(`${line}\n${ctx.flags.stat && ctx.flags.patch ? renderStat(rendered) : ""}`);
    if (view !== null) parts.push(view);
    else {
      parts.push(rendered);
      for (const path of rendered.notUtf8) notUtf8.add(path);
      for (const [path, driver] of rendered.otherFunctionLines) otherFunctionLines.set(path, driver);
    }
  }
  if (!pretty) parts.push("\n");
  const size = parts.reduce((sum, part) => sum + (typeof part === "string" ? part.length : part.patchBytes.length), 0);
  const budget = Math.max(1024, ctx.limits.stdout_bytes - 512);
  const text = () => parts.map((part) => typeof part === "string" ? part : part.patch).join("");
  if (withDiff && (size > budget || notUtf8.size)) {
    const bytes = concatBytes(parts.map((part) => typeof part === "string" ? encoder.encode(part) : part.patchBytes));
    const saved = await ctx.artifacts.save("log.txt", bytes, {
      mime: "text/plain",
      description: "the full log (patches as git's bytes)",
    });
    if (size > budget) {
      ctx.stdout.write(
        commits.map((c) => `${c.short_id} ${c.author.time.slice(0, 10)} ${c.author.name}: ${c.subject}`).join("\n") +
          `\nThe log with ${
            ctx.flags.patch ? "patches" : "diffstats"
          } is ${bytes.length} bytes; it is in the artifact ${saved.path}.\n`,
      );
    } else ctx.stdout.write(text());
    if (notUtf8.size) ctx.stderr.write(notUtf8Warning([...notUtf8].sort(), saved.path));
  } else ctx.stdout.write(text());
  if (otherFunctionLines.size) ctx.stderr.write(functionLineNote(otherFunctionLines));
  return { repo_path: rel, commits };
};

export const show: Handler<typeof showFlags, readonly [{ name: "rev"; description: string }]> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const rev = ctx.positionals.rev ?? "HEAD";
  if (rev.includes(":")) return await showPath(ctx, repo, policy, rel, rev);
  const object = await resolveRevision(repo, rev);
  const peeled = await peel(repo, object);
  let tag = null;
  if ((await repo.objects.read(object)).type === "tag") {
    const parsed = parseTag((await repo.objects.read(object)).content);
    tag = await describeTag(repo, parsed.tag, object);
  }
  if (peeled.type !== "commit") {
    throw new PtermError("InvalidArgs", `\`${rev}\` is a ${peeled.type}; git show in pterm shows commits and tags.`);
  }
  const id = await peelTo(repo, object, "commit", rev);
  const commit = await readCommit(repo, id);
  const parentTree = commit.parents.length ? (await readCommit(repo, commit.parents[0])).tree : null;
  const changes = changesBetween(await flattenTree(repo, parentTree), await flattenTree(repo, commit.tree));
  const { kept, withheld } = filterChanges(changes, userPaths(ctx.flags.path), policy);
  const rendered = await renderDiff(repo, await withRenames(repo, kept, ctx.flags), {
    algorithm: lineAlgorithm(repo, ctx.flags),
  });
  const described = describeCommit(id, commit);
  const pretty = await prettyOptions(repo, ctx.flags);
  if (pretty) {
    // git show with a format: the tag's header as always, then the commit in that format, and a
    // newline before the diff unless oneline (log-tree's rule); an empty diff prints nothing.
    const { format } = pretty;
    const entry = prettyCommit(pretty, format, id, commit) + (terminatorFormat(format) ? "\n" : "");
    const tagObject = tag?.type === "annotated" ? parseTag((await repo.objects.read(object)).content) : null;
    const tagHeader = tagObject ? prettyTagHeader(pretty, format, tag!.name, tagObject) : "";
    const oneline = format.kind === "builtin" && format.name === "oneline";
    const patchView = !ctx.flags.stat && !ctx.flags["name-only"] && !ctx.flags["name-status"] &&
      !ctx.flags["no-patch"];
    if (commit.parents.length > 1 && patchView) {
      // git shows a merge's dense combined diff (--cc): only paths whose result differs from every
      // parent. With none (a merge without conflict resolutions) that is an empty diff; otherwise
      // pterm, which has no combined diff, shows the first parent's and says so.
      if (!(await combinedDiffHasPaths(repo, commit, rendered))) {
        // git's combined diff ends the header with a newline even when it shows no path (oneline too).
        ctx.stdout.write(tagHeader + entry + "\n");
        const none = await emit(ctx, emptyDiff(rendered), { "no-patch": true }, "", "");
        return { repo_path: rel, commit: described, tag, ...none, withheld };
      }
      ctx.stderr.write(
        "[Note] git shows a merge's combined diff (--cc); pterm has none and shows the diff against the first " +
          "parent.\n",
      );
    }
    const out = await emit(
      ctx,
      rendered,
      ctx.flags,
      (hasDiff) => tagHeader + entry + (hasDiff && !oneline ? "\n" : ""),
      "",
    );
    if (withheld.length) ctx.stderr.write(`${plural(withheld.length, "secret path")} withheld from the diff.\n`);
    return { repo_path: rel, commit: described, tag, ...out, withheld };
  }
  const header = [
    ...(tag?.type === "annotated" ? [`tag ${tag.name}`, "", tag.message ?? "", ""] : []),
    `commit ${id}`,
    ...(commit.parents.length > 1 ? [`Merge: ${commit.parents.map((p) => p.slice(0, 7)).join(" ")}`] : []),
    `Author: ${commit.author.name} <${commit.author.email}>`,
    `Date:   ${described.author.time}`,
    "",
    ...commit.message.replace(/\n+$/, "").split("\n").map((l) => `    ${l}`),
    "",
    ...(commit.parents.length > 1 ? ["(merge commit: the diff is against the first parent)", ""] : []),
    "",
  ].join("\n");
  const out = await emit(ctx, rendered, ctx.flags, header);
  if (withheld.length) ctx.stderr.write(`${plural(withheld.length, "secret path")} withheld from the diff.\n`);
  return { repo_path: rel, commit: described, tag, ...out, withheld };
};

/**
 * `git stash show [-p] [-u] [stash@{N}]`: what the entry saved against the commit it was made on
 * (its first parent) — a diffstat by default, as git's stash.showStat, the patch with -p; with -u
 * the untracked files it saved (its third parent) as added files, as git 2.32+.
 */
export const stashShow: Handler<typeof stashShowFlags, readonly [{ name: "stash"; description: string }]> = async (
  ctx,
) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const n = parseStashRef(ctx.positionals.stash as string | undefined);
  const entry = listStash(repo)[n];
  if (!entry) {
    throw new PtermError(
      "NotFound",
      `there is no stash@{${n}}; \`git stash list --repo ${rel}\` lists the entries.`,
    );
  }
  const commit = await readCommit(repo, entry.commit_id);
  const base = await flattenTree(repo, (await readCommit(repo, commit.parents[0])).tree);
  const saved = await flattenTree(repo, commit.tree);
  if (ctx.flags["include-untracked"] && commit.parents[2]) {
    for (const [path, file] of await flattenTree(repo, (await readCommit(repo, commit.parents[2])).tree)) {
      saved.set(path, file);
    }
  }
  const { kept, withheld } = filterChanges(changesBetween(base, saved), [], policy);
  const rendered = await renderDiff(repo, await withRenames(repo, kept, { "find-renames": 50 }), {
    algorithm: lineAlgorithm(repo, {}),
  });
  const stat = !ctx.flags.patch || ctx.flags.stat;
  const out = await emit(
    ctx,
    rendered,
    {
      stat: stat && !ctx.flags["name-only"] && !ctx.flags["name-status"],
      "name-only": ctx.flags["name-only"],
      "name-status": ctx.flags["name-status"],
    },
    "",
    "",
  );
  if (withheld.length) ctx.stderr.write(`${plural(withheld.length, "secret path")} withheld from the diff.\n`);
  return { repo_path: rel, stash: `stash@{${n}}`, commit_id: entry.commit_id, ...out, withheld };
};

/** `git reflog [show] [<ref>] [-n N]`: git's `<abbrev> <ref>@{N}: <message>` lines, newest first. */
export const reflog: Handler<typeof reflogFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, rel } = await openFromFlags(ctx, "read");
    const words = [...ctx.positionals.args];
    if (words[0] === "show") words.shift();
    if (words.length > 1) {
      throw new PtermError("InvalidArgs", "git reflog shows one ref: `git reflog [show] [<ref>]` (default HEAD).");
    }
    const spelled = words[0] ?? "HEAD";
    const ref = spelled === "HEAD" ? "HEAD" : dwimRef(repo, spelled);
    if (!ref) {
      throw new PtermError("NotFound", `there is no ref \`${spelled}\`; \`git branch --all\` lists them.`);
    }
    const entries = readReflog(repo, ref).reverse().slice(0, ctx.flags.max).map((e, i) => ({
      selector: `${spelled}@{${i}}`,
      commit_id: e.newOid,
      previous: /^0{40}$/.test(e.oldOid) ? null : e.oldOid,
      message: e.message,
    }));
    ctx.stdout.write(
      entries.length
        ? entries.map((e) => `${abbreviate(repo, e.commit_id)} ${e.selector}: ${e.message}`).join("\n") + "\n"
        : `${spelled} has no reflog entries.\n`,
    );
    return { repo_path: rel, ref, entries };
  };

const MAX_GREP_MATCHES = 5000;

export const grep: Handler<typeof grepFlags, readonly [{ name: "args"; description: string; variadic: true }]> = async (
  ctx,
) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const words = [...ctx.positionals.args];
  const pattern = ctx.flags.regexp ?? words.shift();
  if (pattern === undefined) {
    throw new PtermError("InvalidArgs", 'git grep needs a pattern: `git grep -n "text"` (paths may follow).');
  }
  if (ctx.flags["extended-regexp"] && ctx.flags["fixed-strings"]) {
    throw new PtermError("InvalidArgs", "give -E (extended) or -F (fixed strings), not both.");
  }
  const matcher = compilePattern(pattern, {
    syntax: ctx.flags["fixed-strings"] ? "fixed" : ctx.flags["extended-regexp"] ? "extended" : "basic",
    ignoreCase: ctx.flags["ignore-case"],
    word: ctx.flags["word-regexp"],
  });
  const scope = userPaths([...ctx.flags.path, ...words]);
  const inScope = (path: string) => scope.length === 0 || scope.some((s) => s === "" || pathWithin(path, s));
  const index = readIndexFile(repo.gitdir);
  const candidates = new Map<string, string | null>();
  for (const [path, entry] of index.entries) {
    if (entry.mode === S_IFGITLINK || !inScope(path) || policy.hidden(path)) continue;
    candidates.set(path, ctx.flags.cached ? entry.oid : null);
  }
  if (ctx.flags.untracked && !ctx.flags.cached) {
    const report = await worktreeStatus(repo, index, policy, { untracked: true, submodules: "all" });
    for (const path of report.untracked ?? []) if (inScope(path) && !policy.hidden(path)) candidates.set(path, null);
  }
  const decoder = new TextDecoder();
  const lines: string[] = [];
  const matches: { path: string; line: number; text: string }[] = [];
  const files: { path: string; count: number }[] = [];
  for (const path of [...candidates.keys()].sort()) {
    if (ctx.signal.aborted) break;
    const oid = candidates.get(path)!;
    let bytes: Uint8Array;
    if (oid) bytes = (await repo.objects.read(oid)).content;
    else {
      // Never through a symlinked folder (Deno's permission check would not see where it leads); a link
      // itself is searched as its target text, as git greps the blob it stages.
      const info = lstatTracked(repo, path);
      // Deleted in the work tree, or a FIFO/socket/device there: nothing to search, as git grep.
      if (!info || !(info.isFile || info.isSymlink)) continue;
      bytes = info.isSymlink
        ? new TextEncoder().encode(Deno.readLinkSync(`${repo.dir}/${path}`))
        : await Deno.readFile(`${repo.dir}/${path}`);
    }
    const texts = decoder.decode(bytes).split("\n");
    if (texts[texts.length - 1] === "") texts.pop();
    let count = 0;
    const binary = bytes.subarray(0, 8000).includes(0);
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i].replace(/\r$/, "");
      if (matcher.test(text) === ctx.flags["invert-match"]) continue;
      count++;
      if (binary) break;
      if (matches.length < MAX_GREP_MATCHES) matches.push({ path, line: i + 1, text });
      if (!ctx.flags["files-with-matches"] && !ctx.flags.count) {
        lines.push(`${quoteName(path)}:${ctx.flags["line-number"] ? `${i + 1}:` : ""}${text}`);
      }
    }
    if (count === 0) continue;
    files.push({ path, count });
    if (binary && !ctx.flags["files-with-matches"] && !ctx.flags.count) {
      lines.push(`Binary file ${quoteName(path)} matches`);
    }
    if (ctx.flags["files-with-matches"]) lines.push(quoteName(path));
    if (ctx.flags.count) lines.push(`${quoteName(path)}:${count}`);
  }
  ctx.stdout.write(lines.length ? lines.join("\n") + "\n" : "No matches.\n");
  return {
    repo_path: rel,
    pattern,
    matched: files.length > 0,
    files,
    matches,
    truncated: matches.length >= MAX_GREP_MATCHES,
  };
};

/** `-L` as git reads it: `a,b`, `a,+n`, `a,` (to the end), `,b` (from the start); 1-based, inclusive. */
function lineRange(spec: string | undefined, total: number): [number, number] {
  if (spec === undefined) return [1, total];
  const match = spec.match(/^(\d*),(\+?)(\d*)$/) ?? spec.match(/^(\d+)()()$/);
  if (!match) throw new PtermError("InvalidArgs", `-L ${spec}: write -L <start>,<end> (e.g. 10,20 or 10,+5).`);
  const start = match[1] ? Number(match[1]) : 1;
  const end = match[3] === "" ? total : match[2] ? start + Number(match[3]) - 1 : Number(match[3]);
  if (start < 1 || start > Math.max(total, 1) || end < start) {
    throw new PtermError("InvalidArgs", `-L ${spec}: the file has ${total} lines.`);
  }
  return [start, Math.min(end, total)];
}

export const blame: Handler<typeof blameFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, policy, rel } = await openFromFlags(ctx, "read");
    const split = await splitRevsAndPaths(ctx, repo, ctx.positionals.args, 1);
    const paths = userPaths([...ctx.flags.path, ...split.paths]);
    if (paths.length !== 1 || paths[0] === "") {
      throw new PtermError(
        "InvalidArgs",
        "git blame takes one file: `git blame <file>` (or `git blame <rev> -- <file>`).",
      );
    }
    const path = paths[0];
    const hidden = policy.hidden(path);
    if (hidden) throw hiddenPathDenied(path, hidden, "its content is never shown");
    const rev = split.revs[0];
    const head = readHead(repo).oid;
    const start = rev === undefined ? head : await resolveCommit(repo, rev);
    let text: string;
    if (rev === undefined) {
      const info = lstatTracked(repo, path);
      if (!info || info.isDirectory) {
        throw new PtermError(
          "NotFound",
          `${path} is not a file in the work tree; \`git blame HEAD -- ${quoteName(path)}\` blames HEAD's.`,
        );
      }
      // The work tree's file in git's form (autocrlf, eol, ident undone), as git blame compares it.
      text = new TextDecoder().decode(await worktreeBlob(repo, path, info));
      if (!start || !(await lookupPath(repo, (await readCommit(repo, start)).tree, path))) {
        throw new PtermError("NotFound", `no such path ${path} in HEAD: blame works on committed files.`);
      }
    } else {
      const found = await lookupPath(repo, (await readCommit(repo, start!)).tree, path);
      if (!found || found.mode === "40000") throw new PtermError("NotFound", `no such file ${path} in ${rev}.`);
      text = new TextDecoder().decode((await repo.objects.read(found.oid)).content);
    }
    const blamed = await blameLines(repo, start, path, text, rev === undefined);
    const [from, to] = lineRange(ctx.flags.lines, blamed.length);
    const authors = new Map<string, { author: string; email: string; time: string | null }>();
    for (const b of blamed.slice(from - 1, to)) {
      if (authors.has(b.commit)) continue;
      if (b.commit === NOT_COMMITTED) {
        authors.set(b.commit, { author: "Not Committed Yet", email: "not.committed.yet", time: null });
        continue;
      }
      const c = describeCommit(b.commit, await readCommit(repo, b.commit));
      authors.set(b.commit, { author: c.author.name, email: c.author.email, time: c.author.time });
    }
    const rows = blamed.slice(from - 1, to).map((b) => ({ ...b, ...authors.get(b.commit)! }));
    const width = String(to).length;
    ctx.stdout.write(
      rows.map((r) => {
        const id = ctx.flags.long ? r.commit : r.commit.slice(0, r.boundary ? 7 : 8);
        const who = ctx.flags["show-email"] ? `<${r.email}>` : r.author;
        const meta = ctx.flags.suppress ? "" : `${who} ${r.time ? r.time.replace("T", " ").replace(/Z$/, "") : ""} `;
        return `${r.boundary ? "^" : ""}${id} (${meta}${String(r.line).padStart(width)}) ${r.text}`;
      }).join("\n") + (rows.length ? "\n" : ""),
    );
    const listed = bounded(rows, 5000);
    return {
      repo_path: rel,
      path,
      rev: rev ?? "HEAD",
      lines: listed.items.map((r) => ({
        line: r.line,
        commit: r.commit,
        boundary: r.boundary,
        author: r.author,
        time: r.time,
        text: r.text,
      })),
      truncated: listed.truncated,
    };
  };
