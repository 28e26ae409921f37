/**
 * `describe`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { describeFlags } from "../sub/describe.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { parseTag } from "../odb/objects.ts";
import { listRefs, readHead } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { loadIndex } from "../repo/state.ts";
import { computeStatus } from "../porcelain/status.ts";
import { readCommit } from "../history/log.ts";
import { resolveCommit } from "../history/revparse.ts";
import { openFromFlags } from "./common.ts";

/** A tag that can name a commit: annotated (priority 2) or lightweight (1), as git describe ranks them. */
interface TagName {
  readonly name: string;
  readonly priority: 1 | 2;
  readonly taggerTime: number;
  /** The annotated tag's own name when it differs from its ref's: git warns and always adds the suffix. */
  readonly misnamed: string | null;
}

/**
 * Each commit's best tag (git describe's replace_name): annotated over lightweight; of two
 * annotated tags on one commit the newer tagger date; otherwise the first in ref order.
 */
async function tagNames(repo: Repo): Promise<Map<string, TagName>> {
  const names = new Map<string, TagName>();
  for (const [ref, oid] of listRefs(repo, "refs/tags")) {
    const name = ref.slice("refs/tags/".length);
    let target = oid;
    let candidate: TagName = { name, priority: 1, taggerTime: 0, misnamed: null };
    const object = await repo.objects.read(oid).catch(() => null);
    if (!object) continue;
    if (object.type === "tag") {
      const tag = parseTag(object.content);
      candidate = {
        name,
        priority: 2,
        taggerTime: tag.tagger?.timestamp ?? 0,
        misnamed: tag.tag !== name ? tag.tag : null,
      };
      target = tag.object;
      // A tag of a tag names what the innermost one names.
      for (let depth = 0; depth < 10; depth++) {
        const inner = await repo.objects.read(target).catch(() => null);
        if (inner?.type !== "tag") break;
        target = parseTag(inner.content).object;
      }
    }
    const existing = names.get(target);
    const replace = !existing || existing.priority < candidate.priority ||
      (existing.priority === 2 && candidate.priority === 2 && existing.taggerTime < candidate.taggerTime);
    if (replace) names.set(target, candidate);
  }
  return names;
}

interface Candidate {
  readonly name: TagName;
  depth: number;
  readonly flag: number;
  readonly foundOrder: number;
}

const MAX_CANDIDATES = 10;

/**
 * git describe's walk: commits by committer date from `start`; each tagged commit met is a
 * candidate whose depth counts the commits walked that it does not reach; the walk stops once an
 * annotated candidate covers every remaining path, then finishes the best one's depth.
 */
async function nearestTag(
  repo: Repo,
  start: string,
  names: Map<string, TagName>,
  withLightweight: boolean,
): Promise<{ best: Candidate | null; unannotated: number }> {
  const flags = new Map<string, number>([[start, 0]]);
  const seen = new Set<string>([start]);
  const dates = new Map<string, number>();
  const dateOf = async (oid: string) => {
    let date = dates.get(oid);
    if (date === undefined) dates.set(oid, date = (await readCommit(repo, oid)).committer.timestamp);
    return date;
  };
  const list: string[] = [start];
  const insertByDate = async (oid: string) => {
    const date = await dateOf(oid);
    let at = 0;
    while (at < list.length && (await dateOf(list[at])) >= date) at++;
    list.splice(at, 0, oid);
  };
  const matches: Candidate[] = [];
  let seenCommits = 0;
  let annotated = 0;
  let unannotated = 0;
  let gaveUpOn: string | null = null;
  const visitParents = async (oid: string) => {
    for (const parent of (await readCommit(repo, oid)).parents) {
      if (!seen.has(parent)) {
        seen.add(parent);
        await insertByDate(parent);
      }
      flags.set(parent, (flags.get(parent) ?? 0) | (flags.get(oid) ?? 0));
    }
  };
  while (list.length) {
    const c = list.shift()!;
    seenCommits++;
    const name = names.get(c);
    if (name) {
      if (!withLightweight && name.priority < 2) unannotated++;
      else if (matches.length < MAX_CANDIDATES) {
        const flag = 2 ** (matches.length + 1);
        matches.push({ name, depth: seenCommits - 1, flag, foundOrder: matches.length + 1 });
        flags.set(c, (flags.get(c) ?? 0) | flag);
        if (name.priority === 2) annotated++;
      } else {
        gaveUpOn = c;
        break;
      }
    }
    for (const m of matches) if (!((flags.get(c) ?? 0) & m.flag)) m.depth++;
    if (annotated && !list.length) break;
    await visitParents(c);
  }
  if (!matches.length) return { best: null, unannotated };
  matches.sort((a, b) => a.depth - b.depth || a.foundOrder - b.foundOrder);
  const best = matches[0];
  if (gaveUpOn) await insertByDate(gaveUpOn);
  // finish_depth_computation: walk on until every remaining commit is reached by the best tag.
  while (list.length) {
    const c = list.shift()!;
    if ((flags.get(c) ?? 0) & best.flag) {
      if (list.every((other) => (flags.get(other) ?? 0) & best.flag)) break;
    } else best.depth++;
    await visitParents(c);
  }
  return { best, unannotated };
}

export const describe: Handler<typeof describeFlags, readonly [{ name: "rev"; description: string }]> = async (
  ctx,
) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const rev = ctx.positionals.rev;
  if (ctx.flags.dirty && rev !== undefined) {
    throw new PtermError("InvalidArgs", "--dirty describes the work tree, not a commit: `git describe --dirty`.");
  }
  if (rev === undefined && !readHead(repo).oid) {
    throw new PtermError("NotFound", "there are no commits yet to describe: `git commit` makes the first one.");
  }
  const commit = await resolveCommit(repo, rev ?? "HEAD");
  const abbrevLength = ctx.flags.abbrev;
  // --abbrev=N: at least N digits (git's minimum 4), more when needed to be unique; else git's default.
  const short = (oid: string) =>
    abbrevLength === undefined || abbrevLength === 0
      ? abbreviate(repo, oid)
      : oid.slice(0, Math.max(abbrevLength, 4, repo.objects.sharedHexDigits(oid) + 1));
  let suffix = "";
  if (ctx.flags.dirty) {
    const report = await computeStatus(repo, loadIndex(repo), policy, { untracked: false });
    if (report.staged.size || report.unstaged.size || report.conflicted.length) suffix = "-dirty";
  }
  const names = await tagNames(repo);
  const withSuffix = (tag: TagName, depth: number) => {
    if (tag.misnamed) ctx.stderr.write(`warning: tag '${tag.name}' is externally known as '${tag.misnamed}'\n`);
    return abbrevLength === 0 && !tag.misnamed ? tag.name : `${tag.name}-${depth}-g${short(commit)}`;
  };
  let description: string;
  let tag: string | null = null;
  let depth: number | null = null;
  const exact = names.get(commit);
  if (exact && (ctx.flags.tags || exact.priority === 2)) {
    tag = exact.name;
    depth = 0;
    description = exact.misnamed || ctx.flags.long ? withSuffix(exact, 0) : exact.name;
  } else {
    const { best, unannotated } = await nearestTag(repo, commit, names, ctx.flags.tags);
    if (best) {
      tag = best.name.name;
      depth = best.depth;
      description = withSuffix(best.name, best.depth);
    } else if (ctx.flags.always) description = short(commit);
    else if (unannotated) {
      throw new PtermError(
        "NotFound",
        `no annotated tag can describe ${commit}; there are lightweight tags: \`git describe --tags\`.`,
      );
    } else {
      throw new PtermError(
        "NotFound",
        `no tag can describe ${commit}: \`git describe --always\` prints its id, \`git tag -a v0.1 -m v0.1\` makes one.`,
      );
    }
  }
  ctx.stdout.write(`${description}${suffix}\n`);
  return { repo_path: rel, description: description + suffix, commit_id: commit, tag, depth, dirty: suffix !== "" };
};
