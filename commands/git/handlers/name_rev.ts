/**
 * `nameRev`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { nameRevFlags } from "../sub/name_rev.ts";
import { parseTag } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";
import { listRefs } from "../repo/refs.ts";
import { resolveCommit } from "../history/revparse.ts";
import { openFromFlags } from "./common.ts";
import { shortRefName } from "./plumbing_shared.ts";

/** How much farther a name through a merge's other parent counts (git's MERGE_TRAVERSAL_WEIGHT). */
const MERGE_WEIGHT = 65535;

interface RevName {
  tipName: string;
  taggerDate: number;
  generation: number;
  distance: number;
  fromTag: boolean;
}

interface Tip {
  readonly commit: string;
  readonly name: string;
  readonly taggerDate: number;
  readonly fromTag: boolean;
  readonly deref: boolean;
}

/** git's preference between two names of a commit: the older tag, a tag over a branch, fewer hops. */
function isBetter(old: RevName, taggerDate: number, distance: number, fromTag: boolean): boolean {
  if (fromTag && old.fromTag) {
    return old.taggerDate > taggerDate || (old.taggerDate === taggerDate && old.distance > distance);
  }
  if (old.fromTag !== fromTag) return fromTag;
  if (old.distance !== distance) return old.distance > distance;
  if (old.taggerDate !== taggerDate) return old.taggerDate > taggerDate;
  return false;
}

const stripDeref = (name: string) => name.endsWith("^0") ? name.slice(0, -2) : name;

/** The names git's name-rev gives every commit the refs reach, each from its best tip. */
async function nameCommits(repo: Repo, tagsOnly: boolean, nameOnly: boolean): Promise<Map<string, RevName>> {
  const tips: Tip[] = [];
  for (const [refname, oid] of listRefs(repo, "refs")) {
    if (tagsOnly && !refname.startsWith("refs/tags/")) continue;
    let current = oid;
    let object = await repo.objects.read(current);
    let deref = false;
    let taggerDate: number | null = null;
    for (let depth = 0; object.type === "tag" && depth < 20; depth++) {
      const tag = parseTag(object.content);
      taggerDate = tag.tagger?.timestamp ?? 0;
      current = tag.object;
      object = await repo.objects.read(current);
      deref = true;
    }
    if (object.type !== "commit") continue;
    const commitDate = (await repo.objects.readCommit(current)).committer.timestamp;
    const name = tagsOnly && nameOnly
      ? shortRefName(repo, refname)
      : refname.startsWith("refs/heads/")
      ? refname.slice("refs/heads/".length)
      : refname.replace(/^refs\//, "");
    tips.push({
      commit: current,
      name,
      taggerDate: taggerDate ?? commitDate,
      fromTag: refname.startsWith("refs/tags/"),
      deref,
    });
  }
  // Tags first, then the older tip first (git sorts its tip table so).
  tips.sort((a, b) => Number(b.fromTag) - Number(a.fromTag) || a.taggerDate - b.taggerDate);
  const names = new Map<string, RevName>();
  const update = (commit: string, taggerDate: number, generation: number, distance: number, fromTag: boolean) => {
    const old = names.get(commit);
    if (old && !isBetter(old, taggerDate, distance, fromTag)) return null;
    const name: RevName = { tipName: old?.tipName ?? "", taggerDate, generation, distance, fromTag };
    names.set(commit, name);
    return name;
  };
  for (const tip of tips) {
    const start = update(tip.commit, tip.taggerDate, 0, 0, tip.fromTag);
    if (!start) continue;
    start.tipName = tip.deref ? `${tip.name}^0` : tip.name;
    const stack = [tip.commit];
    while (stack.length) {
      const oid = stack.pop()!;
      const name = names.get(oid)!;
      const queued: string[] = [];
      const parents = (await repo.objects.readCommit(oid)).parents;
      for (let n = 1; n <= parents.length; n++) {
        const parent = parents[n - 1];
        const generation = n > 1 ? 0 : name.generation + 1;
        const distance = name.distance + (n > 1 ? MERGE_WEIGHT : 1);
        const named = update(parent, tip.taggerDate, generation, distance, tip.fromTag);
        if (!named) continue;
        named.tipName = n > 1
          ? `${stripDeref(name.tipName)}${name.generation > 0 ? `~${name.generation}` : ""}^${n}`
          : name.tipName;
        queued.push(parent);
      }
      // The first parent is taken next (a stack: pushed last).
      for (let i = queued.length - 1; i >= 0; i--) stack.push(queued[i]);
    }
  }
  return names;
}

function spelled(name: RevName | undefined): string | null {
  if (!name) return null;
  return name.generation === 0 ? name.tipName : `${stripDeref(name.tipName)}~${name.generation}`;
}

export const nameRev: Handler<typeof nameRevFlags, readonly [{ name: "revs"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, rel } = await openFromFlags(ctx, "read");
    const words = ctx.positionals.revs;
    if (words.length === 0) {
      throw new PtermError("InvalidArgs", "git name-rev needs a commit: `git name-rev --name-only HEAD`.");
    }
    const commits = [];
    for (const word of words) {
      try {
        commits.push({ word, oid: await resolveCommit(repo, word) });
      } catch (error) {
        if (!(error instanceof PtermError)) throw error;
        // As git: a word that names no commit is skipped with a warning; the others are still named.
        ctx.stderr.write(`Could not get sha1 for ${word}. Skipping.\n`);
      }
    }
    const names = await nameCommits(repo, ctx.flags.tags ?? false, ctx.flags["name-only"] ?? false);
    const named = commits.map(({ word, oid }) => ({ rev: word, commit: oid, name: spelled(names.get(oid)) }));
    ctx.stdout.write(
      named.map((n) => (ctx.flags["name-only"] ? "" : `${n.rev} `) + (n.name ?? "undefined") + "\n").join(""),
    );
    return { repo_path: rel, names: named };
  };
