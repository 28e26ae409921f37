/**
 * `show`: one git subcommand's handler (its declaration is under sub/).
 */

import type { CommandContext, Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { showFlags } from "../sub/show.ts";
import { changesBetween, diffPrefixes, lineAlgorithm, renderDiff, type RenderedDiff } from "../diff/diff.ts";
import { parseTree } from "../odb/objects.ts";
import { describeCommit, readCommit } from "../history/log.ts";
import { parseTag } from "../odb/objects.ts";
import { describeTag } from "../porcelain/tags.ts";
import type { Commit } from "../odb/objects.ts";
import { peel, peelTo, resolveRevision } from "../history/revparse.ts";
import type { Repo } from "../repo/repo.ts";
import { type FlatEntry, flattenTree } from "../odb/tree.ts";
import { hiddenPathDenied, normalizeUserPath, type PathPolicy } from "../worktree/worktree.ts";
import { openFromFlags, plural, userPaths } from "./common.ts";
import { bytesToByteString, comparePaths, quoteName, ZERO_OID } from "../odb/bytes.ts";
import { combinedDiff, type CombinedParent } from "../diff/combined_diff.ts";
import { withCombined } from "./diff.ts";
import { prettyCommit, prettyTagHeader } from "../history/pretty.ts";
import { emit, filterChanges, prettyOptions, strictUtf8, terminatorFormat, withRenames } from "./history_shared.ts";

/** `git show <rev>:<path>`: the file (or folder listing) at that commit. */
export async function showPath(
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
      `[Warning] ${
        quoteName(path, repo.quotePath)
      } is not UTF-8: stdout shows each of its bytes as one character (as Latin-1); ` +
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

/** A path of a merge's combined diff: the merge's entry (null: deleted) and each parent's (null: absent). */
interface MergePath {
  readonly path: string;
  readonly result: FlatEntry | null;
  readonly parents: readonly (FlatEntry | null)[];
}

/**
 * The paths git's combined diff of a merge shows (diff_tree_combined): those whose result differs
 * from every parent's, in path order, among `scope` (the first parent's diff as filtered).
 */
async function mergePaths(repo: Repo, commit: Commit, againstFirst: readonly string[]): Promise<MergePath[]> {
  const result = await flattenTree(repo, commit.tree);
  const parents: Map<string, FlatEntry>[] = [];
  for (const parent of commit.parents) parents.push(await flattenTree(repo, (await readCommit(repo, parent)).tree));
  const same = (a: FlatEntry | undefined, b: FlatEntry | undefined) => a?.oid === b?.oid && a?.mode === b?.mode;
  return [...new Set(againstFirst)].sort(comparePaths)
    .filter((path) => parents.every((tree) => !same(tree.get(path), result.get(path))))
    .map((path) => ({
      path,
      result: result.get(path) ?? null,
      parents: parents.map((tree) => tree.get(path) ?? null),
    }));
}

const asParent = (entry: FlatEntry | null): CombinedParent =>
  entry ? { oid: entry.oid, mode: entry.mode } : { oid: ZERO_OID, mode: "000000" };

/** git's `--name-only` / `--name-status` of a merge: each combined path, with one status letter per parent. */
function mergeNames(paths: readonly MergePath[], status: boolean, quotePath: boolean): string {
  return paths.map((p) =>
    (status ? p.parents.map((e) => (e === null ? "A" : p.result === null ? "D" : "M")).join("") + "\t" : "") +
    quoteName(p.path, quotePath) + "\n"
  ).join("");
}

/** The same diff with nothing in it (for a result whose diff git would not show). */
export function emptyDiff(rendered: RenderedDiff): RenderedDiff {
  return { ...rendered, files: [], additions: 0, deletions: 0, patch: "", patchBytes: new Uint8Array() };
}

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
  const patchView = !ctx.flags.stat && !ctx.flags["name-only"] && !ctx.flags["name-status"] &&
    !ctx.flags["no-patch"];
  const prefixes = patchView ? diffPrefixes(repo) : undefined;
  const rendered = await renderDiff(repo, await withRenames(repo, kept, ctx.flags), {
    algorithm: lineAlgorithm(repo, ctx.flags),
    prefixes,
  });
  const described = describeCommit(id, commit);
  const pretty = await prettyOptions(repo, ctx.flags);
  // git show in its format (git's medium by default): the tag's header, then the commit, and a
  // newline before the diff unless oneline (log-tree's rule); an empty diff prints nothing.
  const { format } = pretty;
  const entry = prettyCommit(pretty, format, id, commit) + (terminatorFormat(format) ? "\n" : "");
  const tagObject = tag?.type === "annotated" ? parseTag((await repo.objects.read(object)).content) : null;
  const tagHeader = tagObject ? prettyTagHeader(pretty, format, tag!.name, tagObject) : "";
  const oneline = format.kind === "builtin" && format.name === "oneline";
  if (commit.parents.length > 1 && (patchView || ctx.flags["name-only"] || ctx.flags["name-status"])) {
    // git shows a merge as its dense combined diff (--cc): only paths whose result differs from
    // every parent, each hunk kept only where the result differs from every parent; after the header
    // comes a newline even when no path is left (oneline too).
    const paths = await mergePaths(repo, commit, [
      ...rendered.files.map((f) => f.path),
      ...rendered.files.flatMap((f) => f.old_path ? [f.old_path] : []),
    ]);
    ctx.stdout.write(tagHeader + entry + "\n");
    if (!patchView) {
      ctx.stdout.write(mergeNames(paths, !!ctx.flags["name-status"], repo.quotePath));
      const none = await emit(ctx, emptyDiff(rendered), { "no-patch": true }, "", "");
      return { repo_path: rel, commit: described, tag, ...none, withheld };
    }
    const combined: { path: string; bytes: Uint8Array }[] = [];
    for (const p of paths) {
      const bytes = await combinedDiff(repo, p.path, p.parents.map(asParent), {
        prefixes,
        context: 3,
        dense: true,
        algorithm: lineAlgorithm(repo, ctx.flags),
        result: p.result ? asParent(p.result) : null,
      });
      if (bytes.length) combined.push({ path: p.path, bytes });
    }
    const out = await emit(ctx, withCombined(emptyDiff(rendered), combined), ctx.flags, "", "");
    if (withheld.length) ctx.stderr.write(`${plural(withheld.length, "secret path")} withheld from the diff.\n`);
    return { repo_path: rel, commit: described, tag, ...out, withheld };
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
};
